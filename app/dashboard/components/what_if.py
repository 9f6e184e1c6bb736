"""The what-if card list: cards removed with their ×, a box for engine.what_if's short form
with Add, and the format."""

from __future__ import annotations

from dash import dcc, html

from app.dashboard.components.fields import dropdown_labels
from app.dashboard.lib.i18n import t


def what_if_picker(prefix: str, what_ifs: tuple[str, ...], lang: str, example: str) -> list:
    """Ids: `<prefix>what-if`, `<prefix>whatif-text`, `<prefix>whatif-add`."""
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
