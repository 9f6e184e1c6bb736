"""What every view and export of the Serving page says about itself: the scenario, the
calibration used (shipped, with its in-sample error, or fitted to the user's runs, with the
errors before and after, the fingerprint of the scenario it was fitted on, and whether it is
extrapolated here) and the measured data's source."""

from __future__ import annotations

from app.dashboard.pages.serving.fit import applied_fit, carried_fit
from app.dashboard.pages.serving.measured import SOURCE
from app.dashboard.pages.serving.params import ServingArgs
from app.dashboard.pages.serving.words import backend_name, fit_errors, layout_text, runs_count, w
from engine.serving import load_calibration


def scenario_text(a: ServingArgs, lang: str, concurrency: bool = True) -> str:
    """The scenario in one line; without `concurrency`, the scenario a fit belongs to (a fit
    covers every concurrency)."""
    layout = layout_text(a.tensor_parallel, a.attention_data_parallel, a.expert_parallel)
    backend = backend_name(None if a.backend == "any" else a.backend, lang)
    return w(
        "srv_scenario" if concurrency else "srv_scenario_fit",
        lang,
        model=a.model,
        prec=a.precision,
        layout=layout,
        isl=f"{a.input_tokens:,}",
        osl=f"{a.output_tokens:,}",
        c=f"{a.concurrency:,}",
        backend=backend,
        mem=f"{a.memory_utilization:g}",
    )


def _pct(stats: dict) -> str:
    return f"{stats.get('median_abs_error', float('nan')) * 100:.0f}%"


def calibration_text(a: ServingArgs, lang: str) -> str:
    """The shipped calibration and its in-sample median TPOT error on the aggregated runs (on
    the disaggregated ones too, TTFT with it, in that mode); a fit to the user's runs after it."""
    cal = load_calibration()
    in_sample = cal.data.get("fit_statistics", {}).get("in_sample", {})
    shipped = w(
        "srv_cal_shipped",
        lang,
        id=cal.id,
        rows=f"{cal.data['fitted_on']['rows']:,}",
        err=_pct(in_sample.get("aggregated", {}).get("tpot", {})),
    )
    disagg = in_sample.get("disaggregated", {})
    if a.mode == "disagg" and disagg:
        tpot, ttft = disagg.get("tpot", {}), disagg.get("ttft", {})
        n, m = (f"{part.get('rows', 0):,}" for part in (tpot, ttft))  # TPOT fitted on the runs recording workers
        shipped += w("srv_cal_shipped_disagg", lang, n=n, m=m, tpot=_pct(tpot), ttft=_pct(ttft))
    applied = applied_fit(a)
    if applied is None:
        return shipped
    fit = carried_fit(a.runs)
    fitted = w(
        f"srv_cal_fitted_{applied.kind}",
        lang,
        hw=fit.hw_name,
        runs=runs_count(fit.report.runs, lang),
        fp=fit.fingerprint,
        **fit_errors(fit.report),
    )
    return f"{shipped}; {fitted}"


def source_text(lang: str) -> str:
    return w("srv_source", lang, source=SOURCE)


def provenance(a: ServingArgs, lang: str) -> dict[str, str]:
    """The scenario; in disaggregated mode the deployment and what it is compared with; the
    calibration; the measured data's source."""
    out = {"scenario": scenario_text(a, lang)}
    if a.mode == "disagg":
        from app.dashboard.pages.serving.deployment import compared
        from app.dashboard.pages.serving.disagg_words import compared_text, deployment_text

        out["deployment"] = f"{deployment_text(a, lang)} {compared_text(compared(a), a, lang)}"
    return out | {"calibration": calibration_text(a, lang), "measured_source": source_text(lang)}
