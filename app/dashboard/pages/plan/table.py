"""The top N under the target: each candidate's accelerator, mode and layout, GPUs,
concurrency, TTFT and TPOT (estimate over its p10-p90 range), tokens/s per GPU and per user,
$/Mtok and memory headroom, all the engine's, formatted here; its launch commands, copyable in
one click, and a link that opens it on the serving page (serving_link.py).

The rows travel as data (`rows`) and the browser puts them into the table (assets/13-plan.js,
textContent only): a target's move redraws ten rows without ~400 Dash components, whose
building and rendering cost more than the engine's re-filter (scripts/bench_dashboard.py)."""

from __future__ import annotations

from dash import html

from app.dashboard.pages.plan.serving_link import serving_link
from app.dashboard.pages.plan.words import backend_name, deployment, mode_name, ms, rate, usd, w

COLUMNS = ("rank", "layout", "gpus", "conc", "ttft", "tpot", "gpu", "user", "cost", "headroom", "launch")


def commands_text(candidate: dict, lang: str) -> str:
    """The launch commands as one text to paste: each role's count and command."""
    lines = []
    for item in candidate["launch"]:
        # one router per replicated disaggregated unit (engine.planner.space.disagg_units)
        key = "routers" if item["role"] == "router" and item["count"] > 1 else item["role"]
        role = w(f"plan_role_{key}", lang, n=item["count"], gpus=item["gpus_each"])
        lines += [f"# {role}", item["command"]]
        weights = item.get("weights")
        if weights and weights["source"] != "released":
            lines.append("# " + w(f"plan_weights_{weights['source']}", lang, precision=weights["precision"]))
    return "\n".join(lines)


def row(c: dict, names: dict[str, str], prices: dict, lang: str, theme: str) -> dict:
    """One candidate's cells as text: a value and, under it, its range (`<key>_range`)."""
    est = c["estimate"]
    lo, hi = est["output_tokens_per_s_per_gpu_range"]
    return {
        "where": f"{names.get(c['hardware'], c['hardware'])} · {mode_name(c['mode'], lang)}",
        "layout": deployment(c, lang),
        "stack": f"{backend_name(c['backend'], lang)} · {c['precision']}",
        "gpus": str(c["gpus"]),
        "conc": f"{c['concurrency']:,}",
        "ttft": ms(est["ttft_s"]),
        "ttft_range": f"{ms(est['ttft_s_range'][0])}–{ms(est['ttft_s_range'][1])}",
        "tpot": ms(est["tpot_s"]),
        "tpot_range": f"{ms(est['tpot_s_range'][0])}–{ms(est['tpot_s_range'][1])}",
        "gpu": rate(est["output_tokens_per_s_per_gpu"]),
        "gpu_range": f"{rate(lo)}–{rate(hi)}",
        "user": rate(est["tokens_per_s_per_user"]),
        "cost": usd(c["usd_per_million_tokens"]),
        "headroom": f"{c['memory_headroom']:.0%}",
        "copy": commands_text(c, lang),
        "href": serving_link(c, prices.get(c["hardware"]), lang, theme),
        **_open_words(c, lang),
    }


def _open_words(c: dict, lang: str) -> dict:
    """The serving page answers one instance or one xPyD unit (its `serving_request`): a
    replicated candidate's link says it opens one of them, and what that one is."""
    n = c["replicas"]
    if n == 1:
        return {}
    one = {"n": f"{n:,}", "gpus": f"{c['gpus'] // n:,}", "c": f"{c['serving_request']['concurrency']:,}"}
    return {
        "open": w("plan_open_serving_unit", lang, **one),
        "open_title": w("plan_open_serving_unit_title", lang, **one),
    }


def table_words(lang: str) -> dict:
    """What the browser writes in each row besides the numbers, and without rows."""
    return {
        "copy": w("plan_copy", lang),
        "open": w("plan_open_serving", lang),
        "commands": w("plan_show_commands", lang),
        "none": w("plan_top_none", lang),
    }


def top_table(lang: str) -> html.Div:
    """The table's frame: its caption and header (the rows are drawn by assets/13-plan.js)."""
    head = html.Thead(html.Tr([html.Th(w(f"plan_col_{k}", lang), scope="col", className=f"col-{k}") for k in COLUMNS]))
    caption = html.Caption(w("plan_table_caption", lang))
    return html.Div(
        [
            html.Table([caption, head, html.Tbody(id="plan-rows")], className="plan-table", id="plan-table-grid"),
            html.P(w("plan_top_none", lang), id="plan-top-none", className="help", hidden=True),
        ],
        className="plan-table-wrap",
    )
