"""The charts' toolbar settings, the same on every page."""

from __future__ import annotations

# Plotly's "Share chart..." button uploads the figure to a public cloud service: these numbers
# may be internal, so it is gone (and so are the selection tools, which select nothing here).
GRAPH_CONFIG = {
    "displaylogo": False,
    "showSendToCloud": False,
    "showEditInChartStudio": False,
    "modeBarButtonsToRemove": ["sendChartToCloud", "lasso2d", "select2d"],
}


def graph_config(filename: str) -> dict:
    """GRAPH_CONFIG with the camera button naming its PNG after the view."""
    return {**GRAPH_CONFIG, "toImageButtonOptions": {"format": "png", "filename": filename, "scale": 2}}
