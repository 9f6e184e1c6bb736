"""The service layer shared by the CLI, the HTTP API and the dashboard: resolve a model
spec and accelerator specs, run the engine, return the one analysis shape."""

from __future__ import annotations

from engine.analysis import Scenario, analyze
from engine.errors import EngineInputError
from engine.hardware import Accelerator, catalogue, get_accelerator, parse_accelerator
from engine.model import ModelConfig
from engine.model_catalog import load_model

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


def run_analysis(model_spec: object, hardware_specs: list, scenario: Scenario) -> dict:
    model: ModelConfig = load_model(model_spec)
    return analyze(model, resolve_hardware(hardware_specs), scenario)
