"""The shipped measured runs (published/serving/*.csv, read through engine.serving.mapping; see
its README for the source and licence) of the page's model on one accelerator, at the page's
input and output lengths, in a precision and with a backend the search covers: aggregated runs
(the serving page's `shipped_runs`) and disaggregated ones (measured-disagg-train.csv).

Each is placed as a measured point on the frontier's axes: output tokens/s per GPU = the
closed loop of its measured TTFT and TPOT, concurrency x output / (TTFT + (output - 1) x TPOT),
over the run's GPUs (as the estimate counts it, engine.serving.estimate.closed_loop_tokens_per_s);
tokens/s per user = 1 / measured TPOT.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from app.dashboard.pages.plan.params import PlanArgs
from app.dashboard.pages.serving.measured import SOURCE, shipped_runs
from engine.errors import EngineInputError
from engine.model_catalog import native_precision, preset_id_or_none
from engine.planner.space import PRECISIONS
from engine.serving.estimate import closed_loop_tokens_per_s
from engine.serving.mapping import DISAGG_CSV, MeasuredRow, read_rows, row_scenario

__all__ = ["SOURCE"]


@dataclass(frozen=True)
class MeasuredRun:
    row: MeasuredRow
    mode: str  # aggregated | disaggregated
    gpus: int
    precision: str  # the planner's name for its weights and compute (space.PRECISIONS)

    @property
    def tokens_per_s_per_gpu(self) -> float:
        sc, row = self.row.scenario, self.row
        return closed_loop_tokens_per_s(sc.concurrency, sc.output_tokens, row.ttft_s, row.tpot_s) / self.gpus

    @property
    def tokens_per_s_per_user(self) -> float:
        return 1.0 / self.row.tpot_s

    def layout_words(self) -> str:
        """TP 8 x DP 1; a disaggregated run's xPyD with each side's layout."""
        if self.row.disagg is None:
            sc = self.row.scenario
            return _words(sc.tensor_parallel, sc.attention_data_parallel, sc.expert_parallel)
        p, d = self.row.disagg.prefill, self.row.disagg.decode
        pre = _words(p.tensor_parallel, p.attention_data_parallel, p.expert_parallel)
        dec = _words(d.tensor_parallel, d.attention_data_parallel, d.expert_parallel)
        return f"{p.workers}P ({pre}) + {d.workers}D ({dec})"


def _words(tp: int, adp: int, ep: int) -> str:
    out = f"TP {tp}" + (f" x DP {adp}" if adp > 1 else "")
    return out + (f", EP {ep}" if ep > 1 else "")


def _precision(row: MeasuredRow) -> str | None:
    sc = row.scenario
    return next((name for name, d in PRECISIONS.items() if d[:2] == (sc.weight_dtype, sc.compute_dtype)), None)


def _run(row: MeasuredRow) -> MeasuredRun | None:
    precision = _precision(row)
    if precision is None:
        return None
    if row.disagg is None:
        return MeasuredRun(row, "aggregated", row.scenario.gpus, precision)
    return MeasuredRun(row, "disaggregated", row.disagg.gpus, precision)


@lru_cache(maxsize=1)
def _disaggregated_rows() -> tuple[tuple[str, MeasuredRow], ...]:
    """The shipped disaggregated rows that map onto a scenario, with their preset, read once."""
    out = []
    for raw in read_rows(DISAGG_CSV):
        try:
            row = row_scenario(raw)
        except EngineInputError:
            continue
        preset = preset_id_or_none(row.model)
        # A row whose worker counts are neither recorded nor its published recipe's is mapped as
        # one worker a side: its GPU count, and so its tokens/s per GPU, is not known (DeepSeek-R1
        # at 15,000 clients "on 2 GB200" would read 20x the best estimate). A recipe that decodes
        # with MTP, or may, runs what the planner does not search. The serving page still draws
        # both beside the deployment the user chose there, its hover saying which.
        if preset is not None and row.disagg is not None and row.one_token_a_step:
            out.append((preset, row))
    return tuple(out)


def _all_rows() -> list[tuple[str, MeasuredRow]]:
    return [(run.preset, run.row) for run in shipped_runs()] + list(_disaggregated_rows())


@lru_cache(maxsize=64)
def measured_runs(a: PlanArgs, hardware_id: str) -> tuple[MeasuredRun, ...]:
    """The shipped runs of the page's question on one accelerator, by mode then concurrency."""
    preset = preset_id_or_none(a.model)
    precisions = set(a.precisions) if a.precisions else _searched_precisions(a.model)
    out = []
    for run_preset, row in _all_rows():
        sc = row.scenario
        if run_preset != preset or row.hardware != hardware_id or row.backend not in a.backends:
            continue
        if (sc.input_tokens, sc.output_tokens) != (a.input_tokens, a.output_tokens):
            continue
        run = _run(row)
        if run is not None and run.mode in a.modes and run.precision in precisions:
            out.append(run)
    # the shipped files hold some runs twice (two campaigns' dumps of one measurement): once each
    unique = {(r.mode, r.layout_words(), r.row.backend, r.precision, r.row.scenario.concurrency,
               r.row.ttft_s, r.row.tpot_s): r for r in out}  # fmt: skip
    return tuple(sorted(unique.values(), key=lambda r: (r.mode, r.row.scenario.concurrency, r.gpus)))


def _searched_precisions(model: str) -> set[str]:
    """The engine's own choice when the page names none (space.precisions_for): the release
    format, fp8 and fp4 (fp4 only where the card has it; a card without it has no fp4 runs)."""
    return {native_precision(preset_id_or_none(model) or model) or "bf16", "fp8", "fp4"}
