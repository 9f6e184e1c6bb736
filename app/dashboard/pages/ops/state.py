"""The op lab's state: what the lab shows (`OpsState`), the link -> state parser with its
notices, the canonical query, and the controls' values through the same parser.

The link is the state: `?tab=ops&op=gemm&m=4096&n=4096&k=4096&hw=h100-sxm5` is parsed here
(`parse_args`), the page is rendered from it, every control change writes the canonical query
back (`lab_query`), and a preset is a link to its query. Anything unknown, out of range or
inconsistent is dropped with a notice, never an error; the checks of the op's fields are the
engine's own (`spec_of` builds engine/oplab.py's spec). What-if accelerators travel as
`xhw=<name>:<bandwidth TB/s>:<bf16 TFLOP/s>[:<memory GB>[:<vector TFLOP/s>]]` (repeatable, or comma-separated),
parsed by engine/what_if.py like on the roofline tab.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from app.dashboard.lib.params import Flag, Float, Invalid, Why
from app.dashboard.pages.links import lab_link
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.state import MAX_HARDWARE, View, valid_what_ifs
from engine.errors import EngineInputError
from engine.model_catalog import get_model, model_ids
from engine.oplab import (
    MAX_CHAIN_COUNT,
    MAX_CHAIN_OPS,
    MAX_CONV,
    MAX_ELEMENTS,
    MAX_GEMM_DIM,
    MAX_KERNEL,
    MAX_LAUNCH_OVERHEAD_S,
    MAX_SHAPE_DIMS,
    VALUE_DTYPES,
    Conv2dSpec,
    ElementwiseSpec,
    GemmSpec,
    op_presets,
    parse_tile,
)
from engine.ops import ELEMENTWISE_KINDS
from engine.precision import DTYPES

KINDS = ("gemm", "conv2d", "elementwise", "seed000")


ACTS = ("silu", "gelu")


DEFAULT_MODEL = "llama-2-7b"  # the teaching chart's "7B"; the API's and the CLI's default for it


MAX_OVERHEAD_US = MAX_LAUNCH_OVERHEAD_S * 1e6


@dataclass(frozen=True)
class OpsState:
    """What the lab shows, every field valid on its own (cross-field checks: `spec_of`)."""

    op: str = "gemm"
    dtype: str = "bf16"
    overhead_us: float = 0.0  # launch overhead per kernel
    model: str = DEFAULT_MODEL  # the decode projections' and the teaching chart's decode step's model
    # GEMM
    m: int = 8192
    n: int = 8192
    k: int = 8192
    tile: str = ""  # "" (no tile view) or what engine.oplab.parse_tile reads: 128x128, 128x256x64
    bias: bool = False
    act: str = ""  # "" or one of ACTS: the epilogue
    fused: bool = False  # the GEMM's epilogue, the elementwise chain
    # conv2d
    batch: int = 32
    height: int = 56
    width: int = 56
    cin: int = 256
    cout: int = 256
    kernel: int = 3
    stride: int = 1
    padding: int = 1
    groups: int = 1
    # elementwise chain: ten ops on [32, 2048, 4096]
    shape: tuple[int, ...] = (32, 2048, 4096)
    ops: tuple[str, ...] = ("scale",)
    count: int = 10
    # what-if accelerators, each in engine.what_if's short form, drawn after the catalogue cards
    what_if: tuple[str, ...] = ()


# URL name -> (low, high) of the integer fields (the engine's limits)
INT_FIELDS: dict[str, tuple[int, int]] = {
    "m": (1, MAX_GEMM_DIM),
    "n": (1, MAX_GEMM_DIM),
    "k": (1, MAX_GEMM_DIM),
    "batch": (1, MAX_CONV["batch"]),
    "height": (1, MAX_CONV["height"]),
    "width": (1, MAX_CONV["width"]),
    "cin": (1, MAX_CONV["in_channels"]),
    "cout": (1, MAX_CONV["out_channels"]),
    "kernel": (1, MAX_KERNEL),
    "stride": (1, MAX_KERNEL),
    "padding": (0, MAX_KERNEL),
    "groups": (1, MAX_CONV["in_channels"]),
    "count": (1, MAX_CHAIN_COUNT),
}


FIELDS_OF = {
    "gemm": ("m", "n", "k", "tile", "bias", "act", "fused"),
    "conv2d": ("batch", "height", "width", "cin", "cout", "kernel", "stride", "padding", "groups"),
    "elementwise": ("shape", "ops", "count", "fused"),
    "seed000": (),
}


# the URL names of the fields (what-ifs travel as `xhw=`, read apart in parse_args)
KNOWN = frozenset({"op", "dtype", "overhead_us", "model", "preset"} | {f.name for f in fields(OpsState)} - {"what_if"})


Notice = tuple[str, str, object]  # (parameter, value, why: a Why or an engine error): said through i18n.reason


def _int(value: str, low: int, high: int) -> int | None:
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    n = int(value)
    return n if low <= n <= high else None


def _shape(value: str) -> tuple[int, ...] | None:
    parts = value.replace("x", ",").split(",")
    if not 1 <= len(parts) <= MAX_SHAPE_DIMS:
        return None
    dims = [_int(p.strip(), 1, MAX_ELEMENTS) for p in parts]
    if any(d is None for d in dims) or math.prod(dims) > MAX_ELEMENTS:  # type: ignore[arg-type]
        return None
    return tuple(dims)  # type: ignore[arg-type]


def presets(model: str) -> list[dict]:
    """The engine's one-click ops (the seed shapes, then `model`'s decode projections)."""
    return op_presets(get_model(model))


def state_from_preset(preset: dict, base: OpsState) -> OpsState:
    """A preset (an API `op` body) as a fresh state that keeps the model and the what-ifs."""
    op = preset["op"]
    kind = op["kind"]
    state = OpsState(
        model=base.model,
        what_if=base.what_if,
        dtype=op.get("dtype", "bf16"),
        overhead_us=round(preset.get("launch_overhead_s", 0.0) * 1e6, 6),
    )
    if kind == "gemm":
        epilogue = bool(op.get("bias")) or bool(op.get("activation"))
        return replace(
            state,
            op="gemm",
            m=op["m"],
            n=op["n"],
            k=op["k"],
            tile=op.get("tile") or "",
            bias=bool(op.get("bias")),
            act=op.get("activation") or "",
            fused=epilogue and op.get("fused_epilogue", True),
        )
    if kind == "conv2d":
        return replace(
            state,
            op="conv2d",
            batch=op["batch"],
            height=op["height"],
            width=op["width"],
            cin=op["in_channels"],
            cout=op["out_channels"],
            kernel=op.get("kernel", 3),
            stride=op.get("stride", 1),
            padding=op.get("padding", 0),
            groups=op.get("groups", 1),
        )
    return replace(
        state,
        op="elementwise",
        shape=tuple(op["shape"]),
        ops=tuple(op.get("ops") or ("scale",)),
        count=op.get("count", 1),
        fused=bool(op.get("fused", False)),
    )


KEEP = object()  # field_value: nothing to change


def field_value(name: str, value: str, notices: list[Notice]):
    """One of the lab's fields from its text (Invalid with why, in words); `ops` keeps the
    known names of a list and names the others in `notices`."""

    def refuse(why: object, **params: object) -> Invalid:
        """`why`: a catalogue code (`why_<code>`) with its params, or the engine's error."""
        return Invalid(why, **params) if isinstance(why, str) else Invalid("engine", text=why)

    if name == "op":
        if value not in KINDS:
            raise refuse("one_of", allowed=", ".join(KINDS))
        return value
    if name in INT_FIELDS:
        n = _int(value, *INT_FIELDS[name])
        if n is None:
            raise refuse("int_range", low=INT_FIELDS[name][0], high=INT_FIELDS[name][1])
        return n
    if name == "overhead_us":
        try:
            return Float(0.0, MAX_OVERHEAD_US).parse(value)
        except Invalid:
            raise refuse("overhead_range", high=f"{MAX_OVERHEAD_US:,.0f}") from None
    if name in ("bias", "fused"):
        try:
            return Flag().parse(value)
        except Invalid:
            raise refuse("flag") from None
    if name == "act":
        if value in ACTS or value in ("", "none"):
            return "" if value == "none" else value
        raise refuse("one_of", allowed="none, silu, gelu")
    if name == "tile":
        return _tile(value, refuse)
    if name == "shape":
        shape = _shape(value)
        if shape is None:
            raise refuse("shape_sizes", n=MAX_SHAPE_DIMS)
        return shape
    return _ops_list(value, notices, refuse)


