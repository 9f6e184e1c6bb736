"""Files the dashboard hands out: the self-contained HTML snapshot.

The snapshot inlines the same partial plotly.js bundle the page uses (assets/vendor, 1.5 MB
instead of plotly.py's full 4.8 MB), so it opens offline, from a wiki attachment or a mail.
"""

from __future__ import annotations

import html
from functools import lru_cache
from pathlib import Path

import plotly.io as pio

PLOTLY_BUNDLE = Path(__file__).resolve().parents[2] / "assets" / "vendor" / "plotly-cartesian-4.1.1.min.js"


@lru_cache(maxsize=1)
def plotly_bundle() -> str:
    return PLOTLY_BUNDLE.read_text(encoding="utf-8")


def snapshot_html(figure: dict, title: str) -> str:
    body = pio.to_html(figure, include_plotlyjs=False, full_html=False, config={"displaylogo": False})
    # the bundle is inlined as is; "</script" cannot occur in minified plotly.js (checked in tests)
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>\n'
            f"<script>{plotly_bundle()}</script></head>\n<body>{body}</body></html>\n")
