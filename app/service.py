"""The service layer shared by the CLI, the HTTP API and the dashboard: resolve a model
spec and accelerator specs, run the engine, return the one analysis shape."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache, partial

import numpy as np

from engine.analysis import MAX_BATCH, Roofs, Scenario, analyze, analyze_one, resolve_model
from engine.analysis import measured_decode as measured_decode_at
from engine.cache import ByteLRU, approx_size, sampled_size
from engine.errors import EngineInputError
from engine.hardware import Accelerator, catalogue, get_accelerator, parse_accelerator
from engine.measurement import parse_measurements, place
from engine.model import ModelConfig
from engine.model_catalog import load_model, preset_records
from engine.request import attach_requests, throughput_interactivity
from engine.sweep import decode_sweep, phase_grid
from engine.what_if import parse_what_if

MAX_HARDWARE = 16


def resolve_hardware(specs: list, field: str = "hardware") -> list[Accelerator]:
    """Ids from the catalogue, what-if short forms (`fast:3.35:1979:80`) or inline accelerator
    objects (validated like a YAML file). Errors name `field[i]` (the CLI: `--hardware[i]`)."""
    if not isinstance(specs, list) or not 1 <= len(specs) <= MAX_HARDWARE:
        raise EngineInputError(
            field,
            f"give 1 to {MAX_HARDWARE} accelerators",
            ", ".join(sorted(catalogue())),
            code="hardware_count",
            params={"n": MAX_HARDWARE, "allowed": ", ".join(sorted(catalogue()))},
        )
    out = []
    for i, spec in enumerate(specs):
        if isinstance(spec, Accelerator):
            out.append(spec)
        elif isinstance(spec, str) and ":" in spec:  # a what-if in its short form (docs/labs.md)
            out.append(parse_what_if(spec, f"{field}[{i}]"))
        elif isinstance(spec, str):
            out.append(get_accelerator(spec))
        else:
            out.append(parse_accelerator(spec, f"{field}[{i}]"))
    return out


def serving_inputs(
    model_spec: object, hardware_id: str, tensor_parallel: int, field: str = "tensor_parallel"
) -> tuple[ModelConfig, Accelerator]:
    """The model and accelerator of a serving question, asked of the API or the CLI. A
    tensor-parallel degree past the accelerator's scale-up domain is refused, naming the domain's
    size: the rule the serving page applies (Accelerator.check_tensor_parallel; at most 8 on a
    card without such a domain)."""
    model, hw = load_model(model_spec), get_accelerator(hardware_id)
    hw.check_tensor_parallel(tensor_parallel, field)
    return model, hw


def run_analysis(
    model_spec: object,
    hardware_specs: list,
    scenario: Scenario,
    measured_step_time_s: float | None = None,
    measured_tokens_per_s: float | None = None,
) -> dict:
    model: ModelConfig = load_model(model_spec)
    return analyze(model, resolve_hardware(hardware_specs), scenario, measured_step_time_s, measured_tokens_per_s)


def place_measurements(
    fmt: str, content: str, hardware_spec: object, model_spec: object | None, scenario: Scenario, steps: int = 1
) -> dict:
    """Parse a measurement file and place its records under one accelerator's roofs; with a
    model, profiler rows without counts borrow the model's predicted FLOPs/bytes."""
    hw = resolve_hardware([hardware_spec])[0]
    predicted = None
    if model_spec is not None:
        predicted = analyze(load_model(model_spec), [hw], scenario)["results"][0]["decode"]["ops"]
    points, skipped, source = _place(fmt, content, steps, hw, scenario, predicted)
    return {"hardware_id": hw.id, "format": fmt, "roofs": source, "points": points, "skipped": skipped}


# Parsed measurement files by content: the page parses one import for its view and again for
# its slider grid, the API once per request; records are not changed once parsed.
_parsed_files = ByteLRU(16 * 1024 * 1024, sizeof=sampled_size)


def parsed_measurements(fmt: str, content: str, steps: int = 1) -> list:
    key = (fmt, hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest(), steps)
    return _parsed_files.get_or_compute(key, lambda: tuple(parse_measurements(fmt, content, steps)))


def _place(
    fmt: str, content: str, steps: int, hw: Accelerator, scenario: Scenario, predicted_ops: list[dict] | None
) -> tuple[list[dict], list[str], str]:
    records = parsed_measurements(fmt, content, steps)
    roofs = Roofs.of(hw, scenario.compute_dtype, scenario)
    points, skipped = place(records, roofs.by_unit, roofs.bandwidth_bytes_per_s, predicted_ops)
    return points, skipped, roofs.source


