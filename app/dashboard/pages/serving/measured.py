"""The shipped measured runs (published/serving/, see its README for the source and licence)
that match the page's scenario: the same model (after resolving Hugging Face ids to presets),
accelerator, backend, precision, input and output tokens and parallel layout; any concurrency.
A disaggregated deployment's runs (measured-disagg-train.csv) match on both sides' layouts:
workers, tensor parallel, attention DP, expert parallel and the prefill batch.

A run of another layout or length would sit on other axes (its own per-GPU throughput), so it
is left out rather than drawn beside a bound it was never run against.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine.errors import EngineInputError
from engine.model_catalog import preset_id_or_none
from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV, MeasuredRow, read_rows, row_scenario
from engine.serving.scenario import DisaggScenario, ServingScenario, WorkerLayout

SOURCE = "ai-dynamo/aiconfigurator silicon_sample.csv @095f58a (Apache-2.0)"


@dataclass(frozen=True)
class Run:
    row: MeasuredRow
    preset: str
    backend_version: str
    data_source: str  # the row's own provenance column (database dump, config, date)


def _read_runs(path) -> tuple[Run, ...]:
    """Every row of a shipped file that maps onto a scenario (the README's mapping)."""
    runs = []
    for raw in read_rows(path):
        try:
            row = row_scenario(raw)
        except EngineInputError:
            continue
        preset = preset_id_or_none(row.model)
        if preset is not None:
            runs.append(Run(row, preset, raw.get("backend_version", ""), raw.get("silicon_data_source", "")))
    return tuple(runs)


@lru_cache(maxsize=1)
def shipped_runs() -> tuple[Run, ...]:
    """Every shipped aggregated run, read once."""
    return _read_runs(TRAINING_CSV)


@lru_cache(maxsize=1)
def shipped_disagg_runs() -> tuple[Run, ...]:
    """Every shipped disaggregated run (its row's `disagg` set), read once."""
    return tuple(r for r in _read_runs(DISAGG_CSV) if r.row.disagg is not None)


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


@dataclass(frozen=True)
class Nearby:
    """Shipped runs of the page's model in one configuration that is not the page's: what
    differs (field, the runs' value), how many runs and their concurrencies."""

    differences: tuple[tuple[str, object], ...]
    runs: int
    concurrencies: tuple[int, int]


def _configuration(hardware: str, backend: str | None, sc: ServingScenario, dense: bool) -> dict:
    """What a shipped run's configuration is named by (its concurrency aside)."""
    precision = sc.weight_dtype if sc.weight_dtype == sc.compute_dtype else f"{sc.weight_dtype}/{sc.compute_dtype}"
    return {
        "hardware": hardware,
        "backend": backend,
        "precision": precision,
        "lengths": (sc.input_tokens, sc.output_tokens),
        "tp": sc.tensor_parallel,
        "adp": sc.attention_data_parallel,
        "ep": 1 if dense else sc.expert_parallel,
    }


def nearby_runs(model: str, hardware_id: str, sc: ServingScenario, dense: bool, limit: int = 3) -> list[Nearby]:
    """When no shipped run matches the scenario: the configurations of the same model with the
    fewest differences from it (then the most runs), at most `limit`."""
    preset = preset_id_or_none(model)
    return _nearest_groups(
        [r for r in shipped_runs() if r.preset == preset],
        _configuration(hardware_id, sc.backend, sc, dense),
        lambda r: _configuration(r.row.hardware, r.row.backend, r.row.scenario, dense),
        limit,
    )


def _nearest_groups(runs: list[Run], page: dict, configuration, limit: int) -> list[Nearby]:
    """The runs grouped by how their configuration differs from the page's (a backend the page
    leaves open is no difference), fewest differences first, then the most runs."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        config = configuration(run)
        key = tuple((k, v) for k, v in config.items() if page[k] != v and not (k == "backend" and page[k] is None))
        groups.setdefault(key, []).append(run)
    ranked = sorted(groups.items(), key=lambda item: (len(item[0]), -len(item[1])))
    return [
        Nearby(
            key,
            len(runs),
            (min(r.row.scenario.concurrency for r in runs), max(r.row.scenario.concurrency for r in runs)),
        )
        for key, runs in ranked
        if key  # a configuration with no difference is a match, said elsewhere
    ][:limit]


def side_shape(side: WorkerLayout, dense: bool) -> tuple[int, ...]:
    """A side as its runs are matched: workers, TP, attention DP, expert parallel (a dense
    model's 1), prefill batch. The MoE split follows (moe TP x EP covers the worker)."""
    return (side.workers, side.tensor_parallel, side.attention_data_parallel, 1 if dense else side.expert_parallel,
            side.batch)  # fmt: skip


def _disagg_configuration(hardware: str, backend: str | None, ds: DisaggScenario, dense: bool) -> dict:
    config = _configuration(hardware, backend, ds.base, dense)
    for key in ("tp", "adp", "ep"):  # the instance's layout is the sides'
        config.pop(key)
    return config | {"prefill": side_shape(ds.prefill, dense), "decode": side_shape(ds.decode, dense)}


def matching_disagg_runs(model: str, hardware_id: str, ds: DisaggScenario, dense: bool) -> list[Run]:
    """The shipped disaggregated runs of this deployment on this accelerator, by concurrency;
    with no backend chosen every backend's."""
    preset = preset_id_or_none(model)
    page = _disagg_configuration(hardware_id, ds.base.backend, ds, dense)
    out = []
    for run in shipped_disagg_runs():
        if run.preset != preset:
            continue
        config = _disagg_configuration(run.row.hardware, run.row.backend, run.row.disagg, dense)
        if all(config[k] == v for k, v in page.items() if not (k == "backend" and v is None)):
            out.append(run)
    return sorted(out, key=lambda r: (r.row.scenario.concurrency, r.row.backend))


def nearby_disagg_runs(model: str, hardware_id: str, ds: DisaggScenario, dense: bool, limit: int = 3) -> list[Nearby]:
    """When no shipped disaggregated run matches the deployment: the nearest configurations of
    the same model, as nearby_runs names them (the sides' shapes among the differences)."""
    preset = preset_id_or_none(model)
    return _nearest_groups(
        [r for r in shipped_disagg_runs() if r.preset == preset],
        _disagg_configuration(hardware_id, ds.base.backend, ds, dense),
        lambda r: _disagg_configuration(r.row.hardware, r.row.backend, r.row.disagg, dense),
        limit,
    )
