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

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

# A hover line's width, in columns (a CJK character counts two). Plotly never wraps a hover, and
# a hover wider than its chart is cut at the chart's edges: a phone's plot is 328 px wide, and a
# measured run's hover at 44 columns of the 13 px hover font is 322 px, its padding included (at 80
# columns it ran from 125 px left of a phone's chart to 75 px past its right).
HOVER_LINE_UNITS = 44


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
    return sum(map(_char_width, text))


def _char_width(char: str) -> int:
    # no wide character lies below U+1100 (Hangul Jamo): the rest is checked one by one
    return 2 if char >= "\u1100" and unicodedata.east_asian_width(char) in "WF" else 1


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


# What a line shows, token by token: Plotly's tags take no room (Plotly carries a `<b>` across a
# `<br>`, so a line may break inside one), an entity one column, and a hover template's `%{...}`
# slot about SLOT_COLUMNS, a value's usual width ("1,234.5", "12.3 ms").
SLOT_COLUMNS = 8
_TOKENS = re.compile(r"<[^>]*>|&#?\w+;|%\{[^}]*\}|.", re.S)


def _token_width(token: str) -> int:
    if len(token) == 1:
        return _char_width(token)
    return {"<": 0, "&": 1}.get(token[0], SLOT_COLUMNS)


def wrap(text: str, units: int) -> list[str]:
    """Lines of at most `units` columns shown (a CJK character counts two, markup as drawn),
    broken at the last space past the line's middle, else anywhere (a Chinese sentence has none)."""
    return list(_wrapped(text, units))


# A concurrency change redraws every hover on the serving page, and most of their lines (a
# measured run's, its source's) are the ones drawn before: each is wrapped once.
@lru_cache(maxsize=4096)
def _wrapped(text: str, units: int) -> tuple[str, ...]:
    if "%{" not in text and _display_width(text) <= units:
        return (text,)
    lines, line, widths, width = [], [], [], 0
    for token in _TOKENS.findall(text):
        token_width = _token_width(token)
        if width + token_width > units and line:
            spaces = [k for k, t in enumerate(line) if t == " " and sum(widths[:k]) > units // 2]
            cut = spaces[-1] if spaces else len(line)
            lines.append("".join(line[:cut]))
            line, widths = line[cut + 1 :], widths[cut + 1 :]  # past the space cut at (none: empty)
            width = sum(widths)
        line.append(token)
        widths.append(token_width)
        width += token_width
    return (*lines, "".join(line)) if line else tuple(lines)


def hover_text(lines: Iterable[str], units: int = HOVER_LINE_UNITS) -> str:
    """A hover's lines (a line may hold `<br>`s of its own) joined by `<br>`, each wrapped to
    `units` columns: the chart's edge cuts what Plotly does not wrap."""
    return "<br>".join(part for line in lines for piece in line.split("<br>") for part in _wrapped(piece, units))


def hover_box(text: str) -> str:
    """`text` as a hover template, wrapped (hover_text), without Plotly's box of the trace's name."""
    return hover_text([text]) + "<extra></extra>"


# A legend entry's width, in columns: Plotly never wraps one either, and on a phone (390 px, the
# legend's 11 px font) "GB200 (per Blackwell GPU, NVL72) · memory caps the batch at 484" ran to
# 444 px, cut at the screen's edge. 40 columns and the entry's symbol are about 290 px.
LEGEND_LINE_UNITS = 40


def legend_names(data: list[dict]) -> list[dict]:
    """The traces with each legend entry's name wrapped to LEGEND_LINE_UNITS columns (in place)."""
    for trace in data:
        name = trace.get("name")
        if isinstance(name, str) and trace.get("showlegend", True) is not False:
            trace["name"] = hover_text([name], LEGEND_LINE_UNITS)
    return data
