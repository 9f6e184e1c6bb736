"""A labelled field, a panel and a number box: the pieces every page's controls are made of."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.lib.i18n import t


def field(label: str, *children, cls: str = "field", html_for: str | None = None, **props) -> html.Div:
    """A label over its control(s); `html_for` ties the label to the control a reader types in."""
    return html.Div([html.Label(label, className="field-label", htmlFor=html_for), *children], className=cls, **props)


def panel(title: str, *children, panel_id: str, hidden: bool | None = None, cls: str = "panel") -> html.Section:
    props = {} if hidden is None else {"hidden": hidden}
    return html.Section([html.H2(title), *children], className=cls, id=panel_id, **props)


def number_box(component_id: str, value, low: float | None = None, high: float | None = None, step="any", **props):
    """A number box that reports only when the user is done typing (debounce)."""
    return dcc.Input(
        id=component_id,
        type="number",
        min=low,
        max=high,
        step=step,
        value=value,
        debounce=True,
        className="number-input",
        **props,
    )


def dropdown_labels(lang: str) -> dict:
    """The dropdowns' own words ("3 selected", "Select All", "Search"), in the page's language."""
    return {
        key: t(f"dropdown_{key}", lang)
        for key in (
            "select_all",
            "deselect_all",
            "selected_count",
            "search",
            "clear_search",
            "clear_selection",
            "no_options_found",
        )
    }