def _tile(value: str, refuse) -> str:
    if value in ("", "off", "0"):
        return ""
    try:
        parse_tile(value)
    except EngineInputError as exc:
        raise refuse(exc) from None
    return value.lower()


def _ops_list(value: str, notices: list[Notice], refuse) -> tuple[str, ...]:
    names = [o for o in value.split(",") if o]
    good = tuple(o for o in names if o in ELEMENTWISE_KINDS)[:MAX_CHAIN_OPS]
    notices += [("ops", o[:40], Why("unknown_elementwise")) for o in names if o not in ELEMENTWISE_KINDS]
    if good:
        return good
    if not names:
        raise refuse("op_list")
    return KEEP  # every name was unknown: each is named above, the default stays


def parse_args(args, hardware: tuple[str, ...] = ()) -> tuple[OpsState, list[Notice]]:
    """The lab's query parameters ((name, value) pairs, last one wins; `xhw` repeats) -> a
    valid state and what was ignored. Anything unknown, out of range or inconsistent is
    dropped with a notice, never an error: `preset=` first, then the fields on top of it.
    `hardware`: the catalogue cards shown, which leave MAX_HARDWARE minus their number to
    the what-ifs."""
    notices: list[Notice] = []
    values: dict[str, str] = {}
    what_if_texts: list[str] = []
    for name, value in args:
        name, value = str(name), str(value)
        if name == "xhw":
            what_if_texts += value.split(",")
        elif name in KNOWN:
            values[name] = value
        elif name not in ROOFLINE_PARAMS:  # the roofline's are carried through the lab (pages/links.py)
            notices.append((name[:40], value[:40], Why("unknown_parameter")))

    def bad(name: str, why: Why) -> None:
        notices.append((name, values[name][:40], why))

    state = OpsState(what_if=what_ifs(what_if_texts, len(hardware), notices))
    if "model" in values:
        if values["model"] in model_ids():
            state = replace(state, model=values["model"])
        else:
            bad("model", Why("unknown_model"))
    if "preset" in values:
        found = [p for p in presets(state.model) if p["id"] == values["preset"]]
        if values["preset"] == "seed000":
            state = replace(state, op="seed000")
        elif found:
            state = state_from_preset(found[0], state)
        else:
            bad("preset", Why("unknown_preset"))
    changes: dict[str, object] = {}
    for name, value in values.items():
        if name in ("model", "preset", "dtype"):
            continue
        try:
            parsed = field_value(name, value, notices)
        except Invalid as exc:
            bad(name, exc.why)
            continue
        if parsed is not KEEP:
            changes[name] = parsed
    state = replace(state, **changes)
    if "dtype" in values:
        allowed = VALUE_DTYPES if state.op == "elementwise" else DTYPES
        if values["dtype"] in allowed:
            state = replace(state, dtype=values["dtype"])
        else:
            bad("dtype", Why("one_of", {"allowed": ", ".join(allowed)}))
    if state.op != "elementwise" and state.dtype not in DTYPES:  # fp32 from a preset of another kind
        state = replace(state, dtype="bf16")
    try:
        spec_of(state)
    except EngineInputError as exc:  # the fields disagree (groups, kernel > input, too many kernels)
        given = ",".join(f"{n}={values[n]}" for n in FIELDS_OF[state.op] if n in values) or state.op
        notices.append((exc.field, given[:40], exc))  # said from its code where it has one
        state = replace(
            OpsState(), op=state.op, model=state.model, overhead_us=state.overhead_us, what_if=state.what_if
        )
    return state, notices


