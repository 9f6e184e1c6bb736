"""The training lab (tab=training). Placeholder until the lab is built."""

from __future__ import annotations

from dash import html

from .tabs import lab_shell
from .url_state import View


def page(view: View) -> html.Div:
    return lab_shell(view, [html.Main(id="training-lab", className="lab")], [])


def register(app) -> None:
    """The lab's callbacks (none yet)."""
