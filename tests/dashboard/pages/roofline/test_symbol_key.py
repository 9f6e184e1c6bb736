"""The symbol key: HTML under the chart on the page, the legend's title of an exported figure,
wrapped on the server for the export's width."""

import pytest

from app.dashboard.pages.roofline.exports import snapshot_html
from app.dashboard.pages.roofline.figures import roofline_figure
from app.dashboard.pages.roofline.symbol_key import (
    EXPORT_SIZE_PX,
    KIND_LEGEND,
    exported,
    key_items,
    symbol_key,
    text_width_px,
    wrap_items,
)
from app.service import dashboard_data
from engine.analysis import Scenario

EIGHT = ["h100-sxm5", "h200-sxm", "b200", "mi300x", "rtx-4090", "a100-80gb-sxm", "l40s", "gaudi-3"]


@pytest.fixture(scope="module")
def eight():
    return dashboard_data("llama-3-70b", EIGHT, Scenario(batch_size=16, context_length=4096))


def test_wrapped_lines_fit_and_no_item_is_broken():
    items = [f"{glyph} {words}" for _kind, glyph, words in key_items({k for k, _ in KIND_LEGEND}, "zh")]
    for width in (300, 500, 1110):
        lines = wrap_items(items, width, 19)
        assert "    ".join(lines).replace("<br>", "") == "    ".join(items)  # every item, whole, in order
        assert all(text_width_px(line, 19) <= width for line in lines if "    " in line)
    assert len(wrap_items(items, 300, 19)) > len(wrap_items(items, 1110, 19)) >= 1


def test_wide_characters_count_wider_than_latin():
    assert text_width_px("空心：放不下", 12) > text_width_px("hollow", 12)
    assert text_width_px("○", 10) == 10


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("present", [False, True])
def test_the_page_figure_leaves_the_key_to_html_and_the_export_carries_it(eight, lang, present):
    fig = roofline_figure(eight["analysis"]["results"], eight["trajectories"], lang, present=present)
    layout = fig["layout"]
    assert "title" not in layout["legend"]  # on the page: the HTML key under the chart
    kinds = [kind for kind, _glyph, _words in layout["meta"]["key"]]
    assert {"decode", "prefill", "ridge", "hollow"} <= set(kinds)
    spans = symbol_key(fig)
    assert len(spans) == len(kinds) and all(s.className == "key-item" for s in spans)
    out = exported(fig)["layout"]
    assert (out["width"], out["height"]) == EXPORT_SIZE_PX
    title = out["legend"]["title"]
    size = title["font"]["size"]
    room = EXPORT_SIZE_PX[0] - out["margin"]["l"] - out["margin"]["r"]
    lines = title["text"].split("<br>")
    assert all(text_width_px(line, size) <= room for line in lines)
    assert ("hollow" if lang == "en" else "空心") in title["text"]
    # the foot holds the key's lines as well as the accelerators' rows: more than the page's
    assert out["margin"]["b"] >= layout["margin"]["b"]
    assert out["height"] - out["margin"]["b"] - out["margin"]["t"] >= 0.5 * out["height"]


def test_a_message_figure_has_no_key():
    assert symbol_key({"data": [], "layout": {}}) == []


def test_snapshot_draws_the_key_at_the_export_width(eight):
    fig = roofline_figure(eight["analysis"]["results"], eight["trajectories"], "zh")
    text = snapshot_html(fig, "scenario", "http://example/?x", "llm-roofline")
    assert "width:1200px" in text.replace(" ", "")  # plotly.io sizes the chart's div by the layout
    assert "空心".encode("unicode_escape").decode() in text  # the key, in the JSON's escapes
