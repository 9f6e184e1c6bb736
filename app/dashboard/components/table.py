"""Plain HTML tables (dash_table is deprecated and cost a 481 KB bundle at cold load for three
small tables): a header row, and body rows a callback can replace alone. A sortable table's
headers are buttons; the page's callback re-orders the rows it keeps (no client-side DOM
reordering under React's feet)."""

from __future__ import annotations

import math
from collections.abc import Callable

from dash import dcc, html

Column = tuple[str, str, Callable[[object], str] | None]  # (key, header, how a value is shown)


def _sig(value: float, digits: int) -> str:
    """`digits` significant figures, thousands grouped, no trailing zeros (d3's ',.Nr~')."""
    if not value:
        return "0"
    decimals = max(digits - 1 - math.floor(math.log10(abs(value))), 0)
    return f"{value:,.{decimals}f}".rstrip("0").rstrip(".") if decimals else f"{round(value):,}"


def si_prefix(value: object) -> str:
    """137e9 -> '137G' (three significant figures and an SI prefix, d3's '.3s')."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return ""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return _sig(value / scale, 3) + prefix
    return _sig(value, 3)


def significant(digits: int) -> Callable[[object], str]:
    return lambda value: _sig(value, digits) if isinstance(value, (int, float)) else ""


def percent(value: object) -> str:
    return f"{value:.1%}" if isinstance(value, (int, float)) else ""


def head(columns: list[Column], sort_prefix: str | None = None, sort: dict | None = None) -> html.Thead:
    """The header row; with `sort_prefix`, each header is a button `<prefix>-<key>` and the
    sorted column says so (aria-sort)."""
    cells = []
    for key, label, _ in columns:
        if sort_prefix is None:
            cells.append(html.Th(label, scope="col"))
            continue
        order = "none" if (sort or {}).get("key") != key else ("descending" if sort.get("desc") else "ascending")
        button = html.Button(label, id=f"{sort_prefix}-{key}", n_clicks=0, className="sort")
        cells.append(html.Th(button, scope="col", **{"aria-sort": order}))
    return html.Thead(html.Tr(cells))


def cells(columns: list[Column], rows: list[dict], sort: dict | None = None) -> list[list]:
    """Each body row's cells as shown, ordered by `sort` ({"key", "desc"}) when it names a column."""
    key = (sort or {}).get("key")
    if key is not None and any(key == k for k, _, _ in columns):

        def order(row: dict):
            value = row.get(key)
            return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))

        rows = sorted(rows, key=order, reverse=bool(sort.get("desc")))
    return [[show(row.get(k)) if show else row.get(k, "") for k, _, show in columns] for row in rows]


def body(columns: list[Column], rows: list[dict], sort: dict | None = None) -> list:
    """The body rows as elements (a cell may hold a component: a source's link)."""
    return [element("Tr", [element("Td", cell) for cell in row]) for row in cells(columns, rows, sort)]


def element(tag: str, children: object) -> dict:
    """An HTML element as Dash's renderer receives it: what `html.<tag>(children)` serialises
    to, built directly. Constructing and serialising one Dash component per cell cost more than
    the engine's whole answer: the ops table's ~200 cells took ~9 ms of a ~15 ms settle."""
    return {"type": tag, "namespace": "dash_html_components", "props": {"children": children}}


def table(table_id: str, columns: list[Column], rows: list[dict], body_id: str, sort_prefix: str | None = None):
    """A table whose body (`body_id`) a callback can replace alone."""
    return html.Table(
        [head(columns, sort_prefix), html.Tbody(body(columns, rows), id=body_id)],
        id=table_id,
        className="data-table",
    )


def drawn_table(table_id: str, columns: list[Column], body_cells: list, body_id: str, sort_prefix: str | None = None):
    """A table whose body the browser draws from `body_cells` (`cells`: text only) kept in the
    store `<body_id>-cells` (assets/12-tables.js; a callback replaces the store, not the rows). Dash's renderer revisits
    every component it holds on each update: as one component per cell, the ops table's ~200
    cells cost ~16 ms of every slider step (CPU profile, 24 steps: renderer 1.25 s, 0.84 s
    without them). Text only: the browser sets each cell's textContent."""
    return (
        html.Table([head(columns, sort_prefix), html.Tbody(id=body_id)], id=table_id, className="data-table"),
        dcc.Store(id=f"{body_id}-cells", data=body_cells),
    )