def what_ifs(texts: list[str], taken: int, notices: list[Notice]) -> tuple[str, ...]:
    """The valid what-if short forms, each name once, at most MAX_HARDWARE - `taken`; the rest
    is named in `notices` with the engine's reason (which gives the format)."""
    good = valid_what_ifs(texts, lambda name, value, why: notices.append((name, value[:40], why)))
    room = max(MAX_HARDWARE - taken, 0)
    if len(good) > room:
        notices.append(("xhw", ",".join(good[room:])[:40], Why("max_accelerators_what_if", {"n": MAX_HARDWARE})))
        good = good[:room]
    return good


def _num(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) and x != int(x) else str(int(x))


def state_args(state: OpsState) -> list[tuple[str, str]]:
    """The canonical parameters of a state: the op's own fields, nothing left at another op's."""
    out: list[tuple[str, str]] = [("op", state.op)]
    if state.op == "gemm":
        out += [("m", str(state.m)), ("n", str(state.n)), ("k", str(state.k))]
        if state.tile:
            out.append(("tile", state.tile))
        if state.bias:
            out.append(("bias", "1"))
        if state.act:
            out.append(("act", state.act))
        if state.bias or state.act:
            out.append(("fused", "1" if state.fused else "0"))
    elif state.op == "conv2d":
        out += [(name, str(getattr(state, name))) for name in FIELDS_OF["conv2d"]]
    elif state.op == "elementwise":
        out += [
            ("shape", ",".join(str(d) for d in state.shape)),
            ("ops", ",".join(state.ops)),
            ("count", str(state.count)),
            ("fused", "1" if state.fused else "0"),
        ]
    if state.op != "seed000":
        out.append(("dtype", state.dtype))
        if state.overhead_us:
            out.append(("overhead_us", _num(state.overhead_us)))
    out.append(("model", state.model))  # shared by every tab: the model the decode projections use
    return out


# What the lab reads itself: its fields and the what-ifs (the rest of the roofline's travels through).
OWN = KNOWN | {"xhw"}


def lab_query(view: View, state: OpsState, hardware: tuple[str, ...]) -> dict:
    """The link data of this lab view (pages/links.py): its canonical query, what-ifs last, one
    `xhw=` each, the roofline's parameters it carries, and the tabs' links."""
    own = [*state_args(state), *(("xhw", w) for w in state.what_if)]
    return lab_link(replace(view, hardware=hardware, tab="ops"), own, view.carry)


def spec_of(state: OpsState):
    """The engine's op spec for this state (EngineInputError when the fields disagree)."""
    if state.op == "gemm":
        return GemmSpec(
            state.m,
            state.n,
            state.k,
            state.dtype,
            tile=parse_tile(state.tile) if state.tile else None,
            bias=state.bias,
            activation=state.act or None,
            fused_epilogue=state.fused,
        )
    if state.op == "conv2d":
        return Conv2dSpec(
            state.batch,
            state.height,
            state.width,
            state.cin,
            state.cout,
            state.kernel,
            state.stride,
            state.padding,
            state.groups,
            state.dtype,
        )
    if state.op == "elementwise":
        return ElementwiseSpec(state.shape, state.ops, state.count, state.fused, state.dtype)
    return None
