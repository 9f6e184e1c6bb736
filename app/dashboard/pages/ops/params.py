"""The op lab's URL parameters, each declared once (lib/params.py): its name in the link, the
OpsState field it sets, its limits (the engine's own, engine/oplab.py), the control that shows
it, the words that label that control, and the engine spec's keyword it feeds for each op kind.
Parsing a link, the canonical link, the controls' first values, reading the controls back and
the engine's spec (`spec_of`) all come from this table. Adding a parameter: an OpsState field,
a row here, its control in controls.py, a line in docs/labs.md's op lab section.

The order of the rows is the order of the canonical link. A row with op kinds is written only
for those kinds (a conv2d link holds no GEMM sides)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields

from app.dashboard.lib.params import Choice, Flag, Float, Int, Invalid, Param, Why, model_choice
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.params import MAX_HARDWARE, WhatIfs
from engine.errors import EngineInputError
from engine.model_catalog import model_ids
from engine.oplab import (
    ACTIVATIONS,
    MAX_CHAIN_COUNT,
    MAX_CHAIN_OPS,
    MAX_CONV,
    MAX_ELEMENTS,
    MAX_GEMM_DIM,
    MAX_KERNEL,
    MAX_LAUNCH_OVERHEAD_S,
    MAX_SHAPE_DIMS,
    MAX_TILE_DIM,
    VALUE_DTYPES,
    Conv2dSpec,
    ElementwiseSpec,
    GemmSpec,
    parse_tile,
)
from engine.ops import ELEMENTWISE_KINDS

GEMM, CONV, EW, TEACHING = "gemm", "conv2d", "elementwise", "teaching"
KINDS = (GEMM, CONV, EW, TEACHING)
SPECS = {GEMM: GemmSpec, CONV: Conv2dSpec, EW: ElementwiseSpec}  # the teaching chart is no one spec
# Names links used before a rename: `op=seed000` and `preset=seed000` were the teaching chart.
RENAMED = {"seed000": TEACHING}
MAX_OVERHEAD_US = MAX_LAUNCH_OVERHEAD_S * 1e6


@dataclass(frozen=True)
class Renamed:
    """A kind that also reads the names a link used before a rename (RENAMED)."""

    kind: object

    def parse(self, text: str):
        return self.kind.parse(RENAMED.get(text, text))

    def write(self, value) -> str:
        return self.kind.write(value)

    def read(self, value: object):
        return self.kind.read(RENAMED.get(value, value) if isinstance(value, str) else value)

    def show(self, value) -> object:
        return self.kind.show(value)


class Activation:
    """`act=silu|gelu`; none (`act=none`, or left out) is ""."""

    allowed = "none, " + ", ".join(ACTIVATIONS)

    def parse(self, text: str) -> str:
        if text in ("", "none"):
            return ""
        if text in ACTIVATIONS:
            return text
        raise Invalid("one_of", allowed=self.allowed)

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, str):
            raise Invalid("one_of", allowed=self.allowed)
        return self.parse(value)

    def show(self, value: str) -> str:
        return value

    def engine(self, value: str) -> str | None:
        return value or None


class Tile:
    """`tile=128x128` or `128x256x64` (engine.oplab.parse_tile); "" (or `off`, `0`): no tile view."""

    def _refuse(self) -> Invalid:
        return Invalid("tile", high=f"{MAX_TILE_DIM:,}")

    def parse(self, text: str) -> str:
        if text in ("", "off", "0"):
            return ""
        try:
            parse_tile(text, field="tile")
        except EngineInputError:
            raise self._refuse() from None
        return text.lower()

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if value is None:  # an empty box: no tile view
            return ""
        if not isinstance(value, str):
            raise self._refuse()
        return self.parse(value.strip()[:40])

    def show(self, value: str) -> str:
        return value

    def engine(self, value: str) -> tuple[int, int, int] | None:
        return parse_tile(value) if value else None


class Shape:
    """`shape=32,2048,4096` (or 32x2048x4096): 1 to MAX_SHAPE_DIMS sizes, MAX_ELEMENTS in all."""

    def parse(self, text: str) -> tuple[int, ...]:
        parts = [p.strip() for p in text.replace("x", ",").split(",")]
        digits = len(str(MAX_ELEMENTS))
        ok = 1 <= len(parts) <= MAX_SHAPE_DIMS and all(p.isascii() and p.isdigit() and len(p) <= digits for p in parts)
        if not ok or min(int(p) for p in parts) < 1 or math.prod(int(p) for p in parts) > MAX_ELEMENTS:
            raise Invalid("shape_sizes", n=MAX_SHAPE_DIMS)
        return tuple(int(p) for p in parts)

    def write(self, value: tuple[int, ...]) -> str:
        return ",".join(str(d) for d in value)

    def read(self, value: object) -> tuple[int, ...]:
        if not isinstance(value, str):
            raise Invalid("shape_sizes", n=MAX_SHAPE_DIMS)
        return self.parse(value[:200])

    def show(self, value: tuple[int, ...]) -> str:
        return self.write(value)


class OpList:
    """`ops=add,silu`: elementwise op names; from a link the known ones are kept and each unknown
    one is named, from the control (a list) the list is used whole or refused."""

    def parse_all(self, text: str) -> tuple[tuple[str, ...] | None, list]:
        names = [o for o in text.split(",") if o]
        if not names:
            return None, [(text, Why("op_list"))]
        problems = [(o, Why("unknown_elementwise")) for o in names if o not in ELEMENTWISE_KINDS]
        return tuple(o for o in names if o in ELEMENTWISE_KINDS)[:MAX_CHAIN_OPS] or None, problems

    def write(self, value: tuple[str, ...]) -> str:
        return ",".join(value)

    def read(self, value: object) -> tuple[str, ...]:
        if not (isinstance(value, list) and 1 <= len(value) <= MAX_CHAIN_OPS and set(value) <= set(ELEMENTWISE_KINDS)):
            raise Invalid("op_list")
        return tuple(value)

    def show(self, value: tuple[str, ...]) -> list:
        return list(value)


class WhatIfCards(WhatIfs):
    """The roofline's `xhw=` kind; from the control (a list of short forms) each bad card is
    named with the engine's reason, as from a link."""

    def read_all(self, value: object) -> tuple[tuple[str, ...] | None, list]:
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return None, [(str(value)[:40], Why("what_if_list"))]
        return self.parse_all(",".join(v[:200] for v in value[: MAX_HARDWARE + 1]))


