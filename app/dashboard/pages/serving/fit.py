"""The fit to the user's runs, computed from the runs the link carries (carried.py) on the
scenario they were fitted on, and where it applies on the page.

A fit belongs to its scenario (model, accelerator, backend, precision, layout, lengths and
memory utilisation: `fingerprint`). On the page:
- `here`: the page shows that scenario: the fit applies;
- `extrapolated`: only the lengths or the memory utilisation differ: the fitted numbers (a
  deployment's kernels, fixed cost and scheduler) are applied and marked as extrapolated;
- `elsewhere`: the model, the accelerator, the backend, the precision or the layout differ:
  the fit is not applied, and the page names the differences and links to its scenario.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import lru_cache

from app.dashboard.lib.params import Invalid, Why, query_string
from app.dashboard.pages.serving.carried import SCENARIO_PARAMS, Carried, decode_runs, scenario_pairs
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.runs import RunsError, UserRun
from app.dashboard.pages.serving.state import accelerator_of, accelerator_specs, scenario_of
from engine.errors import EngineInputError
from engine.model_catalog import get_model, preset_id_or_none
from engine.serving import serving_estimate
from engine.serving.estimate import queue_steps
from engine.serving_userfit import FitRefused, FitReport, UserFit, fit_user_runs, fitted_rates, run_parts

LOAD_PARAMS = ("isl", "osl", "memutil")  # what a fit may be extrapolated across


@dataclass(frozen=True)
class YourRun:
    """One of the user's runs, measured, beside its own scenario's bound and the fit on it."""

    run: UserRun
    running_batch: int
    gpus: int
    faster_than_bound: tuple[str, ...]  # "tpot", "ttft": left out of the fit
    fitted: dict | None  # the fitted rates of its scenario

    @property
    def measured(self) -> dict:
        return {
            "ttft_s": self.run.ttft_s,
            "tpot_s": self.run.tpot_s,
            "output_tokens_per_s_per_gpu": self.running_batch / self.run.tpot_s / self.gpus,
            "tokens_per_s_per_user": 1.0 / self.run.tpot_s,
        }


@dataclass(frozen=True)
class CarriedFit:
    """The link's runs fitted again: the report, or why there is none (`problem`)."""

    carried: Carried | None = None
    hw_id: str = ""
    hw_name: str = ""
    report: FitReport | None = None
    runs: tuple[YourRun, ...] = ()
    problem: Why | RunsError | FitRefused | EngineInputError | None = None

    @property
    def fingerprint(self) -> str:
        """The scenario the fit belongs to, in 12 hex digits (sha256 of its link pairs)."""
        on = self.carried.on if self.carried else ()
        return hashlib.sha256(query_string(on).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Standing:
    kind: str  # here | extrapolated | elsewhere
    differ: tuple[str, ...]  # the link parameters (and "hw") in which the page differs


@lru_cache(maxsize=16)
def carried_fit(token: str) -> CarriedFit:
    """The runs of a `runs=` token fitted on their own scenario (cached per token: the runs,
    the fit and its errors are the same wherever the page stands)."""
    try:
        carried = decode_runs(token)
    except Invalid as exc:
        return CarriedFit(problem=exc.why)
    try:
        hw = accelerator_of(carried.spec)
        model = get_model(carried.args.model)
    except EngineInputError as exc:
        return CarriedFit(carried, problem=exc.with_traceback(None))
    results, problems = {}, []
    for run in carried.runs:
        if run.scenario in results:
            continue
        try:
            results[run.scenario] = serving_estimate(model, hw, run.scenario)
        except EngineInputError as exc:  # its layout does not fit the accelerator, say
            problems.append((run.line, exc.field, exc.with_traceback(None)))
    if problems:
        return CarriedFit(carried, hw.id, hw.name, problem=RunsError(problems))
    queues = {sc: queue_steps(sc, r["running_batch"]) for sc, r in results.items()}
    parts = [run_parts(results[r.scenario], queues[r.scenario], r.tpot_s, r.ttft_s) for r in carried.runs]
    try:
        report, problem = fit_user_runs(parts), None
    except FitRefused as exc:
        report, problem = None, exc
    breaches = report.excluded if report else problem.breaches
    runs = tuple(
        YourRun(
            run,
            results[run.scenario]["running_batch"],
            results[run.scenario]["gpus"],
            tuple(b.field for b in breaches if b.index == i),
            fitted_rates(results[run.scenario], queues[run.scenario], report.fit, run.scenario.output_tokens)
            if report
            else None,
        )
        for i, run in enumerate(carried.runs)
    )
    return CarriedFit(carried, hw.id, hw.name, report, runs, problem)


def _same(name: str, page: str, own: str) -> bool:
    """A model by the preset it resolves to (a Hugging Face id is its preset); the rest as written."""
    return preset_id_or_none(page) == preset_id_or_none(own) if name == "model" else page == own


def standing(a: ServingArgs, fit: CarriedFit) -> Standing:
    """Where the page stands from the scenario the fit belongs to."""
    page = dict(scenario_pairs(a, fit.carried.spec))
    own = dict(fit.carried.on)
    differ = [name for name in SCENARIO_PARAMS if not _same(name, page[name], own[name])]
    if fit.carried.spec not in accelerator_specs(a):
        differ.append("hw")
    kind = "here" if not differ else "extrapolated" if set(differ) <= set(LOAD_PARAMS) else "elsewhere"
    return Standing(kind, tuple(differ))


@dataclass(frozen=True)
class Applied:
    """A fit as the page applies it: to which accelerator, which numbers, how."""

    spec: str
    fit: UserFit
    kind: str  # here | extrapolated
    runs: tuple[YourRun, ...]  # those of the page's scenario (but the concurrency): drawn


def applied_fit(a: ServingArgs) -> Applied | None:
    """The link's fit where the page applies it (None: no fit, or not here)."""
    if a.runs is None:
        return None
    fit = carried_fit(a.runs)
    if fit.report is None:
        return None
    where = standing(a, fit)
    if where.kind == "elsewhere":
        return None
    page = replace(scenario_of(a), concurrency=1, memory_utilization=1.0)
    shown = tuple(r for r in fit.runs if replace(r.run.scenario, concurrency=1, memory_utilization=1.0) == page)
    return Applied(fit.carried.spec, fit.report.fit, where.kind, shown)


def scenario_link(fit: CarriedFit, token: str, lang: str, theme: str) -> str:
    """The link of the scenario a fit belongs to, with its runs."""
    return "?" + query_string([("tab", "serving"), *fit.carried.on, ("lang", lang), ("theme", theme), ("runs", token)])