def measured_on(hardware: list[Accelerator], measurements: dict | None) -> int:
    """The index of the accelerator a profile was measured on: the one its `on` names among
    those drawn (a profile is of one machine), else the first."""
    on = (measurements or {}).get("on")
    return next((i for i, hw in enumerate(hardware) if hw.id == on), 0)


@lru_cache(maxsize=1)
def catalogue_fingerprint() -> str:
    """sha256 (first 16 hex digits) of every accelerator and model preset the numbers come
    from: an export says which catalogue it was computed with."""
    payload = json.dumps(
        {
            "hardware": {k: a.model_dump(mode="json") for k, a in sorted(catalogue().items())},
            "models": preset_records(),
        },
        sort_keys=True,
        default=str,
    )
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _geometric(high: int, points: int) -> np.ndarray:
    return np.unique(np.round(np.geomspace(1, max(high, 1), points)))


class _SingleFlight:
    """A small LRU of computed results where concurrent callers of one key share a single
    computation. A slider move fires the roofline and the panels callbacks at the same
    moment, in two threads, for the same scenario: this makes it one engine run, not two.

    Bounded in bytes, measured: each result is measured once when it is stored (`sizeof`,
    numpy buffers included), and the oldest are dropped until the total fits. A result larger
    than the whole budget is handed back and not kept."""

    def __init__(self, max_bytes: int, sizeof: Callable[[object], int] = approx_size) -> None:
        self.max_bytes = max_bytes
        self._sizeof = sizeof
        self.bytes = 0
        self._lock = threading.Lock()
        self._entries: OrderedDict = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key, compute):
        with self._lock:
            entry = self._entries.get(key)
            owner = entry is None
            if owner:
                entry = self._entries[key] = {"done": threading.Event(), "value": None, "error": None, "bytes": 0}
            else:
                self._entries.move_to_end(key)
        if owner:
            try:
                entry["value"] = compute()
                self._store(key, entry)
            except Exception as exc:  # handed to every waiter; failures are not kept
                entry["error"] = exc
                with self._lock:
                    if self._entries.get(key) is entry:
                        del self._entries[key]
            finally:
                entry["done"].set()
        else:
            entry["done"].wait()
        if entry["error"] is not None:
            raise entry["error"]
        return entry["value"]

    def _store(self, key, entry: dict) -> None:
        size = self._sizeof(entry["value"]) + self._sizeof(key)
        with self._lock:
            if self._entries.get(key) is not entry:  # cleared meanwhile
                return
            if size > self.max_bytes:
                del self._entries[key]
                return
            entry["bytes"] = size
            self.bytes += size
            for old in list(self._entries):
                if self.bytes <= self.max_bytes:
                    break
                dropped = self._entries[old]
                if old != key and dropped["done"].is_set():  # one being computed has no size yet
                    del self._entries[old]
                    self.bytes -= dropped["bytes"]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


# Budgets measured on the largest legal views (8 accelerators, 1,024-layer configs): a view is
# ~0.2-0.5 MB, a slider grid (arrays for 154 stops) ~2-4 MB, its formatted payload ~3 MB.
DASHBOARD_CACHE_BYTES = 48 * 1024 * 1024
GRID_CACHE_BYTES = 48 * 1024 * 1024
# A view (~0.1-0.5 MB, irregular) is walked whole: 1-3 ms, faster than sampling its short lists.
# A slider grid (~3 MB: ~150 stops of one shape) is measured on 8 items of each long list: 2 ms,
# within 0.5% of the whole walk's 60 ms (32 items: 16 ms, a third of a structural change's CPU).
_dashboard_cache = _SingleFlight(DASHBOARD_CACHE_BYTES)
_grid_cache = _SingleFlight(GRID_CACHE_BYTES, partial(sampled_size, sample=8))


def memo_grid(key: tuple, compute):
    """Single-flight memo for derived grid products (the dashboard's formatted payload)."""
    return _grid_cache.get(key, compute)


# The slider stops: batch 1..1024 and context 128..1M, each a power of two (the dashboard's
# sliders move on this grid; typed values off it go through the server).
BATCH_STOPS = tuple(2**i for i in range(0, 11))
CONTEXT_STOPS = tuple(2**i for i in range(7, 21))