@dataclass(frozen=True)
class OpParam(Param):
    """A row of the op lab's table. engine: {op kind: the engine spec's keyword} it feeds (a kind
    missing: not that kind's field). ops: the kinds it belongs to when it feeds no spec (empty:
    every kind). when: written in the link only when also true of the state. label: the
    catalogue key of the words on its control (a refused value is told in them)."""

    engine: Mapping[str, str] = field(default_factory=dict, hash=False)
    ops: tuple[str, ...] = ()
    when: Callable[[object], bool] | None = None
    label: str = ""

    def applies(self, state: object) -> bool:
        kinds = self.ops or tuple(self.engine)
        return (not kinds or state.op in kinds) and (self.when is None or self.when(state))

    def texts(self, state: object, template: bool = False) -> list[str]:
        return super().texts(state, template) if self.applies(state) else []

    def to_engine(self, state: object):
        value = self.value(state)
        convert = getattr(self.kind, "engine", None)
        return convert(value) if convert else value


def shared(name: str, control: tuple[str, str], label: str, **changes) -> OpParam:
    """A parameter every page shares, from the roofline's row (its name, field and kind), shown
    by the lab's own control: it travels through a tab switch both ways (pages/links.py)."""
    row = ROOFLINE_PARAMS[name]
    given = {f.name: getattr(row, f.name) for f in fields(Param)}
    return OpParam(**(given | {"control": control} | changes), label=label)


def _box(name: str, op: str, keyword: str, low: int, high: int) -> OpParam:
    """A whole-number box of one op kind: `lab-<name>`, labelled `lab_ops_<name>`."""
    return OpParam(name, name, Int(low, high), ("lab-" + name, "value"), engine={op: keyword}, label="lab_ops_" + name)


