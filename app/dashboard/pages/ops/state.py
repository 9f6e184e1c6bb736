"""The op lab's state: what the lab shows (`OpsState`), read from the link through its parameter
table (params.py), with the checks between fields, and the canonical link written from the
same table.

The link is the state: `?tab=ops&op=gemm&m=4096&n=4096&k=4096&hw=h100-sxm5` is parsed here
(`parse_args`), the page is rendered from it, every control change writes the canonical link
back (`lab_query`), and a preset is a link to its query. Anything unknown, out of range or
inconsistent is dropped with a notice, never an error; the checks between an op's fields are
the engine's own (`spec_of` builds engine/oplab.py's spec). What-if accelerators travel as
`xhw=<name>:<bandwidth TB/s>:<bf16 TFLOP/s>[:<memory GB>[:<vector TFLOP/s>]]` (repeatable, or
comma-separated), parsed by engine/what_if.py like on the roofline tab.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from app.dashboard.lib.params import Why, read_link, write_link
from app.dashboard.pages import scenario
from app.dashboard.pages.links import lab_link
from app.dashboard.pages.ops.params import BY_NAME, EW, PARAMS, PRESET, RENAMED, TEACHING, fields_of, spec_of
from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE_PARAMS
from app.dashboard.pages.roofline.params import MAX_HARDWARE
from app.dashboard.pages.roofline.state import View
from engine.errors import EngineInputError
from engine.model_catalog import get_model
from engine.oplab import op_presets
from engine.precision import DTYPES

__all__ = ["OpsState", "lab_query", "parse_args", "spec_of"]

# the product's default scenario (pages/scenario.py); the API's and the CLI's teaching chart keep
# their 7B (llama-2-7b) default, named in their schema and help
DEFAULT_MODEL = scenario.MODEL


@dataclass(frozen=True)
class OpsState:
    """What the lab shows, every field valid on its own (the checks between fields: `consistent`)."""

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
    act: str = ""  # "" or an activation of the epilogue
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


Notice = tuple[str, str, object]  # (parameter, value, why: a Why or an engine error): said through i18n.reason


def presets(model: str) -> list[dict]:
    """The engine's one-click ops (the example shapes, then `model`'s decode projections)."""
    return op_presets(get_model(model))


def state_from_preset(preset: dict, base: OpsState) -> OpsState:
    """A preset (an API `op` body) as a fresh state that keeps the model and the what-ifs."""
    op = preset["op"]
    state = OpsState(
        model=base.model,
        what_if=base.what_if,
        dtype=op.get("dtype", "bf16"),
        overhead_us=round(preset.get("launch_overhead_s", 0.0) * 1e6, 6),
    )
    if op["kind"] == "gemm":
        epilogue = bool(op.get("bias")) or bool(op.get("activation"))
        gemm = {"m": op["m"], "n": op["n"], "k": op["k"], "tile": op.get("tile") or "", "bias": bool(op.get("bias"))}
        return replace(
            state, op="gemm", **gemm, act=op.get("activation") or "", fused=epilogue and op.get("fused_epilogue", True)
        )
    if op["kind"] == "conv2d":
        conv = {k: op[k] for k in ("batch", "height", "width")} | {"cin": op["in_channels"], "cout": op["out_channels"]}
        sides = {"kernel": op.get("kernel", 3), "stride": op.get("stride", 1), "padding": op.get("padding", 0)}
        return replace(state, op="conv2d", **conv, **sides, groups=op.get("groups", 1))
    ops = tuple(op.get("ops") or ("scale",))
    chain = {"shape": tuple(op["shape"]), "ops": ops, "count": op.get("count", 1), "fused": bool(op.get("fused"))}
    return replace(state, op=EW, **chain)


def preset_state(preset_id: str, model: str, bad) -> OpsState:
    """The state a `preset=` id starts from (the teaching chart, an example, a decode projection)."""
    preset_id = RENAMED.get(preset_id, preset_id)
    if preset_id == TEACHING:
        return OpsState(op=TEACHING)
    found = [p for p in presets(model) if p["id"] == preset_id]
    if not found:
        bad(PRESET, preset_id, Why("unknown_preset"))
        return OpsState()
    return state_from_preset(found[0], OpsState())


def link_values(args, notices: list[Notice]) -> dict[str, str]:
    """The lab's (name, value) pairs -> {name: value}, the last one winning, what-ifs joined;
    a name neither the lab nor the roofline reads is named in `notices`."""
    values: dict[str, str] = {}
    for name, value in args:
        name, value = str(name), str(value)
        if name == "xhw" and "xhw" in values:
            values["xhw"] += "," + value
        elif name in BY_NAME or name == PRESET:
            values[name] = value
        elif name not in ROOFLINE_PARAMS:  # the roofline's are carried through the lab (pages/links.py)
            notices.append((name[:40], value[:40], Why("unknown_parameter")))
    return values


def parse_args(args, hardware: tuple[str, ...] = ()) -> tuple[OpsState, list[Notice]]:
    """The lab's query parameters ((name, value) pairs, last one wins; `xhw` repeats) -> a
    valid state and what was ignored: `preset=` first, then the table's fields on top of it.
    `hardware`: the catalogue cards shown, which leave MAX_HARDWARE minus their number to
    the what-ifs."""
    notices: list[Notice] = []

    def bad(name: str, value: str, why: object) -> None:
        notices.append((name[:40], str(value)[:40], why))

    values = link_values(args, notices)
    changes = read_link(PARAMS, values, bad)
    base = OpsState()
    if PRESET in values:
        base = preset_state(values[PRESET], changes.get("model", base.model), bad)
    state = consistent(replace(base, **changes), hardware, bad, values)
    return state, notices


def consistent(state: OpsState, hardware: tuple[str, ...], bad, given: dict, previous: OpsState | None = None):
    """The checks between fields: the what-ifs share the accelerator limit with `hardware`, a
    GEMM or a conv computes in a tensor dtype, and the op's fields must agree (the engine's
    checks: groups, a kernel larger than its input, too many kernels). A refused combination
    is told to `bad(name, given text, why)` and the view falls back to `previous` of the same
    op, if valid, or to that op's defaults."""
    room = max(MAX_HARDWARE - len(hardware), 0)
    if len(state.what_if) > room:
        bad("xhw", ",".join(state.what_if[room:]), Why("max_accelerators_what_if", {"n": MAX_HARDWARE}))
        state = replace(state, what_if=state.what_if[:room])
    if state.op != EW and state.dtype not in DTYPES:  # fp32: a value dtype of elementwise chains only
        bad("dtype", state.dtype, Why("one_of", {"allowed": ", ".join(DTYPES)}))
        state = replace(state, dtype="bf16")
    try:
        spec_of(state)
    except EngineInputError as exc:
        named = ",".join(f"{n}={given[n]}" for n in fields_of(state.op) if n in given) or state.op
        bad(exc.field, named, exc)  # said from its code
        return fallback(state, previous)
    return state


def fallback(state: OpsState, previous: OpsState | None) -> OpsState:
    """The view shown instead of fields that disagree: the previous one of the same op, else
    that op's defaults; the op, the model, the dtype, the overhead and the what-ifs stay."""
    keep = {k: getattr(state, k) for k in ("op", "model", "dtype", "overhead_us", "what_if")}
    if previous is not None and previous.op == state.op:
        candidate = replace(previous, **keep)
        try:
            spec_of(candidate)
            return candidate
        except EngineInputError:
            pass
    return replace(OpsState(), **keep)


# What the lab reads itself: its table and `preset=` (the roofline's other parameters travel through).
OWN = frozenset(BY_NAME) | {PRESET}


def lab_query(view: View, state: OpsState, hardware: tuple[str, ...]) -> dict:
    """The link data of this lab view (pages/links.py): its canonical link written from the table
    (the op's own fields, what-ifs last, one `xhw=` each), the roofline's parameters it carries,
    and the tabs' links."""
    return lab_link(replace(view, hardware=hardware, tab="ops"), write_link(PARAMS, state), view.carry)