def dashboard_data(
    model_spec: object,
    hardware_ids: list,
    scenario: Scenario,
    measured_step_time_s: float | None = None,
    measurements: dict | None = None,
    output_tokens: int | None = None,
    gpu_hour_price: float | None = None,
) -> dict:
    """What the dashboard draws at one scenario: the analysis, each accelerator's decode
    trajectory from B = 1 to its largest batch that fits, a tokens/s-vs-batch sweep, the
    throughput-interactivity curve and the KV-wall intensity; with a measured step, that too (on
    the first accelerator); with imported measurements, those on the accelerator they were
    measured on (`measurements["on"]`, default the first); with output tokens, each result's
    `request` block (engine/request.py). The result is shared between callers: treat it as
    read-only."""

    def compute() -> dict:
        return _dashboard_data(
            model_spec, hardware_ids, scenario, measured_step_time_s, measurements, output_tokens, gpu_hour_price
        )

    if not all(isinstance(h, str) for h in hardware_ids):  # inline accelerators: not worth a key
        return compute()
    key = (
        "view",
        json.dumps(model_spec, sort_keys=True),
        tuple(hardware_ids),
        scenario,
        measured_step_time_s,
        json.dumps(measurements, sort_keys=True),
        output_tokens,
        gpu_hour_price,
    )
    return _dashboard_cache.get(key, compute)


def dashboard_grid(
    model_spec: object,
    hardware_ids: list,
    scenario: Scenario,
    measured_step_time_s: float | None = None,
    measurements: dict | None = None,
) -> dict:
    """The same numbers as `dashboard_data` at every slider stop (BATCH_STOPS x CONTEXT_STOPS):
    per accelerator the decode and prefill phases with their ops (engine.sweep.phase_grid, one
    vectorised pass), the decode trajectory at each context stop, the measured step on the first
    accelerator and the imported points on theirs (`measured_on`) at each stop. The scenario's own batch and
    context do not matter here, so one grid serves every slider position."""
    base = replace(scenario, batch_size=1, context_length=CONTEXT_STOPS[0])

    def compute() -> dict:
        return _dashboard_grid(model_spec, hardware_ids, base, measured_step_time_s, measurements)

    return _grid_cache.get(grid_key(model_spec, hardware_ids, scenario, measured_step_time_s, measurements), compute)


def grid_key(
    model_spec: object,
    hardware_ids: list,
    scenario: Scenario,
    measured_step_time_s: float | None = None,
    measurements: dict | None = None,
) -> tuple:
    base = replace(scenario, batch_size=1, context_length=CONTEXT_STOPS[0])
    return (
        "grid",
        json.dumps(model_spec, sort_keys=True),
        tuple(hardware_ids),
        base,
        measured_step_time_s,
        json.dumps(measurements, sort_keys=True),
    )


def _trajectory_batches(max_batch: int) -> list[int]:
    """Powers of two up to the largest batch that fits, and that batch itself."""
    top = min(max_batch, MAX_BATCH)
    return sorted({*(b for b in (2**i for i in range(17)) if b <= top), top}) if top >= 1 else []


def _trajectory(model: ModelConfig, hw: Accelerator, scenario: Scenario, max_batch: int) -> dict | None:
    batches = _trajectory_batches(max_batch)
    return decode_sweep(model, hw, scenario, batch_sizes=batches) if batches else None


def _dashboard_data(
    model_spec: object,
    hardware_ids: list,
    scenario: Scenario,
    measured_step_time_s: float | None,
    measurements: dict | None,
    output_tokens: int | None = None,
    gpu_hour_price: float | None = None,
) -> dict:
    model = load_model(model_spec)
    hardware = resolve_hardware(hardware_ids)
    analysis = attach_requests(
        analyze(model, hardware, scenario, measured_step_time_s),
        model,
        hardware,
        scenario,
        output_tokens,
        gpu_hour_price,
    )
    interactivity = {
        hw.id: throughput_interactivity(model, hw, scenario, output_tokens, gpu_hour_price=gpu_hour_price)
        for hw in hardware
    }
    trajectories, throughput = {}, {}
    throughput_batches = np.union1d(_geometric(1024, 48), [scenario.batch_size])
    for hw, result in zip(hardware, analysis["results"], strict=True):
        trajectory = _trajectory(model, hw, scenario, result["memory"]["max_batch_size"])
        if trajectory is not None:
            trajectories[hw.id] = trajectory
        throughput[hw.id] = decode_sweep(model, hw, scenario, batch_sizes=throughput_batches)
    wall = decode_sweep(model, hardware[0], scenario, batch_sizes=[MAX_BATCH])["intensity"][0]
    ends = {hw_id: float(s["intensity"][-1]) for hw_id, s in trajectories.items()}
    points, on = None, measured_on(hardware, measurements)
    if measurements:
        points, _, _ = _place(
            measurements["format"],
            measurements["content"],
            measurements.get("steps", 1),
            hardware[on],
            scenario,
            analysis["results"][on]["decode"]["ops"],
        )
    # what one request waits for its first token when it arrives alone (batch 1), beside the
    # whole batch's prefill bound (`prefill.time_s`)
    ttft_alone = {
        hw.id: analyze_one(model, hw, replace(scenario, batch_size=1))["prefill"]["time_s"] for hw in hardware
    }
    return {
        "analysis": analysis,
        "ttft_alone_s": ttft_alone,
        "trajectories": trajectories,
        "throughput": throughput,
        "interactivity": interactivity,
        "trajectory_end": ends,
        "kv_wall_intensity": float(wall),
        "measured_points": points,
        "measured_on": hardware[on].id,  # the accelerator the imported points are placed on
    }


