"""User text on a Plotly figure, made inert: the one place it is escaped.

Plotly renders a subset of HTML in every text it draws (trace names, hover templates, titles,
annotations, tick labels, table cells): `<a href>` becomes a clickable link (it drops
`javascript:` URLs but keeps relative and http(s) ones), `<b>`, `<br>` and `<span style>`
restyle the chart, and a hover template substitutes `%{...}`. Every string a user controls (a
config's `_name_or_path`, an accelerator's or a what-if card's name, an imported row's name, a
teaching model's id) goes through `plotly_text` before it is pasted into one: `&`, `<` and `>`
become entities and `%{` loses its brace, which Plotly's text renderer turns back into the
characters shown (plotly.js src/lib/svg_text_utils.js, convertEntities), so the name reads as
typed and nothing in it is markup. Our own markup (`<br>`, `<b>`) is added around it, never
escaped.
"""

from __future__ import annotations

import unicodedata


def plotly_text(value: object) -> str:
    """`value` as text Plotly draws literally."""
    text = str(value)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("%{", "%&#123;")


def plotly_names(results: list[dict] | None) -> list[dict]:
    """Engine results (one per accelerator) with `hardware_name` made inert for Plotly; a what-if
    card's or a hardware file's name is user text. Copies: the engine's results are shared."""
    return [{**r, "hardware_name": plotly_text(r["hardware_name"])} for r in results or []]


def _display_width(text: str) -> int:
    """Columns `text` takes: a wide (CJK) character counts two. (ASCII at once: the slider grid
    wraps a scenario line for each of its ~150 stops.)"""
    if text.isascii():
        return len(text)
    # no wide character lies below U+1100 (Hangul Jamo): the rest is checked one by one
    return len(text) + sum(1 for ch in text if ch >= "\u1100" and unicodedata.east_asian_width(ch) in "WF")


def wrapped_plotly_text(text: str, width: int = 56, sep: str = " · ") -> str:
    """`text` as inert Plotly text broken into lines of at most about `width` columns at `sep`
    (a Plotly title never wraps by itself: the scenario line was cut at the figure's edge in an
    800 px embed). A part longer than a line (a long custom-model name) gets a line of its own,
    split at `width` columns."""
    lines: list[str] = []
    for part in text.split(sep):
        while _display_width(part) > width:  # hard split: no separator inside a long name
            cut = width
            while _display_width(part[:cut]) > width:
                cut -= 1
            lines.append(part[:cut])
            part = part[cut:]
        if lines and _display_width(lines[-1] + sep + part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(part)
    return "<br>".join(plotly_text(line) for line in lines)
