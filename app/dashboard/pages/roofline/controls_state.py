"""The view from the controls, through the same parameter table as the link (params.py).

Callback arguments pass the table's checks: a hand-made request to a callback gets the
defaults for what no control can send, never a 500. `controls` is {"id.prop": value}, as the
callbacks receive it (their keyword `controls` argument) or as a test writes it."""

from __future__ import annotations

from dataclasses import replace

from dash import Input, State

from app.dashboard.lib.params import Int, Invalid, Why, control_inputs, read_controls
from app.dashboard.pages.roofline.params import PARAMS
from app.dashboard.pages.roofline.refused import refused_boxes
from app.dashboard.pages.roofline.state import View, consistent

MAX_MEASURED_STEPS = 100_000  # decode steps one uploaded profile may cover
# Number boxes with no "unset": an empty or out-of-range box is a refusal, said on the page.
REQUIRED_BOXES = frozenset({"memutil", "bweff", "fleff", "block"})


def view_inputs() -> dict:
    """Every control the roofline's parameters name, plus the uploaded measurements, as Inputs."""
    return {**control_inputs(PARAMS, Input), "measurements.data": Input("measurements", "data")}


def view_states() -> dict:
    """The same, as States (a button reads the view without being fired by it)."""
    return {**control_inputs(PARAMS, State), "measurements.data": State("measurements", "data")}


def view_from_controls(controls: dict | None = None) -> View:
    """The controls' values -> a valid View (what no control can send falls back to the default)."""
    controls = controls if isinstance(controls, dict) else {}
    refusals: list[tuple[str, str | None, Why]] = []
    changes = read_controls(PARAMS, controls, lambda *refusal: refusals.append(refusal))
    view = replace(View(), **changes, refused=refused_boxes(refusals, REQUIRED_BOXES))
    flags = controls.get("view-flags.data")
    flags = flags if isinstance(flags, dict) else {}
    view = replace(
        view, embed=flags.get("embed") is True, measurements=measurement_spec(controls.get("measurements.data"))
    )
    return consistent(view)


def measurement_spec(value: object) -> dict | None:
    if not (isinstance(value, dict) and isinstance(value.get("format"), str) and isinstance(value.get("content"), str)):
        return None
    try:
        steps = Int(1, MAX_MEASURED_STEPS).read(value.get("steps"))
    except Invalid:
        steps = 1
    spec = {"format": value["format"], "content": value["content"], "steps": steps}
    on = value.get("on")  # the accelerator it was measured on; one not drawn means the first
    return {**spec, "on": on} if isinstance(on, str) and 0 < len(on) <= 64 else spec
