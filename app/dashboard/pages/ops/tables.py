"""The op lab's tables and sentences: the engine's fields (compute.compute) formatted
for the page, every number through app/units.py (no scientific notation on screen).

`results_table`: every view on every accelerator (what-ifs included, by their "(what-if)"
name); `views_table`: the views side by side on the first accelerator; `kernels_table`: the
kernels behind them; `summary`: one sentence per view; `details`: the tile view under both
conventions, the im2col GEMM and the depthwise note.
"""

from __future__ import annotations

from dash import html

from app.dashboard.lib.i18n import t
from app.dashboard.pages.ops.figures import SERIES_ORDER, series_name
from app.units import duration, plain, si


def _bound(bound: str, lang: str) -> str:
    return t(f"lab_ops_bound_{bound}", lang)


def _time(r: dict, key: str) -> str:
    return duration(r[key]) if key in r else "—"


COLUMNS = ("gpu", "view", "flops", "bytes", "intensity", "time", "compute", "memory", "overhead", "bound", "kernels")


def results_table(computed: dict, lang: str) -> html.Table:
    """Per accelerator, every view of the op side by side (adjacent rows)."""
    rows = []
    has_views = computed["series"][0]["id"] in SERIES_ORDER
    n_hw = len(computed["series"][0]["results"])
    for i in range(n_hw):
        for s in computed["series"]:
            r = s["results"][i]
            cells = [
                r["hardware_name"],
                series_name(s, lang),
                si(r["flops"], "FLOP"),
                si(r["bytes"], "B"),
                plain(r["intensity"]),
                duration(r["time_s"]),
                _time(r, "compute_time_s"),
                _time(r, "memory_time_s"),
                _time(r, "overhead_time_s"),
                _bound(r["bound"], lang),
                str(r["kernels"]),
            ]
            rows.append(
                html.Tr(
                    [html.Td(c) for c in cells],
                    className=f"bound-{r['bound']}"
                    + (" primary" if s["primary"] and has_views else "")
                    + (" what-if" if r.get("what_if") else ""),
                    **{"data-hw": r["hardware_id"], "data-series": s["id"]},
                )
            )
    head = html.Tr([html.Th(t(f"lab_ops_col_{c}", lang)) for c in COLUMNS])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="lab-table", id="lab-results-table")


def views_table(computed: dict, lang: str) -> html.Table | None:
    """The op's views on the first accelerator as columns: unfused | fused, direct | im2col."""
    series = computed["series"]
    if len(series) < 2 or series[0]["id"] not in SERIES_ORDER:
        return None
    first = [s["results"][0] for s in series]
    lines = [
        ("flops", lambda r: si(r["flops"], "FLOP")),
        ("bytes", lambda r: si(r["bytes"], "B")),
        ("intensity", lambda r: plain(r["intensity"])),
        ("time", lambda r: duration(r["time_s"])),
        ("bound", lambda r: _bound(r["bound"], lang)),
        ("kernels", lambda r: str(r["kernels"])),
    ]
    head = html.Tr([html.Th(first[0]["hardware_name"])] + [html.Th(series_name(s, lang)) for s in series])
    body = [html.Tr([html.Th(t(f"lab_ops_col_{key}", lang))] + [html.Td(f(r)) for r in first]) for key, f in lines]
    return html.Table([html.Thead(head), html.Tbody(body)], className="lab-table lab-views", id="lab-views-table")


def kernels_table(computed: dict, lang: str) -> html.Table | None:
    """The kernels behind each view on the first accelerator (engine `ops` rows)."""
    rows = []
    for s in computed["series"]:
        r = s["results"][0]
        for op in r.get("ops", []):
            cells = [
                series_name(s, lang),
                op["name"],
                str(op["count"]),
                si(op["flops"], "FLOP"),
                si(op["bytes"], "B"),
                plain(op["intensity"]),
                duration(op["time_s"]),
                _bound(op["bound"], lang),
            ]
            rows.append(html.Tr([html.Td(c) for c in cells]))
    if not rows:
        return None
    cols = ("view", "kernel", "kernels", "flops", "bytes", "intensity", "time", "bound")
    head = html.Tr([html.Th(t(f"lab_ops_col_{c}", lang)) for c in cols])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="lab-table", id="lab-kernels-table")


def summary(computed: dict, lang: str) -> list:
    """One sentence per view on the first accelerator, from the engine's fields."""
    out = [html.P(html.Strong(computed["name"]))] if computed["name"] and len(computed["series"]) > 1 else []
    for s in computed["series"]:
        r = s["results"][0]
        out.append(
            html.P(
                t(
                    "lab_ops_summary",
                    lang,
                    name=series_name(s, lang),
                    hw=r["hardware_name"],
                    flops=si(r["flops"], "FLOP"),
                    bytes=si(r["bytes"], "B"),
                    intensity=plain(r["intensity"]),
                    bound=_bound(r["bound"], lang),
                    time=duration(r["time_s"]),
                    compute=duration(r["compute_time_s"]),
                    memory=duration(r["memory_time_s"]),
                )
            )
        )
    return out


def details(computed: dict, lang: str) -> list:
    """The tile view (both conventions), the im2col GEMM, the depthwise note."""
    out: list = []
    tile = computed["tile"]
    if tile:
        head = html.Tr([html.Th(t(f"lab_ops_col_{c}", lang)) for c in ("convention", "flops", "bytes", "intensity")])
        rows = [
            html.Tr(
                [
                    html.Td(t(f"lab_ops_tile_{key}", lang)),
                    html.Td(si(tile[key]["flops"], "FLOP")),
                    html.Td(si(tile[key]["bytes"], "B")),
                    html.Td(plain(tile[key]["intensity"])),
                ],
                **{"data-convention": key},
            )
            for key in ("c_read_modify_write", "read_once_write_once", "no_l2_reuse")
        ]
        out += [
            html.H3(t("lab_ops_tile_title", lang, m=tile["tile_m"], n=tile["tile_n"], k=tile["tile_k"])),
            html.P(t("lab_ops_tile_help", lang, tiles=f"{tile['tiles']:,}"), className="help"),
            html.Table([html.Thead(head), html.Tbody(rows)], className="lab-table", id="lab-tile-table"),
        ]
    v = computed["im2col"]
    if v:
        out += [
            html.H3(t("lab_ops_im2col_title", lang)),
            html.P(
                t(
                    "lab_ops_im2col",
                    lang,
                    m=f"{v['m']:,}",
                    n=f"{v['n']:,}",
                    k=f"{v['k']:,}",
                    groups=f"{v['groups']:,}",
                    ho=f"{v['out_height']:,}",
                    wo=f"{v['out_width']:,}",
                    values=si(v["unrolled_values"]),
                    expansion=plain(v["expansion"]),
                ),
                id="lab-im2col",
            ),
        ]
    if computed["depthwise"]:
        out.append(html.P(t("lab_ops_depthwise", lang), className="help", id="lab-depthwise"))
    return out
