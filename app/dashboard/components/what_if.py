"""The what-if card list: cards removed with their ×, a box for engine.what_if's short form
with Add, and the format; and what every page's Add does to the list (`added_what_if`)."""

from __future__ import annotations

from dash import dcc, html, no_update

from app.dashboard.components.fields import dropdown_labels
from app.dashboard.lib.i18n import reason, t
from engine.errors import EngineInputError
from engine.what_if import parse_what_if

# The figure's palette and legend hold 8 accelerators, what-if cards included.
MAX_HARDWARE = 8


def added_what_if(text: object, current: object, taken: int, lang: str) -> dict:
    """The outputs of a page's Add: the card list with the short form `text` added (the same
    name again: the new numbers replace the old). A bad form is refused with the engine's
    message, which names the format; the list never passes MAX_HARDWARE with the `taken`
    catalogue cards."""
    current = [w for w in current if isinstance(w, str)] if isinstance(current, list) else []
    text = text.strip() if isinstance(text, str) else ""
    refused = {"options": no_update, "value": no_update, "text": no_update}
    try:
        parse_what_if(text)
    except EngineInputError as exc:
        return {**refused, "error": reason(exc, lang)}
    chosen = list(({w.split(":", 1)[0]: w for w in current} | {text.split(":", 1)[0]: text}).values())
    if taken + len(chosen) > MAX_HARDWARE:
        return {**refused, "error": t("what_if_limit", lang, n=MAX_HARDWARE)}
    return {"options": [{"label": w, "value": w} for w in chosen], "value": chosen, "text": "", "error": ""}


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
