"""The Serving page's insight, per accelerator, in words formatted from engine fields:
- where the scenario sits: memory-capped (requests queue for KV cache), prefill-interference-
  bound (the chunked prefill's share is at least PREFILL_BOUND_SHARE of the estimated step,
  Sarathi-Serve's stall: Agrawal et al., OSDI 2024), else decode-bound;
- what the estimate adds to the bound, part by part (the calibration's achieved fractions on
  decode and prefill, with the routed experts' own compute fraction for a MoE model,
  communication, the fixed overhead per step);
- how far the nearest shipped measured run is from both.
"""

from __future__ import annotations

from dash import html

from app.dashboard.lib.i18n import reason
from app.dashboard.pages.serving.compute import AcceleratorServing, nearest_run
from app.dashboard.pages.serving.figures import signed_pct
from app.dashboard.pages.serving.words import fit_errors, runs_count, w, why
from app.units import plain
from engine.model_catalog import get_model
from engine.serving_userfit import FitReport

PREFILL_BOUND_SHARE = 1 / 3


def regime(chosen: dict) -> str:
    """memory | prefill | decode: what sets the scenario's TPOT."""
    if chosen["queued"] > 0:
        return "memory"
    parts = chosen["breakdown"]["tpot"]["estimate"]
    return "prefill" if parts["prefill_share_s"] >= PREFILL_BOUND_SHARE * parts["total_s"] else "decode"


def _ms(seconds: float) -> str:
    return plain(seconds * 1e3)


def regime_sentence(acc: AcceleratorServing, lang: str) -> str:
    c = acc.chosen
    est = c["breakdown"]["tpot"]["estimate"]
    kind = regime(c)
    values = {
        "name": acc.name,
        "c": f"{c['running_batch'] + c['queued']:,}",
        "run": f"{c['running_batch']:,}",
        "queued": f"{c['queued']:,}",
        "cap": f"{acc.max_fits:,}",
        "decode": _ms(est["decode_s"]),
        "prefill": _ms(est["prefill_share_s"]),
        "total": _ms(est["total_s"]),
        "prompts": plain(c["breakdown"]["prompts_per_step"]),
    }
    return w(f"srv_regime_{kind}", lang, **values)


def adds_sentence(acc: AcceleratorServing, lang: str) -> str:
    c = acc.chosen
    b, e = c["breakdown"]["tpot"]["bound"], c["breakdown"]["tpot"]["estimate"]
    cal = c["calibration"]
    return w(
        "srv_adds_moe" if get_model(c["model"]).is_moe else "srv_adds",
        lang,
        est=_ms(e["total_s"]),
        bound=_ms(b["total_s"]),
        ratio=plain(e["total_s"] / b["total_s"]),
        d0=_ms(b["decode_s"]),
        d1=_ms(e["decode_s"]),
        p0=_ms(b["prefill_share_s"]),
        p1=_ms(e["prefill_share_s"]),
        c0=_ms(b["communication_s"]),
        c1=_ms(e["communication_s"]),
        o=_ms(e["overhead_s"]),
        bw=f"{cal['parameters']['bandwidth_efficiency'] * 100:.0f}%",
        fl=f"{cal['parameters']['compute_efficiency'] * 100:.0f}%",
        xfl=f"{cal['parameters']['expert_compute_efficiency'] * 100:.0f}%",
        cal=cal["id"],
        backend=cal["backend"],
        family=cal["family"],
        rows=f"{cal['rows']:,}",
    )


def measured_sentence(acc: AcceleratorServing, concurrency: int, lang: str) -> str:
    near = nearest_run(acc, concurrency)
    if near is None:
        return w("srv_no_measured", lang, name=acc.name)
    sc = near.run.row.scenario
    return w(
        "srv_nearest",
        lang,
        c=f"{sc.concurrency:,}",
        backend=near.run.row.backend,
        tpot=_ms(near.measured["tpot_s"]),
        ttft=_ms(near.measured["ttft_s"]),
        bound=signed_pct(near.bound["tpot_s"] / near.measured["tpot_s"] - 1),
        est=signed_pct(near.tpot_error),
        est_ttft=signed_pct(near.ttft_error),
        n=len(acc.measured),
    )


def fit_sentence(acc: AcceleratorServing, report: FitReport, lang: str) -> str:
    """The fitted estimate at the chosen concurrency, and the fit's errors on the user's runs."""
    return w(
        f"srv_insight_fitted_{acc.fit_kind}",
        lang,
        runs=runs_count(report.runs, lang),
        tpot=_ms(acc.fitted["tpot_s"]),
        ttft=_ms(acc.fitted["ttft_s"]),
        **fit_errors(report),
    )


def insight(accs, concurrency: int, lang: str, report: FitReport | None = None) -> list:
    """A paragraph per accelerator (its warnings after it), bound, estimate and measured named."""
    out = []
    for acc in accs:
        if acc.error or acc.chosen is None:
            out.append(html.P(w("srv_acc_error", lang, msg=f"{acc.name}: {why(acc.error, lang)}"), className="error"))
            continue
        sentences = [regime_sentence(acc, lang), adds_sentence(acc, lang), measured_sentence(acc, concurrency, lang)]
        if acc.fitted is not None and report is not None:
            sentences.append(fit_sentence(acc, report, lang))
        out.append(html.P(" ".join(sentences), className="srv-insight-item"))
        warnings = [x for x in acc.chosen["warnings"] if not x.startswith("all ")]
        if warnings:
            out.append(html.Ul([html.Li(reason(x, lang)) for x in warnings], className="help srv-warnings"))
    return out
