"""The shipped measured runs (published/serving/, see its README for the source and licence)
that match the page's scenario: the same model (after resolving Hugging Face ids to presets),
accelerator, backend, precision, input and output tokens and parallel layout; any concurrency.

A run of another layout or length would sit on other axes (its own per-GPU throughput), so it
is left out rather than drawn beside a bound it was never run against.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.errors import EngineInputError
from engine.model_catalog import preset_id_or_none
from engine.serving.mapping import TRAINING_CSV, MeasuredRow, read_rows, row_scenario
from engine.serving.scenario import ServingScenario

SOURCE = "ai-dynamo/aiconfigurator silicon_sample.csv @095f58a (Apache-2.0)"


@dataclass(frozen=True)
class Run:
    row: MeasuredRow
    preset: str
    backend_version: str
    data_source: str  # the row's own provenance column (database dump, config, date)


@lru_cache(maxsize=1)
def shipped_runs() -> tuple[Run, ...]:
    """Every shipped row that maps onto a scenario (the README's mapping), read once."""
    runs = []
    for raw in read_rows(TRAINING_CSV):
        try:
            row = row_scenario(raw)
        except EngineInputError:
            continue
        preset = preset_id_or_none(row.model)
        if preset is not None:
            runs.append(Run(row, preset, raw.get("backend_version", ""), raw.get("silicon_data_source", "")))
    return tuple(runs)


def _shape(sc: ServingScenario) -> tuple:
    moe = (sc.moe_tensor_parallel, sc.expert_parallel)
    return (sc.input_tokens, sc.output_tokens, sc.tensor_parallel, sc.attention_data_parallel, moe)


def matching_runs(model: str, hardware_id: str, sc: ServingScenario, dense: bool) -> list[Run]:
    """The shipped runs of this scenario's shape on this accelerator, by concurrency; with no
    backend chosen (`sc.backend is None`) every backend's."""
    preset = preset_id_or_none(model)
    want = _shape(sc)
    out = []
    for run in shipped_runs():
        rs = run.row.scenario
        if run.preset != preset or run.row.hardware != hardware_id:
            continue
        if sc.backend is not None and run.row.backend != sc.backend:
            continue
        if (rs.weight_dtype, rs.compute_dtype) != (sc.weight_dtype, sc.compute_dtype):
            continue
        shape = _shape(rs)
        if dense:  # a dense model's runs record no MoE split
            shape, want_shape = shape[:4], want[:4]
        else:
            want_shape = want
        if shape == want_shape:
            out.append(run)
    return sorted(out, key=lambda r: (r.row.scenario.concurrency, r.row.backend))