def _dashboard_grid(
    model_spec: object,
    hardware_ids: list,
    base: Scenario,
    measured_step_time_s: float | None,
    measurements: dict | None,
) -> dict:
    model = load_model(model_spec)
    hardware = resolve_hardware(hardware_ids)
    batch, context = (a.ravel() for a in np.meshgrid(BATCH_STOPS, CONTEXT_STOPS, indexing="ij"))
    phases = {hw.id: phase_grid(model, hw, base, batch, context) for hw in hardware}
    trajectories: dict[str, list] = {}
    for hw in hardware:
        per_context = []
        for c in CONTEXT_STOPS:
            at = replace(base, context_length=c)
            max_batch = analyze_one(model, hw, at)["memory"]["max_batch_size"]
            per_context.append(_trajectory(model, hw, at, max_batch))
        trajectories[hw.id] = per_context
    first = hardware[0]
    measured_decode, measured_points = [], []
    records = (
        parsed_measurements(measurements["format"], measurements["content"], measurements.get("steps", 1))
        if measurements
        else []
    )
    # Rows with their own FLOPs and bytes sit where they were measured whatever the sliders say:
    # the page draws them once, from the view. Only rows that borrow the model's prediction for
    # their op family (one point per family, a handful) move with the sliders, so only they are
    # placed at each of the 154 stops (a 10,000-row import once made 1.5 million points here).
    moving = [r for r in records if r.flops is None or r.bytes is None]
    on = hardware[measured_on(hardware, measurements)]  # the profile's machine; the measured step: the first
    roofs = Roofs.of(on, base.compute_dtype, base)
    resolved = resolve_model(model, base)
    for i, (b, c) in enumerate(zip(batch, context, strict=True)):
        if measured_step_time_s is not None:
            decode = phase_at(phases[first.id]["decode"], i)
            at = replace(base, batch_size=int(b), context_length=int(c))
            measured_decode.append(measured_decode_at(resolved, first, at, decode, measured_step_time_s))
        if moving:
            ops = phase_at(phases[on.id]["decode"], i)["ops"]
            measured_points.append(place(moving, roofs.by_unit, roofs.bandwidth_bytes_per_s, ops)[0])
    return {
        "batch_size": batch,
        "context_length": context,
        "phases": phases,
        "trajectories": trajectories,
        "measured_decode": measured_decode or None,
        # per stop, the imported points that follow the model (`predicted`); the rest are fixed
        "measured_points": measured_points or None,
        "measured_on": on.id,
    }


def phase_at(phase: dict, i: int, with_ops: bool = True) -> dict:
    """Stop i of a phase_grid phase in the shape of analysis.evaluate_phase (the fields the
    dashboard reads), so one function draws a point from either."""
    flops, byts, time_s = float(phase["flops"][i]), float(phase["bytes"][i]), float(phase["time_s"][i])
    out = {
        "flops": flops,
        "bytes": byts,
        "intensity": flops / byts,
        "time_s": time_s,
        "attainable_flops_per_s": flops / time_s,
        "tokens_per_s": float(phase["tokens_per_s"][i]),
        "bound": "compute" if phase["compute_bound"][i] else "memory",
        "fraction_of_roof": float(phase["fraction_of_roof"][i]),
        "ops": [],
    }
    if with_ops:
        for o in phase["ops"]:
            f, b = float(o["flops"][i]), float(o["bytes"][i])
            out["ops"].append(
                {
                    "name": o["name"],
                    "unit": o["unit"],
                    "flops": f,
                    "bytes": b,
                    "intensity": f / b if b else 0.0,
                    "time_s": float(o["time_s"][i]),
                    "bound": "compute" if o["compute_bound"][i] else "memory",
                    "layers": o["layers"],
                    "share_of_step": float(o["share_of_step"][i]),
                }
            )
    return out
