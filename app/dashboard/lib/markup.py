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


def plotly_text(value: object) -> str:
    """`value` as text Plotly draws literally."""
    text = str(value)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("%{", "%&#123;")


def plotly_names(results: list[dict] | None) -> list[dict]:
    """Engine results (one per accelerator) with `hardware_name` made inert for Plotly; a what-if
    card's or a hardware file's name is user text. Copies: the engine's results are shared."""
    return [{**r, "hardware_name": plotly_text(r["hardware_name"])} for r in results or []]
