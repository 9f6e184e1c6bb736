"""The Serving page's insight, per accelerator, in words formatted from engine fields:
- where the scenario sits: memory-capped (requests queue for KV cache), else named by the
  largest part of the estimated step: decode, the chunked prefill of new prompts (Sarathi-
  Serve's stall: Agrawal et al., OSDI 2024), communication, or the fixed overhead per step
  (a step whose fixed overhead exceeds its decode is not "decode-bound"), the other parts after
  it, largest first;
- what the estimate adds to the bound, part by part (the calibration's achieved fractions on
  decode and prefill, with the routed experts' own compute fraction for a MoE model,
  communication, the fixed overhead per step);
- how far the nearest shipped measured run is from both.
"""

from __future__ import annotations

from dash import html

from app.dashboard.lib.i18n import reason
from app.dashboard.pages.serving.compute import AcceleratorServing, nearest_run
from app.dashboard.pages.serving.disagg_words import side_text
from app.dashboard.pages.serving.figures import signed_pct
from app.dashboard.pages.serving.words import backend_name, fit_errors, runs_count, unfit_sentence, w
from app.units import plain
from engine.hardware import catalogue
from engine.model_catalog import get_model
from engine.serving_userfit import FitReport

# the estimated step's parts (engine.serving breakdown["tpot"]["estimate"]), by their words' names
STEP_PARTS = {"decode": "decode_s", "prefill": "prefill_share_s", "communication": "communication_s"}
STEP_PARTS["overhead"] = "overhead_s"


def step_parts(chosen: dict) -> list[tuple[str, float]]:
    """The estimated step's parts, largest first: [(name, seconds)]."""
    est = chosen["breakdown"]["tpot"]["estimate"]
    return sorted(((name, est[key]) for name, key in STEP_PARTS.items()), key=lambda p: -p[1])


def regime(chosen: dict) -> str:
    """memory, or the largest part of the estimated step (decode | prefill | communication |
    overhead): what sets the scenario's TPOT."""
    return "memory" if chosen["queued"] > 0 else step_parts(chosen)[0][0]


def _ms(seconds: float) -> str:
    return plain(seconds * 1e3)


def regime_sentence(acc: AcceleratorServing, lang: str) -> str:
    c = acc.chosen
    est = c["breakdown"]["tpot"]["estimate"]
    kind = regime(c)
    prompts = plain(c["breakdown"]["prompts_per_step"])
    parts = [w(f"srv_part_{name}", lang, ms=_ms(s), prompts=prompts) for name, s in step_parts(c)]
    values = {
        "name": acc.name,
        "c": f"{c['running_batch'] + c['queued']:,}",
        "run": f"{c['running_batch']:,}",
        "queued": f"{c['queued']:,}",
        "cap": f"{acc.max_fits:,}",
        "total": _ms(est["total_s"]),
        "largest": parts[0],
        "rest": w("srv_list_sep", lang).join(parts[1:]),
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
        return " ".join([w("srv_no_measured", lang, name=acc.name), nearby_sentence(acc, lang)])
    return nearest_sentence(near, len(acc.measured), lang)


def nearest_sentence(near, matching: int, lang: str) -> str:
    """The nearest shipped run (a MeasuredPoint, aggregated or disaggregated): its times and how
    far the bound and the estimate are from them; `matching`: how many runs match."""
    sc = near.run.row.scenario
    sentence = w(
        "srv_nearest",
        lang,
        c=f"{sc.concurrency:,}",
        backend=backend_name(near.run.row.backend, lang),
        tpot=_ms(near.measured["tpot_s"]),
        ttft=_ms(near.measured["ttft_s"]),
        bound=signed_pct(near.bound["tpot_s"] / near.measured["tpot_s"] - 1),
        est=signed_pct(near.tpot_error),
        est_ttft=signed_pct(near.ttft_error),
        n=matching,
    )
    caveat = _workers_caveat(near, lang)
    return sentence if caveat is None else f"{sentence} {caveat}"


def _workers_caveat(near, lang: str) -> str | None:
    """What a disaggregated run's own deployment leaves unsaid: counts assumed (its estimate the
    middle of the recipes it may have been, where it has candidates), or an MTP recipe."""
    row, spanned = near.run.row, near.estimate.get("deployments", 1)
    if row.workers_from == "assumed":
        return w("srv_nearest_candidates", lang, n=spanned) if spanned > 1 else w("srv_nearest_assumed", lang)
    if row.may_run_mtp:  # answered in the recipe's decoding; the page's deployment has none
        return w("srv_nearest_mtp", lang)
    return None


def _difference(name: str, value, lang: str) -> str:
    """One way a shipped configuration differs, in its own values: "EP 1", "SGLang", "H200"."""
    if name == "hardware":
        known = catalogue().get(value)
        return known.name if known is not None else str(value)
    if name == "backend":
        return backend_name(value, lang)
    if name == "lengths":
        return w("srv_nearby_lengths", lang, isl=f"{value[0]:,}", osl=f"{value[1]:,}")
    if name in ("prefill", "decode"):  # a disaggregated side: measured.side_shape
        workers, tp, adp, ep, batch = value
        shape = {"workers": workers, "tensor_parallel": tp, "attention_data_parallel": adp, "expert_parallel": ep}
        text = side_text(shape | {"batch": batch}, lang)
        return w("srv_nearby_side", lang, side=w(f"srv_side_{name}", lang), text=text)
    return {"tp": "TP {v}", "adp": w("srv_nearby_adp", lang), "ep": "EP {v}"}.get(name, "{v}").format(v=value)


def nearby_sentence(acc, lang: str, mode: str = "") -> str:
    """Where the shipped runs of this model are, and how they differ from the scenario (an
    AcceleratorServing's or, mode "disagg", a disaggregated Deployment's: none of its mode is
    not none at all, which the aggregated sentence beside it may name)."""
    if not acc.nearby:
        return w("srv_nearby_none" + (f"_{mode}" if mode else ""), lang)
    groups = [
        w(
            "srv_nearby_group" if n.concurrencies[0] != n.concurrencies[1] else "srv_nearby_group_one",
            lang,
            what=w("srv_list_sep", lang).join(_difference(k, v, lang) for k, v in n.differences),
            runs=runs_count(n.runs, lang),
            lo=f"{n.concurrencies[0]:,}",
            hi=f"{n.concurrencies[1]:,}",
        )
        for n in acc.nearby
    ]
    return w("srv_nearby", lang, groups=w("srv_list_sep_groups", lang).join(groups))


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
            out.append(html.P(unfit_sentence(acc, lang), className="error"))
            continue
        sentences = [regime_sentence(acc, lang), adds_sentence(acc, lang), measured_sentence(acc, concurrency, lang)]
        if acc.fitted is not None and report is not None:
            sentences.append(fit_sentence(acc, report, lang))
        out.append(html.P(" ".join(sentences), className="srv-insight-item"))
        warnings = [x for x in acc.chosen["warnings"] if not x.startswith("all ")]
        if warnings:
            out.append(html.Ul([html.Li(reason(x, lang)) for x in warnings], className="help srv-warnings"))
    return out