def _has_epilogue(state) -> bool:
    return state.op != GEMM or bool(state.bias or state.act)


PARAMS: tuple[OpParam, ...] = (
    OpParam("op", "op", Renamed(Choice(KINDS)), ("lab-op", "value"), label="lab_ops_op"),
    _box("m", GEMM, "m", 1, MAX_GEMM_DIM),
    _box("n", GEMM, "n", 1, MAX_GEMM_DIM),
    _box("k", GEMM, "k", 1, MAX_GEMM_DIM),
    OpParam(
        "tile", "tile", Tile(), ("lab-tile", "value"), omit=lambda v: not v, engine={GEMM: "tile"}, label="lab_ops_tile"
    ),  # fmt: skip
    OpParam(
        "bias", "bias", Flag(), ("lab-bias", "value"), omit=lambda v: not v, engine={GEMM: "bias"}, label="lab_ops_bias"
    ),  # fmt: skip
    OpParam(
        "act",
        "act",
        Activation(),
        ("lab-act", "value"),
        omit=lambda v: not v,
        engine={GEMM: "activation"},
        label="lab_ops_epilogue",
    ),  # fmt: skip
    _box("batch", CONV, "batch", 1, MAX_CONV["batch"]),
    _box("height", CONV, "height", 1, MAX_CONV["height"]),
    _box("width", CONV, "width", 1, MAX_CONV["width"]),
    _box("cin", CONV, "in_channels", 1, MAX_CONV["in_channels"]),
    _box("cout", CONV, "out_channels", 1, MAX_CONV["out_channels"]),
    _box("kernel", CONV, "kernel", 1, MAX_KERNEL),
    _box("stride", CONV, "stride", 1, MAX_KERNEL),
    _box("padding", CONV, "padding", 0, MAX_KERNEL),
    _box("groups", CONV, "groups", 1, MAX_CONV["in_channels"]),
    OpParam("shape", "shape", Shape(), ("lab-shape", "value"), engine={EW: "shape"}, label="lab_ops_shape"),
    OpParam("ops", "ops", OpList(), ("lab-ops", "value"), engine={EW: "ops"}, label="lab_ops_ops"),
    _box("count", EW, "count", 1, MAX_CHAIN_COUNT),
    OpParam(
        "fused",
        "fused",
        Flag(),
        ("lab-fused", "value"),
        engine={GEMM: "fused_epilogue", EW: "fused"},
        when=_has_epilogue,  # a GEMM without an epilogue has nothing to fuse
        label="lab_ops_fusion",
    ),
    # every dtype a value may have; a GEMM's or a conv's compute dtype is checked against the op (state.py)
    OpParam(
        "dtype",
        "dtype",
        Choice(VALUE_DTYPES),
        ("lab-dtype", "value"),
        engine=dict.fromkeys(SPECS, "dtype"),
        label="lab_ops_dtype",
    ),  # fmt: skip
    OpParam(
        "overhead_us",
        "overhead_us",
        Float(0.0, MAX_OVERHEAD_US),
        ("lab-overhead", "value"),
        omit=lambda v: not v,
        ops=tuple(SPECS),
        label="lab_ops_overhead",
    ),
    # the decode projections' and the teaching chart's model: a catalogue model (no custom config)
    shared("model", ("lab-model", "value"), "lab_ops_decode_of", kind=model_choice(model_ids())),
    shared("xhw", ("lab-what-if", "value"), "what_if", kind=WhatIfCards()),
)
BY_NAME = {p.name: p for p in PARAMS}
# Read from a link only: an example's id (engine.oplab.op_presets), its fields under the link's.
PRESET = "preset"


def fields_of(op: str) -> tuple[str, ...]:
    """The link's names of one op kind's own fields (what a refused combination names)."""
    return tuple(p.name for p in PARAMS if op in p.engine and p.name != "dtype")


def spec_of(state):
    """The engine's op spec for this state, built from the rows that feed it (EngineInputError
    when the fields disagree); None for the teaching chart."""
    make = SPECS.get(state.op)
    if make is None:
        return None
    return make(**{p.engine[state.op]: p.to_engine(state) for p in PARAMS if state.op in p.engine})
