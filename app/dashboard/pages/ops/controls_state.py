"""The op lab's controls read back into its state through the parameter table (params.py), the
same kinds a link goes through, so a typed value and a link agree.

`controls` is {"id.prop": value}, as the callback receives it (its keyword `controls`
argument) or as a test writes it. A value the table refuses keeps the previous view's value
(the link the page showed before) and is reported as a `Refusal`: the parameter, what was typed
and why, said in the control's own words by `said`."""

from __future__ import annotations

from dataclasses import replace

from dash import Input

from app.dashboard.lib.i18n import reason, t
from app.dashboard.lib.params import Float, Int, Why, control_inputs, read_controls
from app.dashboard.pages.ops.params import BY_NAME, PARAMS, spec_of
from app.dashboard.pages.ops.state import OpsState, consistent, parse_args
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.state import DEFAULT_HARDWARE, view_from_search
from engine.errors import EngineInputError

HARDWARE = "lab-hardware.value"  # the catalogue cards: the page's `hw`, read by the View from a link
# (parameter or engine field, what was typed (None: nothing to quote), why: a Why or an engine error)
Refusal = tuple[str, str | None, object]


def control_values() -> dict:
    """Every control the table names, and the accelerators, as the callback's Inputs."""
    return {**control_inputs(PARAMS, Input), HARDWARE: Input("lab-hardware", "value")}


def hardware_of(value: object, refusals: list[Refusal]) -> tuple[str, ...]:
    """The catalogue cards chosen (the roofline's `hw` kind): unknown ones and those past the
    limit are named; none at all shows the defaults."""
    ids = [h for h in value if isinstance(h, str)] if isinstance(value, list) else []
    good, problems = ROOFLINE_PARAMS["hw"].kind.parse_all(",".join(h[:40] for h in ids[:64]))
    refusals += [("hw", text[:40], why) for text, why in problems]
    if not good:
        refusals.append(("hw", "", Why("no_accelerator")))
        return DEFAULT_HARDWARE
    return good


def previous_state(link: object) -> OpsState:
    """The view the page showed before this change: its canonical link (the `lab-link` store)."""
    template = link.get("template") if isinstance(link, dict) else None
    if not isinstance(template, str):
        return OpsState()
    return parse_args(view_from_search(template).lab_args)[0]


def from_controls(controls: dict, previous: OpsState | None = None) -> tuple[OpsState, tuple[str, ...], list]:
    """The controls' values -> (state, accelerators, refusals). A refused value keeps the
    `previous` view's (the defaults without one); fields that disagree fall back to it too."""
    controls = controls if isinstance(controls, dict) else {}
    previous = previous or OpsState()
    refusals: list[Refusal] = []

    def bad(name: str, given: str | None, why: object) -> None:
        refusals.append((name, given, why))

    changes = read_controls(PARAMS, controls, bad)
    hardware = hardware_of(controls.get(HARDWARE), refusals)
    state = replace(previous, **changes)
    return consistent(state, hardware, bad, {}, previous), hardware, refusals


def _shown(name: str, state: OpsState, hardware: tuple[str, ...]) -> str:
    """The value the page still shows for a parameter, as its control writes it."""
    if name == "hw":
        return ", ".join(hardware)
    p = BY_NAME[name]
    value = p.value(state)
    if isinstance(p.kind, Int):
        return f"{value:,}"
    if isinstance(p.kind, Float):
        return f"{value:,g}"
    if p.repeat:
        return ", ".join(value) or "—"
    return p.kind.write(value) or "—"


def said(refusal: Refusal, state: OpsState, hardware: tuple[str, ...], lang: str) -> str:
    """A refused control in its own words: "M must be 1–16,777,216 (you typed 0); still showing
    8,192." for a number box, "<label>: <why> (you typed …); still showing …" for the others,
    and the engine's reason with the view still shown for fields that disagree."""
    name, typed, why = refusal
    typed = typed or "—"
    if name == "hw" or name in BY_NAME:
        p = BY_NAME.get(name)
        label = t("hardware" if p is None else p.label, lang)
        shown = _shown(name, state, hardware)
        if p is not None and isinstance(p.kind, (Int, Float)):
            low, high = (f"{p.kind.low:,}", f"{p.kind.high:,}") if isinstance(p.kind, Int) else (
                f"{p.kind.low:g}", f"{p.kind.high:,g}")  # fmt: skip
            return t("box_invalid", lang, label=label, low=low, high=high, typed=typed, shown=shown)
        return t("lab_ops_box_refused", lang, label=label, why=reason(why, lang), typed=typed, shown=shown)
    spec = spec_of(state)
    why = _in_box_words(why, state.op, lang)
    return t("lab_ops_fields_refused", lang, why=reason(why, lang), shown=spec.label if spec else state.op)


def _in_box_words(error: object, op: str, lang: str) -> object:
    """An engine error about the op's fields, naming the box ("Groups") instead of the API's
    field ("op.groups"); other reasons as they are."""
    if not isinstance(error, EngineInputError) or not error.code:
        return error
    rows = [p for p in PARAMS if f"op.{p.engine.get(op)}" == error.field]
    if not rows:
        return error
    label = t(rows[0].label, lang)
    params = {k: v for k, v in error.params.items() if k != "field"}
    return EngineInputError(label, str(error), code=error.code, params=params)
