"""The symbol key: what each mark on the roofline means (● decode, ■ prefill, ✕ ridge, ○ hollow...).

On the page it is an HTML line under the chart whose items wrap at any width (a Plotly legend
title never wraps: as one line it ran past the card at an 800x500 embed and on a phone, and
wrapped on the server into several lines it took the plot's room with eight accelerators). A
figure exported at a fixed size (the PNG/SVG the browser draws at EXPORT_SIZE_PX, the HTML
snapshot) carries the key as its legend's title instead, wrapped on the server for that width:
`layout.meta.export` is the layout patch the export applies (assets/app.js `exportImage`,
exports.snapshot_html).

Colours are the accelerators' (the legend proper); the key says what each symbol is.
"""

from __future__ import annotations

import math
import unicodedata

from dash import html

from app.dashboard.lib.i18n import t

# The image the header's PNG and SVG buttons download (assets/app.js) and the snapshot's chart.
EXPORT_SIZE_PX = (1200, 750)

KIND_GLYPHS = {
    "decode": "●",
    "prefill": "■",
    "attention_decode": "◆",
    "elementwise": "▲",
    "measured_decode": "★",
    "ridge": "✕",
    "measured": "+",
    "cache": "-·-",
    "ghost": "◌",
    "hollow": "○",
}

KIND_LEGEND = (
    ("decode", "decode"),
    ("prefill", "prefill"),
    ("attention_decode", "attention_decode"),
    ("elementwise", "elementwise"),
    ("measured_decode", "measured_point"),
    ("measured", "imported_kind"),
    ("ridge", "ridge_kind"),
    ("cache", "cache_kind"),  # a cache level's roof, dash-dot
    ("ghost", "ghost_kind"),
    ("hollow", "hollow_kind"),  # a hollow point: that batch and context do not fit in memory
)
SEPARATOR = "    "


def key_items(drawn: set[str], lang: str) -> list[list[str]]:
    """[kind, glyph, words] of every kind of mark drawn, in the key's fixed order."""
    return [[kind, KIND_GLYPHS[kind], t(label, lang)] for kind, label in KIND_LEGEND if kind in drawn]


def text_width_px(text: str, size: float) -> float:
    """A generous estimate of `text`'s width in a sans-serif font of `size` px: a Latin
    character at most 0.62 em, a space 0.33 em, a wide (CJK) character or a symbol 1 em. The
    browser draws narrower; an estimate too small would cut the exported key, one too large
    only wraps it a little early."""
    width = 0.0
    for ch in text:
        if ch == " ":
            width += 0.33
        elif ch.isascii():
            width += 0.62
        elif unicodedata.east_asian_width(ch) in ("W", "F") or not ch.isalnum():
            width += 1.0
        else:
            width += 0.7
    return width * size


def wrap_items(items: list[str], width_px: float, size: float) -> list[str]:
    """The items on as few lines as fit `width_px`, never breaking an item."""
    lines: list[str] = []
    for item in items:
        joined = lines[-1] + SEPARATOR + item if lines else item
        if lines and text_width_px(joined, size) <= width_px:
            lines[-1] = joined
        else:
            lines.append(item)
    return lines


def export_patch(layout: dict, items: list[list[str]], accelerators: int, present: bool, color: str) -> dict:
    """The legend with the key as its title, wrapped for EXPORT_SIZE_PX, and a foot tall enough
    for it and the accelerators' entries (about three to a row, two in presentation mode's
    larger font)."""
    width = EXPORT_SIZE_PX[0] - layout["margin"]["l"] - layout["margin"]["r"] - 10
    size = layout["font"]["size"] - 1
    lines = wrap_items([f"{glyph} {words}" for _kind, glyph, words in items], width, size)
    title = {"text": "<br>".join(lines), "side": "top", "font": {"size": size, "color": color}}
    rows = math.ceil(accelerators / (2 if present else 3))
    line = layout["font"]["size"] + 9
    foot = max(150, 70 + line * rows + math.ceil(size * 1.4) * len(lines))
    return {"legend": {**layout["legend"], "title": title}, "margin": {**layout["margin"], "b": foot}}


def exported(figure: dict, height_px: int = EXPORT_SIZE_PX[1]) -> dict:
    """The figure as an export draws it: the key in its legend, EXPORT_SIZE_PX wide (the width
    the key is wrapped for) and `height_px` tall."""
    layout = figure.get("layout", {})
    meta = layout.get("meta") or {}
    patch = meta.get("export") or {}
    size = {"width": EXPORT_SIZE_PX[0], "height": height_px, "autosize": False}
    kept = {k: v for k, v in meta.items() if k != "export"}  # applied: the file need not carry it
    return {**figure, "layout": {**layout, **patch, **size, "meta": kept}}


def symbol_key(figure: dict) -> list:
    """The key under the chart: one item per kind of mark, each unbreakable, wrapping between
    items (assets/11-symbol-key.css). Empty for a figure without marks (a message)."""
    items = ((figure.get("layout") or {}).get("meta") or {}).get("key") or []
    return [
        html.Span(
            [html.Span(glyph, className=f"key-glyph key-{kind}", **{"aria-hidden": "true"}), " ", words],
            className="key-item",
        )
        for kind, glyph, words in items
    ]
