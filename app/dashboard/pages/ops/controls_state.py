"""The op lab's controls read back into its state: the same parser as a link (state.py's
`parse_args`, which describes the link and its notices), so a typed value and a link agree.
"""

from __future__ import annotations

import math

from app.dashboard.lib.params import Why
from app.dashboard.pages.ops.state import Notice, OpsState, parse_args
from app.dashboard.pages.roofline.state import DEFAULT_HARDWARE, MAX_HARDWARE
from engine.hardware import catalogue
from engine.oplab import (
    MAX_CHAIN_OPS,
)

CONTROLS = (
    "op",
    "hardware",
    "dtype",
    "overhead",
    "m",
    "n",
    "k",
    "tile",
    "bias",
    "act",
    "fused",
    "batch",
    "height",
    "width",
    "cin",
    "cout",
    "kernel",
    "stride",
    "padding",
    "groups",
    "shape",
    "ops",
    "count",
    "model",
    "what-if",
)


BOXES = ("bias", "fused")  # one-box checklists


def _text(value: object) -> str | None:
    """A control's value as the link writes it; None when no control could have sent it."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            return "nan"
        return str(int(value)) if value == int(value) and abs(value) < 1e15 else repr(value)
    if isinstance(value, str):
        return value[:200]
    return None


def from_controls(values: dict) -> tuple[OpsState, tuple[str, ...], list[Notice]]:
    """The controls as the browser sends them (or as anyone can hand-make them) -> (state,
    accelerators, notices), through `parse_args`: a link and a control accept the same."""
    args: list[tuple[str, str]] = []
    notices: list[Notice] = []
    for name in CONTROLS:
        value = values.get(name)
        if name == "hardware":
            continue
        if name == "what-if":  # the list of short forms: each one its own `xhw`, as in the link
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                args += [("xhw", v[:200]) for v in value[: MAX_HARDWARE + 1]]
            elif value is not None:
                notices.append(("xhw", str(value)[:40], Why("what_if_list")))
            continue
        if name in BOXES:
            args.append((name, "1" if isinstance(value, list) and value else "0"))
        elif name == "ops":
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                args.append(("ops", ",".join(v[:40] for v in value[: MAX_CHAIN_OPS + 1])))
            else:
                notices.append(("ops", str(value)[:40], Why("op_list")))
        else:
            text = _text(value)
            param = "overhead_us" if name == "overhead" else name
            if text is None:
                if not (name == "tile" and value is None):
                    notices.append((param, "" if value is None else str(value)[:40], Why("empty_number")))
            else:
                args.append((param, text))
    hardware = _hardware(values.get("hardware"), notices)
    state, parsed = parse_args(args, hardware)
    return state, hardware, notices + parsed


def _hardware(value: object, notices: list[Notice]) -> tuple[str, ...]:
    known = catalogue()
    ids = [h for h in value if isinstance(h, str)] if isinstance(value, list) else []
    good = tuple(dict.fromkeys(h for h in ids if h in known))
    if len(good) > MAX_HARDWARE:
        notices.append(("hw", ",".join(good[MAX_HARDWARE:])[:40], Why("max_accelerators", {"n": MAX_HARDWARE})))
        good = good[:MAX_HARDWARE]
    if not good:
        notices.append(("hw", ",".join(ids)[:40], Why("no_accelerator")))
        good = DEFAULT_HARDWARE
    return good
