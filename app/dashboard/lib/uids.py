"""Trace uids that are safe inside a CSS selector.

Plotly builds selectors such as `'.cb' + uid` from trace uids; a `|` or a space in one makes
`Plotly.react` and `Plotly.toImage` throw as soon as a trace is removed, and the SVG freezes
while `gd.data` moves on (../shared/STACK.md). So a uid holds letters, digits, `-` and `_`
only, with its fields joined by `--`: `point--h100-sxm5--decode`. Fields never contain `--`
(accelerator ids are validated so; anything a user supplies is slugged here).
"""

from __future__ import annotations

import re
from functools import lru_cache

_UNSAFE = re.compile(r"[^a-z0-9_-]+")
_DASHES = re.compile(r"-{2,}")


@lru_cache(maxsize=4096)  # the same few hundred names on every redraw
def _slug(text: str) -> str:
    out = _DASHES.sub("-", _UNSAFE.sub("-", text.lower())).strip("-")
    return out[:60] or "x"


def slug(text: object) -> str:
    """'GeForce RTX 4090' -> 'geforce-rtx-4090'; never empty, never with '--'."""
    return _slug(str(text)[:200])


def uid(kind: str, *fields: object) -> str:
    return "--".join([kind, *(slug(f) for f in fields)])
