"""The Serving page's table, one per accelerator: bound / estimate (range) / fitted estimate /
the nearest shipped measured run / the nearest of the user's own runs ("yours"), for TTFT,
TPOT, output tokens/s per GPU, tokens/s per user and, with a price, USD per million output
tokens. Every column says which it is."""

from __future__ import annotations

from dash import html

from app.dashboard.pages.serving.compute import AcceleratorServing, cost_per_million, nearest, nearest_run
from app.dashboard.pages.serving.figures import fitted_label
from app.dashboard.pages.serving.words import backend_name, unfit_sentence, w
from app.units import plain

METRICS = ("ttft", "tpot", "gpu", "user", "cost")


def metric_values(rates: dict, price: float | None) -> dict[str, float | None]:
    """The table's five numbers of one rates dict (ms, ms, tokens/s, tokens/s, USD)."""
    return {
        "ttft": rates["ttft_s"] * 1e3,
        "tpot": rates["tpot_s"] * 1e3,
        "gpu": rates["output_tokens_per_s_per_gpu"],
        "user": rates["tokens_per_s_per_user"],
        "cost": cost_per_million(price, rates["output_tokens_per_s_per_gpu"]),
    }


def estimate_ranges(chosen: dict, price: float | None) -> dict[str, tuple[float, float] | None]:
    """The estimate's range of each metric, from its TPOT and TTFT ranges (the throughputs are
    the running batch over TPOT: a slower TPOT is a lower throughput and a higher cost)."""
    est = chosen["estimate"]
    lo, hi = est["tpot_s_range"]
    per_gpu = chosen["running_batch"] / chosen["gpus"]
    cost_lo, cost_hi = cost_per_million(price, per_gpu / lo), cost_per_million(price, per_gpu / hi)
    return {
        "ttft": (est["ttft_s_range"][0] * 1e3, est["ttft_s_range"][1] * 1e3),
        "tpot": (lo * 1e3, hi * 1e3),
        "gpu": (per_gpu / hi, per_gpu / lo),
        "user": (1 / hi, 1 / lo),
        "cost": None if cost_lo is None else (cost_lo, cost_hi),
    }


def table_rows(acc: AcceleratorServing, concurrency: int, price: float | None) -> dict:
    """{"columns": [(kind, header)], "rows": [(metric, [cell text])]}: plain values a test reads."""
    near = nearest_run(acc, concurrency)
    mine = nearest(acc.yours, lambda r: r.run.scenario.concurrency, concurrency)
    columns = [("bound", None), ("estimate", None)]
    if acc.fitted is not None:
        columns.append(("fitted", acc))
    if near is not None:
        columns.append(("measured", near))
    if mine is not None:
        columns.append(("yours", mine))
    bound, est = metric_values(acc.chosen["bound"], price), metric_values(acc.chosen["estimate"], price)
    ranges = estimate_ranges(acc.chosen, price)
    fitted = metric_values(acc.fitted, price) if acc.fitted is not None else None
    measured = metric_values(near.measured, price) if near is not None else None
    yours = metric_values(mine.measured, price) if mine is not None else None
    rows = []
    for metric in METRICS:
        if metric == "cost" and price is None:
            continue
        cells = [plain(bound[metric]), f"{plain(est[metric])} ({plain(ranges[metric][0])}–{plain(ranges[metric][1])})"]
        if fitted is not None:
            cells.append(plain(fitted[metric]))
        if measured is not None:
            cells.append(plain(measured[metric]))
        if yours is not None:
            cells.append(plain(yours[metric]))
        rows.append((metric, cells))
    return {"columns": columns, "rows": rows}


def _header(kind: str, item, lang: str) -> str:
    if kind == "measured":
        c = item.run.row.scenario.concurrency
        return w("srv_col_measured", lang, c=f"{c:,}", backend=backend_name(item.run.row.backend, lang))
    if kind == "yours":
        return w("srv_col_yours", lang, c=f"{item.run.scenario.concurrency:,}")
    if kind == "fitted":
        return fitted_label(item, lang)
    return w(f"srv_col_{kind}", lang)


def accelerator_table(acc: AcceleratorServing, concurrency: int, price: float | None, lang: str) -> html.Div:
    if acc.error or acc.chosen is None:
        return html.Div(
            [html.H3(acc.name), html.P(unfit_sentence(acc, lang), className="error")],
            className="srv-table",
        )
    spec = table_rows(acc, concurrency, price)
    head = html.Tr(
        [html.Th(w("srv_col_metric", lang), scope="col")]
        + [html.Th(_header(kind, near, lang), scope="col", className=f"col-{kind}") for kind, near in spec["columns"]]
    )
    body = [
        html.Tr(
            [html.Th(w(f"srv_metric_{metric}", lang), scope="row")]
            + [html.Td(cell, className=f"col-{kind}") for (kind, _), cell in zip(spec["columns"], cells, strict=True)]
        )
        for metric, cells in spec["rows"]
    ]
    caption = w("srv_table_caption", lang, name=acc.name, c=f"{concurrency:,}", run=f"{acc.chosen['running_batch']:,}")
    return html.Div(
        html.Table([html.Caption(caption), html.Thead(head), html.Tbody(body)], className="table srv-table-grid"),
        className="srv-table",
        id=f"srv-table-{acc.id}".replace(".", "-"),
    )
