"""Files the dashboard hands out: the self-contained HTML snapshot.

The snapshot inlines the same partial plotly.js bundle the page uses (assets/vendor, 1.5 MB
instead of plotly.py's full 4.8 MB), so it opens offline, from a wiki attachment or a mail.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
from functools import lru_cache
from pathlib import Path

import plotly.io as pio

from app.dashboard.components.plot_style import CJK_UNICODE_RANGE, FONT_FAMILY
from app.dashboard.pages.roofline.symbol_key import EXPORT_SIZE_PX, exported

ASSETS = Path(__file__).resolve().parents[4] / "assets"
PLOTLY_BUNDLE = ASSETS / "vendor" / "plotly-cartesian-4.1.1.min.js"
CJK_FONT = ASSETS / "fonts" / "noto-sans-sc-subset.woff2"
# The snapshot's chart: as tall as the page's chart at 1400x900 and as wide as the exported
# image (the width its symbol key is wrapped for), so it keeps a chart's proportions
# (plotly.io's default 100% height of an auto-height body drew it ~260 px tall across the window).
SNAPSHOT_HEIGHT_PX = 720
SNAPSHOT_MAX_WIDTH_PX = EXPORT_SIZE_PX[0]


@lru_cache(maxsize=1)
def plotly_bundle() -> str:
    return PLOTLY_BUNDLE.read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def cjk_font_face() -> str:
    """The page's CJK subset (assets/fonts, SIL OFL 1.1) as an inline @font-face: the snapshot
    opened where no CJK font is installed shows its Chinese words."""
    data = base64.b64encode(CJK_FONT.read_bytes()).decode("ascii")
    source = f'src:url(data:font/woff2;base64,{data}) format("woff2");unicode-range:{CJK_UNICODE_RANGE};'
    return f'@font-face{{font-family:"Noto Sans SC subset";{source}}}'


def snapshot_html(figure: dict, title: str, link: str, provenance: str) -> str:
    """The figure with what it shows: the scenario as <title> and heading, the link that
    reproduces the view, and the app version and catalogue it was computed with."""
    body = pio.to_html(
        exported(figure, SNAPSHOT_HEIGHT_PX),  # the symbol key in its legend, wrapped for this width
        include_plotlyjs=False,
        full_html=False,
        config={"displaylogo": False, "showSendToCloud": False},
        default_height=f"{SNAPSHOT_HEIGHT_PX}px",
    )
    body = f'<div style="max-width:{SNAPSHOT_MAX_WIDTH_PX}px">{body}</div>'
    header = (
        f'<p style="font-size:14px;font-family:{html.escape(FONT_FAMILY)}">{html.escape(title)}<br>'
        f'<a href="{html.escape(link, quote=True)}">{html.escape(link)}</a><br>'
        f'<span style="color:#6b7280">{html.escape(provenance)}</span></p>'
    )
    # the bundle is inlined as is; "</script" cannot occur in minified plotly.js (checked in tests)
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>\n'
        f"<style>{cjk_font_face()}</style>\n"
        f"<script>{plotly_bundle()}</script></head>\n<body>{header}{body}</body></html>\n"
    )


def ops_csv(rows: list[dict], provenance: dict) -> str:
    """The ops table as CSV, its provenance in leading '#' comment lines (most CSV readers
    take a comment character; the columns stay clean)."""
    out = io.StringIO()
    for key, value in provenance.items():
        out.write(f"# {key}: {json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value}\n")
    writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["op"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()
