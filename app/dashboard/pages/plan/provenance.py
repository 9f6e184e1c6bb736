"""What every view and file of the Planner page says about itself: the question (model,
accelerators, budget, lengths, modes, backends, precisions), the targets and how they are met,
the calibration the estimates used (the shipped one, as the serving page names it) and the
measured runs' source."""

from __future__ import annotations

from app.dashboard.pages.plan.params import PlanArgs
from app.dashboard.pages.plan.words import backend_name, mode_name, target_name, w
from app.dashboard.pages.serving.provenance import source_text
from app.units import plain
from engine.hardware import catalogue
from engine.serving import load_calibration


def accelerator_names(a: PlanArgs) -> dict[str, str]:
    known = catalogue()
    return {h: known[h].name if h in known else h for h in a.hardware}


def scenario_text(a: PlanArgs, lang: str) -> str:
    names = accelerator_names(a)
    return w(
        "plan_scenario",
        lang,
        model=a.model,
        gpus=f"{a.gpus:,}",
        hws=", ".join(names.values()),
        isl=f"{a.input_tokens:,}",
        osl=f"{a.output_tokens:,}",
        modes=", ".join(mode_name(m, lang) for m in a.modes),
        backends=", ".join(backend_name(b, lang) for b in a.backends),
        precs=", ".join(a.precisions) if a.precisions else w("plan_precs_auto", lang),
    )


def targets_line(a: PlanArgs, lang: str) -> str:
    prices = ", ".join(f"{h} ${plain(p)}" for h, p in a.prices)
    line = w("plan_targets", lang, tpot=plain(a.tpot_ms), ttft=plain(a.ttft_ms), target=target_name(a.target, lang))
    return line + (w("plan_prices_line", lang, prices=prices) if prices else "")


def calibration_text(lang: str) -> str:
    """The calibration the planner scores with (engine.planner: the shipped one), the runs it
    was fitted on and its in-sample median TPOT error per mode (its `fit_statistics`)."""
    cal = load_calibration()
    in_sample = cal.data.get("fit_statistics", {}).get("in_sample", {})
    errors = [
        in_sample.get(mode, {}).get("tpot", {}).get("median_abs_error") for mode in ("aggregated", "disaggregated")
    ]
    rows = f"{cal.data['fitted_on']['rows']:,}"
    if None in errors:
        return w("plan_calibration", lang, id=cal.id, rows=rows)
    agg, disagg = (f"{e:.0%}" for e in errors)
    return w("plan_calibration_errors", lang, id=cal.id, rows=rows, agg=agg, disagg=disagg)


def provenance(a: PlanArgs, lang: str) -> dict[str, str]:
    return {
        "scenario": scenario_text(a, lang),
        "targets": targets_line(a, lang),
        "calibration": calibration_text(lang),
        "measured_source": source_text(lang),
    }
