"""The One request card: a whole request, timed two ways, each saying which it is.

- A static batch of `batch` requests (engine/request.py, a bound): the whole batch's prefill
  before any first token, then `out` decode steps, no fixed cost per step.
- Continuous batching at concurrency `conc` (the serving estimate, engine/serving, the function
  behind POST /api/v1/serving): the serving page's own numbers for this scenario, from the same
  scenario and the same call (serving/roofline_estimate.py), with its calibration named.

Issue 29 §2: the two pages showed 16.5 ms against 15.3 ms TPOT for one scenario without saying
why; the card now gives the serving page's numbers and says how the static batch differs.
"""

from __future__ import annotations

from dash import html

from app.dashboard.lib.i18n import t
from app.dashboard.pages import scenario
from app.dashboard.pages.roofline.rows import request_rows
from app.dashboard.pages.roofline.state import PRECISIONS, View, shared_query
from app.dashboard.pages.serving import roofline_estimate
from app.dashboard.pages.serving.words import w
from app.units import grouped, plain

STATIC_COLUMNS = (
    ("gpu", "col_gpu"),
    ("ttft", "col_ttft_req"),
    ("tpot", "col_tpot"),
    ("e2e", "col_e2e"),
    ("user", "col_user"),
    ("group", "col_group"),
    ("cost", "col_cost"),
)
SERVING_COLUMNS = (
    ("gpu", "col_gpu"),
    ("ttft_bound", "col_ttft_bound"),
    ("ttft_est", "col_ttft_est"),
    ("tpot_bound", "col_tpot_bound"),
    ("tpot_est", "col_tpot_est"),
)


def ms(seconds: float) -> str:
    """Milliseconds as the serving page writes them (its table: plain(ms))."""
    return f"{plain(seconds * 1e3)} ms"


def ms_range(value: float, low_high: tuple[float, float]) -> str:
    return f"{ms(value)} ({plain(low_high[0] * 1e3)}–{plain(low_high[1] * 1e3)})"


def _table(columns, rows: list[dict], lang: str, table_id: str) -> html.Table:
    head = html.Tr([html.Th(t(label, lang)) for _, label in columns])
    body = [
        html.Tr([html.Td(row[key]) for key, _ in columns], className="" if row.get("fits", True) else "nofit")
        for row in rows
    ]
    return html.Table([html.Thead(head), html.Tbody(body)], className="request-table", id=table_id)


def serving_rows(view: View, results: list[dict]) -> list[dict]:
    """The serving estimate per accelerator, as the serving page's table writes it."""
    estimates = roofline_estimate.view_estimates(view, results)
    return [
        {
            "gpu": r["hardware_name"],
            "ttft_bound": ms(e.bound_ttft_s),
            "ttft_est": ms_range(e.estimate_ttft_s, e.estimate_ttft_range_s),
            "tpot_bound": ms(e.bound_tpot_s),
            "tpot_est": ms_range(e.estimate_tpot_s, e.estimate_tpot_range_s),
        }
        for r in results
        if (e := estimates.get(r["hardware_id"])) is not None
    ]


def request_panel(view: View, results: list[dict]) -> list:
    """The static batch's bound and the serving estimate, each named, and why they differ; or
    how to get them (no output tokens)."""
    lang = view.lang
    if not view.output_tokens:
        # the box it needs sits in the Serving section, closed by default: assets/10-open-target.js
        # opens the <details> around the link's target and focuses the box
        link = html.A(t("request_hint_link", lang), href="#output-tokens", className="request-open")
        return [html.P([t("request_hint", lang), " ", link], className="help")]
    sizes = {"b": grouped(view.batch), "t": grouped(view.context), "n": grouped(view.output_tokens)}
    what = "request_static" if view.batch > 1 else "request_static_one"
    out = [
        html.P(t(what, lang, **sizes), className="request-what"),
        _table(STATIC_COLUMNS, request_rows(results), lang, "request-static"),
    ]
    served = serving_rows(view, results)
    if served:
        backend = w(f"srv_backend_{view.backend}", lang)
        link = html.A(t("request_serving_link", lang), href="?" + shared_query(view, "serving"), id="request-serving")
        out += [
            html.P(
                [t("request_serving", lang, c=grouped(view.concurrency), backend=backend), " ", link],
                className="request-what",
            ),
            _table(SERVING_COLUMNS, served, lang, "request-serving-table"),
            html.P(t("request_why", lang, b=sizes["b"], backend=backend), className="help"),
        ]
        kept = scenario.kv_dtype_for(PRECISIONS[view.precision][0])
        if kept != view.kv_precision:
            out.append(html.P(t("request_kv_note", lang, serving=kept, page=view.kv_precision), className="help"))
    return out
