"""The service layer shared by the CLI, the HTTP API and the dashboard: resolve a model
spec and accelerator specs, run the engine, return the one analysis shape."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

import numpy as np

from engine.analysis import MAX_BATCH, Roofs, Scenario, analyze
from engine.errors import EngineInputError
from engine.hardware import Accelerator, catalogue, get_accelerator, parse_accelerator
from engine.measurement import parse_measurements, place
from engine.model import ModelConfig
from engine.model_catalog import load_model
from engine.sweep import decode_sweep

MAX_HARDWARE = 16


def resolve_hardware(specs: list) -> list[Accelerator]:
    """Ids from the catalogue or inline accelerator objects (validated like a YAML file)."""
    if not isinstance(specs, list) or not 1 <= len(specs) <= MAX_HARDWARE:
        raise EngineInputError("hardware", f"give 1 to {MAX_HARDWARE} accelerators", ", ".join(sorted(catalogue())))
    out = []
    for i, spec in enumerate(specs):
        if isinstance(spec, Accelerator):
            out.append(spec)
        elif isinstance(spec, str):
            out.append(get_accelerator(spec))
        else:
            out.append(parse_accelerator(spec, f"hardware[{i}]"))
    return out


def run_analysis(model_spec: object, hardware_specs: list, scenario: Scenario,
                 measured_step_time_s: float | None = None, measured_tokens_per_s: float | None = None) -> dict:
    model: ModelConfig = load_model(model_spec)
    return analyze(model, resolve_hardware(hardware_specs), scenario, measured_step_time_s, measured_tokens_per_s)


def place_measurements(fmt: str, content: str, hardware_spec: object, model_spec: object | None,
                       scenario: Scenario, steps: int = 1) -> dict:
    """Parse a measurement file and place its records under one accelerator's roofs; with a
    model, profiler rows without counts borrow the model's predicted FLOPs/bytes."""
    hw = resolve_hardware([hardware_spec])[0]
    predicted = None
    if model_spec is not None:
        predicted = analyze(load_model(model_spec), [hw], scenario)["results"][0]["decode"]["ops"]
    points, skipped, source = _place(fmt, content, steps, hw, scenario, predicted)
    return {"hardware_id": hw.id, "format": fmt, "roofs": source, "points": points, "skipped": skipped}


def _place(fmt: str, content: str, steps: int, hw: Accelerator, scenario: Scenario,
           predicted_ops: list[dict] | None) -> tuple[list[dict], list[str], str]:
    records = parse_measurements(fmt, content, steps)
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    points, skipped = place(records, roofs.by_unit, roofs.bandwidth_bytes_per_s, predicted_ops)
    return points, skipped, roofs.source


def _geometric(high: int, points: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, max(high, 1), points)))


class _SingleFlight:
    """A small LRU of computed results where concurrent callers of one key share a single
    computation. A slider move fires the roofline and the panels callbacks at the same
    moment, in two threads, for the same scenario: this makes it one engine run, not two."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._entries: OrderedDict = OrderedDict()

    def get(self, key, compute):
        with self._lock:
            entry = self._entries.get(key)
            owner = entry is None
            if owner:
                entry = self._entries[key] = {"done": threading.Event(), "value": None, "error": None}
                while len(self._entries) > self._size:
                    self._entries.popitem(last=False)
            else:
                self._entries.move_to_end(key)
        if owner:
            try:
                entry["value"] = compute()
            except Exception as exc:  # handed to every waiter; failures are not kept
                entry["error"] = exc
                with self._lock:
                    self._entries.pop(key, None)
            finally:
                entry["done"].set()
        else:
            entry["done"].wait()
        if entry["error"] is not None:
            raise entry["error"]
        return entry["value"]


_dashboard_cache = _SingleFlight(64)


def dashboard_data(model_spec: object, hardware_ids: list, scenario: Scenario,
                   measured_step_time_s: float | None = None, measurements: dict | None = None) -> dict:
    """What the dashboard draws: the analysis, each accelerator's decode trajectory from B = 1
    to its largest batch that fits, a tokens/s-vs-batch sweep and the KV-wall intensity; with
    a measured step or imported measurements, those too (on the first accelerator).
    The result is shared between callers: treat it as read-only."""
    def compute() -> dict:
        return _dashboard_data(model_spec, hardware_ids, scenario, measured_step_time_s, measurements)

    if not all(isinstance(h, str) for h in hardware_ids):  # inline accelerators: not worth a key
        return compute()
    key = (json.dumps(model_spec, sort_keys=True), tuple(hardware_ids), scenario, measured_step_time_s,
           json.dumps(measurements, sort_keys=True))
    return _dashboard_cache.get(key, compute)


def _dashboard_data(model_spec: object, hardware_ids: list, scenario: Scenario,
                    measured_step_time_s: float | None, measurements: dict | None) -> dict:
    model = load_model(model_spec)
    hardware = resolve_hardware(hardware_ids)
    analysis = analyze(model, hardware, scenario, measured_step_time_s)
    trajectories, throughput = {}, {}
    throughput_batches = np.union1d(_geometric(1024, 48), [scenario.batch_size])
    for hw, result in zip(hardware, analysis["results"]):
        max_batch = result["memory"]["max_batch_size"]
        if max_batch >= 1:
            trajectories[hw.id] = decode_sweep(model, hw, scenario, batch_sizes=_geometric(min(max_batch, MAX_BATCH), 40))
        throughput[hw.id] = decode_sweep(model, hw, scenario, batch_sizes=throughput_batches)
    wall = decode_sweep(model, hardware[0], scenario, batch_sizes=[MAX_BATCH])["intensity"][0]
    ends = {hw_id: float(s["intensity"][-1]) for hw_id, s in trajectories.items()}
    points = None
    if measurements:
        points, _, _ = _place(measurements["format"], measurements["content"], measurements.get("steps", 1),
                              hardware[0], scenario, analysis["results"][0]["decode"]["ops"])
    return {"analysis": analysis, "trajectories": trajectories, "throughput": throughput,
            "trajectory_end": ends, "kv_wall_intensity": float(wall), "measured_points": points}
