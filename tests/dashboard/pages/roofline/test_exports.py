"""The vendored plotly.js bundle and the HTML snapshot built from it."""

import re

from plotly.offline import get_plotlyjs_version

from app.dashboard.pages.roofline.exports import PLOTLY_BUNDLE, plotly_bundle, snapshot_html


def test_vendored_bundle_is_the_version_plotly_py_expects():
    """dcc.Graph draws with the assets bundle (it sets window.Plotly first): a plotly upgrade
    must bring a matching bundle, or figures built for one version are drawn by another."""
    head = plotly_bundle()[:200]
    assert re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", head).group(1) == get_plotlyjs_version()
    assert get_plotlyjs_version() in PLOTLY_BUNDLE.name


def test_snapshot_is_self_contained():
    text = snapshot_html(
        {"data": [{"type": "scatter", "uid": "point--x--decode", "x": [1], "y": [2]}], "layout": {}},
        "LLM <inference>",
        "http://h/?hw=a&b=1",
        "llm-roofline 0.1.0",
    )
    assert "</script" not in plotly_bundle()  # inlined as is, so it must not close its own tag
    assert "<title>LLM &lt;inference&gt;</title>" in text and "point--x--decode" in text
    assert "<script src=" not in text and len(text) > 1_000_000
    assert 'href="http://h/?hw=a&amp;b=1"' in text and "llm-roofline 0.1.0" in text
