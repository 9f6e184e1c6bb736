"""What more than one page builds: the charts' toolbar settings, the dropdowns' own words and
the what-if card list."""

from __future__ import annotations

from dash import dcc, html

from .i18n import t

# Plotly's "Share chart..." button uploads the figure to a public cloud service: these numbers
# may be internal, so it is gone (and so are the selection tools, which select nothing here).
GRAPH_CONFIG = {
    "displaylogo": False,
    "showSendToCloud": False,
    "showEditInChartStudio": False,
    "modeBarButtonsToRemove": ["sendChartToCloud", "lasso2d", "select2d"],
}


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


def what_if_picker(prefix: str, what_ifs: tuple[str, ...], lang: str, example: str) -> list:
    """The what-if cards (remove one with its ×), a box for engine.what_if's short form with
    Add, and the format. Ids: `<prefix>what-if`, `<prefix>whatif-text`, `<prefix>whatif-add`."""
    return [
        dcc.Dropdown(
            id=f"{prefix}what-if",
            options=[{"label": w, "value": w} for w in what_ifs],
            value=list(what_ifs),
            multi=True,
            placeholder=t("what_if_none", lang),
            labels=dropdown_labels(lang),
        ),
        html.Label(t("what_if_type", lang), htmlFor=f"{prefix}whatif-text", className="field-label small"),
        html.Div(
            [
                dcc.Input(
                    id=f"{prefix}whatif-text",
                    type="text",
                    placeholder=example,
                    autoComplete="off",
                    className="number-input",
                ),
                html.Button(t("add", lang), id=f"{prefix}whatif-add", n_clicks=0, className="button"),
            ],
            className="inline-row",
        ),
        html.P(t("what_if_format", lang), className="help"),
    ]


def language_switch(lang: str) -> dcc.RadioItems:
    """EN / 中文: assets/app.js `changeLang` reloads the page's own link in the other language."""
    return dcc.RadioItems(
        id="lang",
        options=[{"label": "EN", "value": "en"}, {"label": "中文", "value": "zh"}],
        value=lang,
        className="toggle",
        inline=True,
    )
