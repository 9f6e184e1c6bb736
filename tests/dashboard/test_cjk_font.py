"""The CJK font the dashboard ships (issue 29 §3): a subset of Noto Sans SC that holds every CJK
character the dashboard can show, with its licence beside it, small enough to load with a page."""

import sys
from pathlib import Path

from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import subset_cjk_font  # noqa: E402


def test_the_subset_holds_every_cjk_character_the_dashboard_shows():
    """A catalogue that gains a character the font lacks fails here: run scripts/subset_cjk_font.py."""
    font = TTFont(subset_cjk_font.FONT)
    cmap = font.getBestCmap()
    wanted = subset_cjk_font.characters()
    assert len(wanted) > 300 and "中" in wanted and "，" in wanted
    missing = [ch for ch in wanted if ord(ch) not in cmap]
    assert missing == [], f"not in {subset_cjk_font.FONT.name}: {''.join(missing)}"
    # fontsource's static 400 instance of the variable font (its name table keeps the default "Thin")
    assert font["name"].getDebugName(1).startswith("Noto Sans SC") and font["OS/2"].usWeightClass == 400
    assert font.flavor == "woff2"


def test_the_subset_is_small_and_licensed():
    assert subset_cjk_font.FONT.stat().st_size < 300 * 1024
    licence = subset_cjk_font.LICENSE.read_text(encoding="utf-8")
    assert "SIL Open Font License, Version 1.1" in licence


def test_the_page_and_the_charts_name_it():
    css = (ROOT / "assets" / "01-variables.css").read_text(encoding="utf-8")
    assert 'url("fonts/noto-sans-sc-subset.woff2")' in css and '"Noto Sans SC subset"' in css
    from app.dashboard.components.plot_style import FONT_FAMILY, base_layout

    layout = base_layout("zh", "light", False)
    assert '"Noto Sans SC subset"' in FONT_FAMILY and layout["font"]["family"] == FONT_FAMILY
    assert layout["hoverlabel"]["font"]["family"] == FONT_FAMILY  # Plotly's hover is Arial otherwise
