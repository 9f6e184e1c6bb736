"""Score the serving estimate (and the bound) against measured runs: median and p90 absolute
error of TPOT and TTFT, overall and by backend, GPU and model; the share of runs inside the
estimate's range; every run the bound is above (on TPOT, and apart on TTFT), with a warning.
Aggregated runs are scored as before; disaggregated runs (mode disagg: engine.serving.disagg)
are answered too and reported apart, under `disaggregated`, by GPU, model, and whether the
row records its worker counts, takes them from its published recipe (engine.serving.recipes),
with or without MTP, may have been any of several recipes, or is answered as one worker per
side. A run whose deployment or decoding is one of several is answered for each and spanned
(`spanning`): its bound is the least of theirs, its range covers theirs.

Rows are taken one at a time (a list, or engine.serving.mapping.stream_rows for a file) and each
answered row is kept as ten numbers and three group codes, not as its whole answer, so memory
grows by about a hundred bytes a row (1M rows of answers held 3.5 GB). A row that cannot be
mapped or answered is named (line, field, why) and skipped; the report lists the first
MAX_LISTED of those and of the flagged runs, and counts them all.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable
from dataclasses import replace

import numpy as np

from ..errors import EngineInputError, visible
from ..hardware import get_accelerator
from .calibration import Calibration, load_calibration
from .disagg import disaggregated_estimates
from .estimate import serving_estimate
from .mapping import CsvRow, as_recipe_ran, resolve_model, row_scenario
from .recipes import named_draft_lengths
from .scenario import DisaggScenario
from .speculative import Speculative

MAX_LISTED = 1000
ID_CHARS = 80  # of a row's id echoed in the report
_VALUES = ("measured_tpot_s", "measured_ttft_s", "estimate_tpot_s", "estimate_ttft_s", "bound_tpot_s", "bound_ttft_s")
_RANGES = ("tpot_low", "tpot_high", "ttft_low", "ttft_high")
_GROUPS = ("backend", "gpu", "model", "mode", "workers")
# A disaggregated row without its worker counts takes its published recipe's (engine.serving.
# recipes), else is answered as one prefill and one decode worker (engine.serving.mapping); each
# kind is scored apart, and a bound above the run says why it may be.
WORKERS_RECORDED, WORKERS_NOT_RECORDED = "worker counts recorded", "worker counts not recorded"
WORKERS_FROM_RECIPE = "worker counts from the recipe"
WORKERS_FROM_MTP_RECIPE = "worker counts from an MTP recipe"
WORKERS_FROM_UNSURE_RECIPE = "recipe counts, decoding unknown"
WORKERS_FROM_CANDIDATES = "one of several recipes"
# (The TTFT bound is one prompt's forward alone and its transfer: no worker count changes it.)
_ASSUMED_WORKERS = (
    "; this row's worker counts are not recorded and one decode worker is assumed: more decode workers, each with a "
    "smaller batch, would explain it"
)
_MTP_RECIPE = (
    "; this row's published recipe lists multi-token prediction beside plain decoding, or names no draft length, "
    "so its decoding is not known: more than one token a step would explain it"
)
_CANDIDATE_RECIPES = (
    "; this row's worker counts are not recorded and the bound is the least of the published recipes it may have "
    "been: a deployment none of them lists would explain it"
)


def workers_group(m) -> str:
    """How a mapped run's worker counts were known, and its decoding (validate's `by_workers`)."""
    if m.workers_from == "recipe":
        if not m.tpot_describable:
            return WORKERS_FROM_UNSURE_RECIPE
        return WORKERS_FROM_RECIPE if m.mtp_draft_tokens is None else WORKERS_FROM_MTP_RECIPE
    if m.workers_from == "recorded":
        return WORKERS_RECORDED
    return WORKERS_FROM_CANDIDATES if m.candidates else WORKERS_NOT_RECORDED


def _tpot_words(m) -> Callable[[float, float], str]:
    if m.workers_from == "assumed":
        return _with_candidate_recipes if m.candidates else _with_assumed_workers
    return bound_warning if m.tpot_describable else _with_mtp_recipe


class _Answers:
    """The answered rows, column by column: measured, estimate and bound times, the estimate's
    ranges, and a code per group (backend, GPU, model)."""

    def __init__(self) -> None:
        self.columns = {name: array("d") for name in (*_VALUES, *_RANGES)}
        self.codes = {group: array("i") for group in _GROUPS}
        self.names: dict[str, dict[str, int]] = {group: {} for group in _GROUPS}

    def __len__(self) -> int:
        return len(self.codes["gpu"])

    def add(self, groups: dict[str, str], measured: dict, estimate: dict, bound: dict) -> None:
        for key in ("tpot_s", "ttft_s"):
            self.columns[f"measured_{key}"].append(measured[key])
            self.columns[f"estimate_{key}"].append(estimate[key])
            self.columns[f"bound_{key}"].append(bound[key])
        for key in ("tpot", "ttft"):
            low, high = estimate[f"{key}_s_range"]
            self.columns[f"{key}_low"].append(low)
            self.columns[f"{key}_high"].append(high)
        for group, name in groups.items():
            self.codes[group].append(self.names[group].setdefault(name, len(self.names[group])))

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.frombuffer(values, dtype=float) for name, values in self.columns.items()}

    def members(self, group: str) -> dict[str, np.ndarray]:
        """Row indices of each name of a group, by name."""
        codes = np.frombuffer(self.codes[group], dtype=np.int32)
        return {name: np.flatnonzero(codes == code) for name, code in sorted(self.names[group].items())}


def _stats(cols: dict[str, np.ndarray], rows: np.ndarray) -> dict:
    def err(kind: str, key: str) -> np.ndarray:
        return np.abs(cols[f"{kind}_{key}_s"][rows] / cols[f"measured_{key}_s"][rows] - 1.0)

    def inside(key: str) -> float:
        measured = cols[f"measured_{key}_s"][rows]
        return float(np.mean((cols[f"{key}_low"][rows] <= measured) & (measured <= cols[f"{key}_high"][rows])))

    out: dict = {"rows": len(rows)}
    for key in ("tpot", "ttft"):
        e = err("estimate", key)
        out[f"{key}_median_abs_error"] = float(np.median(e))
        out[f"{key}_p90_abs_error"] = float(np.percentile(e, 90))
        out[f"{key}_in_range"] = inside(key)
        # how wide the ranges are (high / low): a run answered over several deployments has a wider one
        out[f"{key}_range_ratio_median"] = float(np.median(cols[f"{key}_high"][rows] / cols[f"{key}_low"][rows]))
    bound = {}
    for key in ("tpot", "ttft"):
        e = err("bound", key)
        bound[f"{key}_median_abs_error"] = float(np.median(e))
        bound[f"{key}_p90_abs_error"] = float(np.percentile(e, 90))
        bound[f"{key}_above_measured"] = int(np.sum(cols[f"bound_{key}_s"][rows] > cols[f"measured_{key}_s"][rows]))
    out["bound"] = bound
    return out


class _Flagged:
    """Runs a bound is above: all counted, the first MAX_LISTED named with their warning."""

    def __init__(self) -> None:
        self.listed: list[dict] = []
        self.count = 0

    def add(self, row_id: str, warning: Callable[[float, float], str], measured_s: float, bound_s: float) -> None:
        self.count += 1
        if len(self.listed) < MAX_LISTED:  # the words only for the runs listed
            self.listed.append({"id": row_id, "warning": warning(measured_s, bound_s)})


def _time_words(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms" if seconds < 1.0 else f"{seconds:.3g} s"


def ttft_bound_warning(measured_ttft_s: float, bound_ttft_s: float) -> str:
    return (
        f"measured TTFT {_time_words(measured_ttft_s)} is below the bound {_time_words(bound_ttft_s)}: no run can "
        "beat the roofs, so the run did something the scenario does not (fewer requests in flight than its "
        "concurrency, prompts served from a cache, more prefill GPUs than recorded) or was mis-recorded"
    )


def bound_warning(measured_tpot_s: float, bound_tpot_s: float) -> str:
    return (
        f"measured TPOT {measured_tpot_s * 1e3:.3g} ms is below the bound {bound_tpot_s * 1e3:.3g} ms: no run "
        "can beat the roofs, so the run used something the scenario does not (speculative decoding, a smaller "
        "running batch than its concurrency, prefix caching) or was mis-recorded"
    )


def _with_assumed_workers(measured_tpot_s: float, bound_tpot_s: float) -> str:
    return bound_warning(measured_tpot_s, bound_tpot_s) + _ASSUMED_WORKERS


def _with_mtp_recipe(measured_tpot_s: float, bound_tpot_s: float) -> str:
    return bound_warning(measured_tpot_s, bound_tpot_s) + _MTP_RECIPE


def _with_candidate_recipes(measured_tpot_s: float, bound_tpot_s: float) -> str:
    return bound_warning(measured_tpot_s, bound_tpot_s) + _CANDIDATE_RECIPES


def answer_row(fields: dict, cal: Calibration) -> tuple:
    """(the mapped run, the estimate's answer for its scenario): aggregated or disaggregated; a
    disaggregated run that may have been several deployments is answered for each, spanned."""
    m = row_scenario(fields)
    return m, answer_mapped(m, cal)


def answer_mapped(m, cal: Calibration, model=None, hw=None) -> dict:
    """The estimate's answer for a mapped run (answer_row), on its own model and accelerator
    unless given (the serving page's, a what-if card's)."""
    model, hw = model or resolve_model(m.model), hw or get_accelerator(m.hardware)
    if m.disagg is None:
        return serving_estimate(model, hw, m.scenario, cal)
    (answer,) = answer_disaggregated_runs([m], cal, model, hw)
    if isinstance(answer, EngineInputError):
        raise answer
    return answer


def answer_disaggregated_runs(runs: list, cal: Calibration, model, hw) -> list[dict | EngineInputError]:
    """answer_mapped of disaggregated runs of one model on one card, or the error that refused
    each: every deployment a run may have been (measured_deployments) answered in one batch
    (disagg.disaggregated_estimates), then one answer a run."""
    deployments = [measured_deployments(m, cal) for m in runs]
    answers = iter(disaggregated_estimates(model, hw, [d for ds in deployments for d in ds], cal))
    return [_run_answer([next(answers) for _ in ds]) for ds in deployments]


def _run_answer(answers: list) -> dict | EngineInputError:
    """A run's answer from those of the deployments it may have been: its own, or their span. A
    candidate that does not fit these GPUs is not what ran; with none that fits, the first refusal."""
    if len(answers) == 1:
        return answers[0]
    fitting = [a for a in answers if not isinstance(a, EngineInputError)]
    return spanning(fitting) if fitting else answers[0]


def spanning(answers: list[dict]) -> dict:
    """One answer for a run that was one of these deployments, which is not known: the bound the
    least of theirs (none it may have been beats it), the range from the lowest low to the highest
    high, the estimate the middle, in ratio, of their lowest and highest estimates."""
    estimate: dict = {"deployments": len(answers)}
    bound: dict = {}
    for key in ("tpot_s", "ttft_s"):
        values = [a["estimate"][key] for a in answers]
        estimate[key] = math.sqrt(min(values) * max(values))
        ranges = [a["estimate"][f"{key}_range"] for a in answers]
        estimate[f"{key}_range"] = [min(low for low, _ in ranges), max(high for _, high in ranges)]
        bound[key] = min(a["bound"][key] for a in answers)
    return {"estimate": estimate, "bound": bound}


def measured_deployments(m, cal: Calibration) -> tuple[DisaggScenario, ...]:
    """The deployments a disaggregated run may have been: its own where its counts and decoding are
    known (measured_deployment); else each of its candidate recipes (engine.serving.recipes), in
    each decoding the recipe may have run; else one worker per side (mapping's assumption)."""
    if m.tpot_describable or not m.candidates:
        return (measured_deployment(m, cal),)
    acceptance = _mtp_acceptance(cal)
    found = {}
    for recipe in m.candidates:
        sides = as_recipe_ran(m.disagg, recipe)
        for drafts in _decodings(recipe):
            found[(sides, drafts)] = _with_drafts(sides, drafts, acceptance)
    return tuple(found.values())


def _with_drafts(split: DisaggScenario, drafts: int | None, acceptance: tuple[float, float]) -> DisaggScenario:
    """A deployment decoding with `drafts` MTP draft tokens at `acceptance` (None: a token a step)."""
    if drafts is None:
        return split
    spec = Speculative("mtp", drafts, *acceptance)
    return replace(split, base=replace(split.base, speculative=spec))


def _decodings(recipe) -> tuple[int | None, ...]:
    """The draft tokens a recipe may have decoded with: None (one token a step) for a plain recipe;
    its named k; for an MTP recipe that names none, each length the table's recipes name."""
    if recipe.speculative != "mtp":
        return (None,)
    return (recipe.draft_tokens,) if recipe.draft_tokens else named_draft_lengths()


# A calibration fitted on no MTP run (a held-out fold without any) knows no acceptance: a measured
# run's drafts are then answered over the whole range, the estimate at half, the bound at every
# draft accepted, which needs no fit.
UNFITTED_MTP_ACCEPTANCE = (0.0, 1.0)


def _mtp_acceptance(cal: Calibration) -> tuple[float, float]:
    return cal.measured_mtp_acceptance() or UNFITTED_MTP_ACCEPTANCE


def measured_deployment(m, cal: Calibration) -> DisaggScenario:
    """A disaggregated run's deployment as it ran: with its recipe's MTP drafts, at the acceptance
    the calibration fitted on the split's MTP runs (the rows record none)."""
    return _with_drafts(m.disagg, m.mtp_draft_tokens, _mtp_acceptance(cal))


def _shown_id(row: dict) -> str:
    return visible(str(row.get("id") or "")[:ID_CHARS])


def validate_rows(
    rows: Iterable[dict | CsvRow],
    calibration: Calibration | None = None,
    on_skip: Callable[[dict], None] | None = None,
) -> dict:
    """Map each row (engine.serving.mapping), answer it, and score bound and estimate. A plain
    dict row is numbered as line index + 2 (after the header); `on_skip` is called with each
    skipped row's {line, id, field, reason} as it is met."""
    cal = calibration or load_calibration()
    answers = _Answers()
    skipped, flagged = [], {"tpot": _Flagged(), "ttft": _Flagged()}
    total = skipped_count = 0
    for index, item in enumerate(rows):
        row = item if isinstance(item, CsvRow) else CsvRow(index + 2, item)
        total += 1
        try:
            if row.problem is not None:
                raise row.problem
            m, result = answer_row(row.fields, cal)
        except EngineInputError as exc:
            entry = {"line": row.line, "id": _shown_id(row.fields), "field": exc.field, "reason": str(exc)}
            skipped_count += 1
            if on_skip is not None:
                on_skip(entry)
            if len(skipped) < MAX_LISTED:
                skipped.append(entry)
            continue
        mode = "aggregated" if m.disagg is None else "disaggregated"
        groups = {
            "backend": m.backend or "any",
            "gpu": m.hardware,
            "model": m.model,
            "mode": mode,
            "workers": workers_group(m),
        }
        answers.add(groups, {"tpot_s": m.tpot_s, "ttft_s": m.ttft_s}, result["estimate"], result["bound"])
        measured = {"tpot": m.tpot_s, "ttft": m.ttft_s}
        tpot_words = _tpot_words(m)
        for key, words in (("tpot", tpot_words), ("ttft", ttft_bound_warning)):
            bound_s = result["bound"][f"{key}_s"]
            if bound_s > measured[key]:
                flagged[key].add(_shown_id(row.fields), words, measured[key], bound_s)
    if not len(answers):
        raise EngineInputError(
            "data", "no row could be mapped onto a scenario", "aiconfigurator silicon CSV columns", code="map_no_rows"
        )
    cols = answers.arrays()
    modes = answers.members("mode")
    agg = modes.get("aggregated", np.zeros(0, dtype=int))

    def by(group: str, within: np.ndarray) -> dict:
        members = answers.members(group).items()
        return {
            name: _stats(cols, np.intersect1d(rows, within)) for name, rows in members if np.isin(rows, within).any()
        }

    disagg = None
    if "disaggregated" in modes:
        rows = modes["disaggregated"]
        disagg = _stats(cols, rows) | {
            "answered": len(rows),
            "by_gpu": by("gpu", rows),
            "by_model": by("model", rows),
            "by_workers": by("workers", rows),
        }
    return {
        "calibration": cal.id,
        "rows": total,
        "answered": len(answers),
        "overall": _stats(cols, agg) if len(agg) else None,
        "by_backend": by("backend", agg),
        "by_gpu": by("gpu", agg),
        "by_model": by("model", agg),
        "disaggregated": disagg,
        "bound_above_measured_tpot": flagged["tpot"].listed,
        "bound_above_measured_ttft": flagged["ttft"].listed,
        "unanswered": skipped,
        "bound_above_measured_tpot_count": flagged["tpot"].count,
        "bound_above_measured_ttft_count": flagged["ttft"].count,
        "unanswered_count": skipped_count,
    }
