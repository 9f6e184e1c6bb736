"""The op lab (`tab=ops`): one kernel (GEMM, conv2d, elementwise chain) or seed 000's chart on
the roofline of the selected accelerators, with launch overhead as the third regime.

Every number comes from engine/oplab.py (`lab`, `seed000_chart`, `op_presets`), the same
functions behind `/api/v1/ops` and `llm-roofline ops`; this module parses the link, calls the
engine and formats its fields. The link is the state: `?tab=ops&op=gemm&m=4096&n=4096&k=4096&
hw=h100-sxm5` is parsed here (`parse_args`), the page is rendered from it server-side, every
control change writes the canonical query back (`lab_query`, replaceState in
assets/06-lab-ops.js), and a preset is a link to its query.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from urllib.parse import urlencode

from dash import ClientsideFunction, Input, Output, State, dcc, html

from engine.errors import EngineInputError
from engine.hardware import catalogue, get_accelerator
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
    lab,
    op_presets,
    parse_tile,
    seed000_chart,
)
from engine.ops import ELEMENTWISE_KINDS
from engine.precision import DTYPES

from ..units import duration, plain, si
from .i18n import STRINGS, t
from .lab_ops_figures import SERIES_ORDER, op_figure, series_name
from .tabs import lab_shell
from .url_state import DEFAULT_HARDWARE, MAX_HARDWARE, View

KINDS = ("gemm", "conv2d", "elementwise", "seed000")
ACTS = ("silu", "gelu")
DEFAULT_MODEL = "llama-2-7b"  # seed 000's "7B"; the API's and the CLI's default for the chart
MAX_OVERHEAD_US = MAX_LAUNCH_OVERHEAD_S * 1e6


@dataclass(frozen=True)
class OpsState:
    """What the lab shows, every field valid on its own (cross-field checks: `spec_of`)."""

    op: str = "gemm"
    dtype: str = "bf16"
    overhead_us: float = 0.0  # launch overhead per kernel
    model: str = DEFAULT_MODEL  # the decode projections' and seed 000's decode step's model
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
    # elementwise chain (seed 003 §5: ten ops on [32, 2048, 4096])
    shape: tuple[int, ...] = (32, 2048, 4096)
    ops: tuple[str, ...] = ("scale",)
    count: int = 10


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
KNOWN = frozenset({"op", "dtype", "overhead_us", "model", "preset"} | {f.name for f in fields(OpsState)})

Notice = tuple[str, str, str]  # (parameter, value, why): the page shows it with t("notice_ignored")


def _int(value: str, low: int, high: int) -> int | None:
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        return None
    n = int(value)
    return n if low <= n <= high else None


def _flag(value: str) -> bool | None:
    return {"1": True, "0": False, "true": True, "false": False}.get(value.lower())


def _shape(value: str) -> tuple[int, ...] | None:
    parts = value.replace("x", ",").split(",")
    if not 1 <= len(parts) <= MAX_SHAPE_DIMS:
        return None
    dims = [_int(p.strip(), 1, MAX_ELEMENTS) for p in parts]
    if any(d is None for d in dims) or math.prod(dims) > MAX_ELEMENTS:  # type: ignore[arg-type]
        return None
    return tuple(dims)  # type: ignore[arg-type]


# ---- presets: links to their query ------------------------------------------------------


def presets(model: str) -> list[dict]:
    """The engine's one-click ops (the seed shapes, then `model`'s decode projections)."""
    return op_presets(get_model(model))


def state_from_preset(preset: dict, base: OpsState) -> OpsState:
    """A preset (an API `op` body) as a fresh state that keeps the model."""
    op = preset["op"]
    kind = op["kind"]
    state = OpsState(
        model=base.model,
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


# ---- the link <-> the state ---------------------------------------------------------------


def parse_args(args) -> tuple[OpsState, list[Notice]]:
    """The lab's query parameters ((name, value) pairs, last one wins) -> a valid state and
    what was ignored. Anything unknown, out of range or inconsistent is dropped with a
    notice, never an error: `preset=` first, then the fields on top of it."""
    notices: list[Notice] = []
    values: dict[str, str] = {}
    for name, value in args:
        name, value = str(name), str(value)
        if name in KNOWN:
            values[name] = value
        else:
            notices.append((name[:40], value[:40], "unknown parameter"))

    def bad(name: str, why: str) -> None:
        notices.append((name, values[name][:40], why))

    state = OpsState()
    if "model" in values:
        if values["model"] in model_ids():
            state = replace(state, model=values["model"])
        else:
            bad("model", "unknown model")
    if "preset" in values:
        found = [p for p in presets(state.model) if p["id"] == values["preset"]]
        if values["preset"] == "seed000":
            state = replace(state, op="seed000")
        elif found:
            state = state_from_preset(found[0], state)
        else:
            bad("preset", "unknown preset")
    changes: dict[str, object] = {}
    for name, value in values.items():
        if name in ("model", "preset", "dtype"):
            continue
        if name == "op":
            if value in KINDS:
                changes["op"] = value
            else:
                bad(name, "one of " + ", ".join(KINDS))
        elif name in INT_FIELDS:
            n = _int(value, *INT_FIELDS[name])
            if n is None:
                bad(name, "not an integer in {}..{}".format(*INT_FIELDS[name]))
            else:
                changes[name] = n
        elif name == "overhead_us":
            x = _float(value, 0.0, MAX_OVERHEAD_US)
            if x is None:
                bad(name, f"a launch overhead in µs, 0..{MAX_OVERHEAD_US:,.0f}")
            else:
                changes[name] = x
        elif name in ("bias", "fused"):
            flag = _flag(value)
            if flag is None:
                bad(name, "0 or 1")
            else:
                changes[name] = flag
        elif name == "act":
            if value in ACTS or value in ("", "none"):
                changes[name] = "" if value == "none" else value
            else:
                bad(name, "none, silu or gelu")
        elif name == "tile":
            if value in ("", "off", "0"):
                changes[name] = ""
            else:
                try:
                    parse_tile(value)
                    changes[name] = value.lower()
                except EngineInputError as exc:
                    bad(name, str(exc))
        elif name == "shape":
            shape = _shape(value)
            if shape is None:
                bad(name, f"1 to {MAX_SHAPE_DIMS} positive sizes, e.g. 32,2048,4096")
            else:
                changes[name] = shape
        elif name == "ops":
            names = [o for o in value.split(",") if o]
            good = tuple(o for o in names if o in ELEMENTWISE_KINDS)[:MAX_CHAIN_OPS]
            for o in names:
                if o not in ELEMENTWISE_KINDS:
                    notices.append(("ops", o[:40], "unknown elementwise op"))
            if good:
                changes[name] = good
            elif not names:
                bad(name, "an op list, e.g. add,silu")
    state = replace(state, **changes)
    if "dtype" in values:
        allowed = VALUE_DTYPES if state.op == "elementwise" else DTYPES
        if values["dtype"] in allowed:
            state = replace(state, dtype=values["dtype"])
        else:
            bad("dtype", "one of " + ", ".join(allowed))
    if state.op != "elementwise" and state.dtype not in DTYPES:  # fp32 from a preset of another kind
        state = replace(state, dtype="bf16")
    try:
        spec_of(state)
    except EngineInputError as exc:  # the fields disagree (groups, kernel > input, too many kernels)
        given = ",".join(f"{n}={values[n]}" for n in FIELDS_OF[state.op] if n in values) or state.op
        notices.append((exc.field, given[:40], str(exc)))
        state = replace(OpsState(), op=state.op, model=state.model, overhead_us=state.overhead_us)
    return state, notices


def _float(value: str, low: float, high: float) -> float | None:
    if len(value) > 20:
        return None
    try:
        x = float(value)
    except ValueError:
        return None
    return x if low <= x <= high else None  # NaN fails both


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
    if state.model != DEFAULT_MODEL or state.op == "seed000":
        out.append(("model", state.model))
    return out


def lab_query(view: View, state: OpsState, hardware: tuple[str, ...]) -> str:
    """The query string that reproduces this lab view (without '?')."""
    q = [("tab", "ops"), *state_args(state), ("hw", ",".join(hardware)), ("lang", view.lang), ("theme", view.theme)]
    if view.embed:
        q.append(("embed", "1"))
    return urlencode(q, safe=",")


# ---- the controls' values -> the same parser -----------------------------------------------

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
        if name in BOXES:
            args.append((name, "1" if isinstance(value, list) and value else "0"))
        elif name == "ops":
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                args.append(("ops", ",".join(v[:40] for v in value[: MAX_CHAIN_OPS + 1])))
            else:
                notices.append(("ops", str(value)[:40], "an op list, e.g. add,silu"))
        else:
            text = _text(value)
            param = "overhead_us" if name == "overhead" else name
            if text is None:
                if not (name == "tile" and value is None):
                    notices.append((param, str(value)[:40], "empty or not a number: the default is used"))
            else:
                args.append((param, text))
    state, parsed = parse_args(args)
    return state, _hardware(values.get("hardware"), notices), notices + parsed


def _hardware(value: object, notices: list[Notice]) -> tuple[str, ...]:
    known = catalogue()
    ids = [h for h in value if isinstance(h, str)] if isinstance(value, list) else []
    good = tuple(dict.fromkeys(h for h in ids if h in known))
    if len(good) > MAX_HARDWARE:
        notices.append(("hw", ",".join(good[MAX_HARDWARE:])[:40], f"at most {MAX_HARDWARE} accelerators at once"))
        good = good[:MAX_HARDWARE]
    if not good:
        notices.append(("hw", ",".join(ids)[:40], "no accelerator selected: the defaults are shown"))
        good = DEFAULT_HARDWARE
    return good


# ---- the engine ---------------------------------------------------------------------------


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


# series id of the spec as given / of each alternative the engine returns
def _series_id(state: OpsState, view: str | None, has_views: bool = True) -> str:
    """`view`: the engine's name of an alternative (fused, unfused, im2col); None: the op as
    given, `has_views` when the engine returned alternatives to it."""
    if view is None:
        if state.op == "conv2d":
            return "direct"
        if not has_views:
            return state.op
        view = "fused" if state.fused else "unfused"
    return f"gemm-{view}" if state.op == "gemm" else view


def compute(state: OpsState, hardware: tuple[str, ...]) -> dict:
    """Engine results as series: [{id, label, primary, results: one per accelerator}], plus
    the engine's tile view, im2col shape and whether the conv is depthwise."""
    accelerators = [get_accelerator(h) for h in hardware]
    if state.op == "seed000":
        chart = seed000_chart(accelerators, get_model(state.model))
        series = [
            {"id": p["id"], "label": p["name"], "source": p["source"], "primary": True, "results": p["results"]}
            for p in chart["points"]
        ]
        return {"series": series, "name": None, "tile": None, "im2col": None, "depthwise": False}
    spec = spec_of(state)
    result = lab(spec, accelerators, state.overhead_us * 1e-6)
    first = result["results"][0]
    series = [
        {
            "id": _series_id(state, None, bool(first["alternatives"])),
            "label": result["name"],
            "primary": True,
            "results": result["results"],
        }
    ]
    for alt in first["alternatives"]:
        series.append(
            {
                "id": _series_id(state, alt),
                "label": alt,
                "primary": False,
                "results": [r["alternatives"][alt] | {k: r[k] for k in ("hardware_id", "hardware_name")} for r in
                            result["results"]],
            }
        )  # fmt: skip
    series.sort(key=lambda s: SERIES_ORDER.get(s["id"], 0))
    return {
        "series": series,
        "name": result["name"],
        "tile": result["tile"],
        "im2col": result["im2col"],
        "depthwise": state.op == "conv2d" and spec.depthwise,
    }


# ---- rendering ----------------------------------------------------------------------------


def _bound(bound: str, lang: str) -> str:
    return t(f"lab_ops_bound_{bound}", lang)


def _time(r: dict, key: str) -> str:
    return duration(r[key]) if key in r else "—"


COLUMNS = ("gpu", "view", "flops", "bytes", "intensity", "time", "compute", "memory", "overhead", "bound", "kernels")


def results_table(computed: dict, lang: str) -> html.Table:
    """Per accelerator, every view of the op side by side (adjacent rows)."""
    rows = []
    has_views = computed["series"][0]["id"] in SERIES_ORDER
    n_hw = len(computed["series"][0]["results"])
    for i in range(n_hw):
        for s in computed["series"]:
            r = s["results"][i]
            cells = [
                r["hardware_name"],
                series_name(s, lang),
                si(r["flops"], "FLOP"),
                si(r["bytes"], "B"),
                plain(r["intensity"]),
                duration(r["time_s"]),
                _time(r, "compute_time_s"),
                _time(r, "memory_time_s"),
                _time(r, "overhead_time_s"),
                _bound(r["bound"], lang),
                str(r["kernels"]),
            ]
            rows.append(
                html.Tr(
                    [html.Td(c) for c in cells],
                    className=f"bound-{r['bound']}" + (" primary" if s["primary"] and has_views else ""),
                    **{"data-hw": r["hardware_id"], "data-series": s["id"]},
                )
            )
    head = html.Tr([html.Th(t(f"lab_ops_col_{c}", lang)) for c in COLUMNS])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="lab-table", id="lab-results-table")


def views_table(computed: dict, lang: str) -> html.Table | None:
    """The op's views on the first accelerator as columns: unfused | fused, direct | im2col."""
    series = computed["series"]
    if len(series) < 2 or series[0]["id"] not in SERIES_ORDER:
        return None
    first = [s["results"][0] for s in series]
    lines = [
        ("flops", lambda r: si(r["flops"], "FLOP")),
        ("bytes", lambda r: si(r["bytes"], "B")),
        ("intensity", lambda r: plain(r["intensity"])),
        ("time", lambda r: duration(r["time_s"])),
        ("bound", lambda r: _bound(r["bound"], lang)),
        ("kernels", lambda r: str(r["kernels"])),
    ]
    head = html.Tr([html.Th(first[0]["hardware_name"])] + [html.Th(series_name(s, lang)) for s in series])
    body = [html.Tr([html.Th(t(f"lab_ops_col_{key}", lang))] + [html.Td(f(r)) for r in first]) for key, f in lines]
    return html.Table([html.Thead(head), html.Tbody(body)], className="lab-table lab-views", id="lab-views-table")


def kernels_table(computed: dict, lang: str) -> html.Table | None:
    """The kernels behind each view on the first accelerator (engine `ops` rows)."""
    rows = []
    for s in computed["series"]:
        r = s["results"][0]
        for op in r.get("ops", []):
            cells = [
                series_name(s, lang),
                op["name"],
                str(op["count"]),
                si(op["flops"], "FLOP"),
                si(op["bytes"], "B"),
                plain(op["intensity"]),
                duration(op["time_s"]),
                _bound(op["bound"], lang),
            ]
            rows.append(html.Tr([html.Td(c) for c in cells]))
    if not rows:
        return None
    cols = ("view", "kernel", "kernels", "flops", "bytes", "intensity", "time", "bound")
    head = html.Tr([html.Th(t(f"lab_ops_col_{c}", lang)) for c in cols])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="lab-table", id="lab-kernels-table")


def summary(computed: dict, lang: str) -> list:
    """One sentence per view on the first accelerator, from the engine's fields."""
    out = [html.P(html.Strong(computed["name"]))] if computed["name"] and len(computed["series"]) > 1 else []
    for s in computed["series"]:
        r = s["results"][0]
        out.append(
            html.P(
                t(
                    "lab_ops_summary",
                    lang,
                    name=series_name(s, lang),
                    hw=r["hardware_name"],
                    flops=si(r["flops"], "FLOP"),
                    bytes=si(r["bytes"], "B"),
                    intensity=plain(r["intensity"]),
                    bound=_bound(r["bound"], lang),
                    time=duration(r["time_s"]),
                    compute=duration(r["compute_time_s"]),
                    memory=duration(r["memory_time_s"]),
                )
            )
        )
    return out


def details(computed: dict, lang: str) -> list:
    """The tile view (both conventions), the im2col GEMM, the depthwise note."""
    out: list = []
    tile = computed["tile"]
    if tile:
        head = html.Tr([html.Th(t(f"lab_ops_col_{c}", lang)) for c in ("convention", "flops", "bytes", "intensity")])
        rows = [
            html.Tr(
                [
                    html.Td(t(f"lab_ops_tile_{key}", lang)),
                    html.Td(si(tile[key]["flops"], "FLOP")),
                    html.Td(si(tile[key]["bytes"], "B")),
                    html.Td(plain(tile[key]["intensity"])),
                ],
                **{"data-convention": key},
            )
            for key in ("c_read_modify_write", "read_once_write_once", "no_l2_reuse")
        ]
        out += [
            html.H3(t("lab_ops_tile_title", lang, m=tile["tile_m"], n=tile["tile_n"], k=tile["tile_k"])),
            html.P(t("lab_ops_tile_help", lang, tiles=f"{tile['tiles']:,}"), className="help"),
            html.Table([html.Thead(head), html.Tbody(rows)], className="lab-table", id="lab-tile-table"),
        ]
    v = computed["im2col"]
    if v:
        out += [
            html.H3(t("lab_ops_im2col_title", lang)),
            html.P(
                t(
                    "lab_ops_im2col",
                    lang,
                    m=f"{v['m']:,}",
                    n=f"{v['n']:,}",
                    k=f"{v['k']:,}",
                    groups=f"{v['groups']:,}",
                    ho=f"{v['out_height']:,}",
                    wo=f"{v['out_width']:,}",
                    values=si(v["unrolled_values"]),
                    expansion=plain(v["expansion"]),
                ),
                id="lab-im2col",
            ),
        ]
    if computed["depthwise"]:
        out.append(html.P(t("lab_ops_depthwise", lang), className="help", id="lab-depthwise"))
    return out


def preset_links(view: View, state: OpsState, hardware: tuple[str, ...]) -> tuple[list, list]:
    """(seed presets + seed 000's chart, the model's decode projections) as links."""
    lang = view.lang
    seed, decode = [], []
    for p in presets(state.model):
        target = state_from_preset(p, state)
        key = f"lab_ops_preset_{p['id'].replace('-', '_')}"
        is_decode = p["id"].startswith("decode-")
        label = p["id"].removeprefix("decode-") if is_decode else (t(key, lang) if key in STRINGS else p["label"])
        link = dcc.Link(
            label,
            href="?" + lab_query(view, target, hardware),
            id=f"lab-preset-{p['id']}",
            className="lab-preset",
            title=p["label"],
        )
        (decode if is_decode else seed).append(link)
    chart = replace(OpsState(), op="seed000", model=state.model)
    seed.append(
        dcc.Link(
            t("lab_ops_preset_seed000", lang),
            href="?" + lab_query(view, chart, hardware),
            id="lab-preset-seed000",
            className="lab-preset",
        )
    )
    return seed, decode


def panels(view: View, state: OpsState, hardware: tuple[str, ...]) -> dict:
    """Everything the lab shows for a state, by component id (the page and the callback)."""
    lang = view.lang
    computed = compute(state, hardware)
    accelerators = [get_accelerator(h) for h in hardware]
    seed, decode = preset_links(view, state, hardware)
    kernels = kernels_table(computed, lang)
    views = views_table(computed, lang)
    return {
        "lab-graph": op_figure(computed, accelerators, state.dtype, lang, view.theme),
        "lab-summary": summary(computed, lang),
        "lab-views": [views] if views is not None else [],
        "lab-views-panel": views is None,
        "lab-results": results_table(computed, lang),
        "lab-details": details(computed, lang) + ([html.H3(t("lab_ops_kernels", lang)), kernels] if kernels else []),
        "lab-seed-presets": seed,
        "lab-decode-presets": decode,
        "lab-gemm-fields": state.op != "gemm",
        "lab-conv-fields": state.op != "conv2d",
        "lab-ew-fields": state.op != "elementwise",
        "lab-fused-field": state.op not in ("gemm", "elementwise"),
        "lab-dtype-field": state.op == "seed000",
    }


# ---- the page -----------------------------------------------------------------------------


def _field(label: str, *children, field_id: str | None = None, hidden: bool = False, html_for=None) -> html.Div:
    attrs = {"id": field_id} if field_id else {}
    return html.Div(
        [html.Label(label, className="field-label", htmlFor=html_for), *children],
        className="field",
        hidden=hidden,
        **attrs,
    )


def _number(name: str, value: int | float, low: float, high: float, step: float = 1) -> dcc.Input:
    return dcc.Input(
        id=f"lab-{name}",
        type="number",
        value=value,
        min=low,
        max=high,
        step=step,
        debounce=0.4,
        className="number-input",
    )


def _int_field(name: str, state: OpsState, lang: str) -> html.Div:
    return _field(
        t(f"lab_ops_{name}", lang), _number(name, getattr(state, name), *INT_FIELDS[name]), html_for=f"lab-{name}"
    )


def _dropdown_labels(lang: str) -> dict:
    from .layout import dropdown_labels  # layout imports this module

    return dropdown_labels(lang)


def controls(view: View, state: OpsState, hardware: tuple[str, ...]) -> html.Div:
    lang = view.lang
    hw_options = [{"label": a.name, "value": a.id} for a in catalogue().values()]
    dtype_options = [{"label": d, "value": d} for d in VALUE_DTYPES]
    return html.Div(
        [
            _field(
                t("lab_ops_op", lang),
                dcc.RadioItems(
                    id="lab-op",
                    options=[{"label": t(f"lab_ops_kind_{k}", lang), "value": k} for k in KINDS],
                    value=state.op,
                    className="lab-kinds",
                ),
            ),
            _field(
                t("hardware", lang),
                dcc.Dropdown(
                    id="lab-hardware",
                    options=hw_options,
                    value=list(hardware),
                    multi=True,
                    clearable=False,
                    labels=_dropdown_labels(lang),
                ),
            ),
            html.Div(
                [
                    html.Div([_int_field(name, state, lang) for name in ("m", "n", "k")], className="lab-triple"),
                    _field(
                        t("lab_ops_tile", lang),
                        dcc.Input(
                            id="lab-tile",
                            type="text",
                            value=state.tile,
                            placeholder="128x128",
                            debounce=0.4,
                            className="number-input",
                        ),
                        html.P(t("lab_ops_tile_field_help", lang), className="help"),
                        html_for="lab-tile",
                    ),
                    _field(
                        t("lab_ops_epilogue", lang),
                        dcc.Checklist(
                            id="lab-bias",
                            options=[{"label": t("lab_ops_bias", lang), "value": "on"}],
                            value=["on"] if state.bias else [],
                            className="toggle",
                        ),
                        dcc.RadioItems(
                            id="lab-act",
                            options=[{"label": t("lab_ops_act_none", lang), "value": ""}]
                            + [{"label": a, "value": a} for a in ACTS],
                            value=state.act,
                            inline=True,
                            className="toggle",
                        ),
                    ),
                ],
                id="lab-gemm-fields",
                className="lab-fields",
                hidden=state.op != "gemm",
            ),
            html.Div(
                [
                    html.Div(
                        [_int_field(name, state, lang) for name in FIELDS_OF["conv2d"]],
                        className="lab-triple",
                    )
                ],
                id="lab-conv-fields",
                className="lab-fields",
                hidden=state.op != "conv2d",
            ),
            html.Div(
                [
                    _field(
                        t("lab_ops_shape", lang),
                        dcc.Input(
                            id="lab-shape",
                            type="text",
                            value=",".join(str(d) for d in state.shape),
                            debounce=0.4,
                            className="number-input",
                        ),
                        html_for="lab-shape",
                    ),
                    _field(
                        t("lab_ops_ops", lang),
                        dcc.Dropdown(
                            id="lab-ops",
                            options=[{"label": k, "value": k} for k in ELEMENTWISE_KINDS],
                            value=list(state.ops),
                            multi=True,
                            clearable=False,
                            labels=_dropdown_labels(lang),
                        ),
                    ),
                    _int_field("count", state, lang),
                ],
                id="lab-ew-fields",
                className="lab-fields",
                hidden=state.op != "elementwise",
            ),
            _field(
                t("lab_ops_fusion", lang),
                dcc.Checklist(
                    id="lab-fused",
                    options=[{"label": t("lab_ops_fused", lang), "value": "on"}],
                    value=["on"] if state.fused else [],
                    className="toggle",
                ),
                html.P(t("lab_ops_fused_help", lang), className="help"),
                field_id="lab-fused-field",
                hidden=state.op not in ("gemm", "elementwise"),
            ),
            html.Div(
                [
                    _field(
                        t("lab_ops_dtype", lang),
                        dcc.Dropdown(id="lab-dtype", options=dtype_options, value=state.dtype, clearable=False),
                    ),
                    _field(
                        t("lab_ops_overhead", lang),
                        _number("overhead", state.overhead_us, 0, MAX_OVERHEAD_US, 0.5),
                        html.P(t("lab_ops_overhead_help", lang), className="help"),
                        html_for="lab-overhead",
                    ),
                ],
                id="lab-dtype-field",
                hidden=state.op == "seed000",
            ),
        ],
        className="controls lab-controls",
        id="lab-controls",
    )


def _section(title: str, *children, section_id: str) -> html.Section:
    return html.Section([html.H2(title), *children], className="panel", id=section_id)


def page(view: View) -> html.Div:
    """The lab for the link it was opened with: parsed, computed and drawn server-side, so
    the first paint already shows the linked view."""
    lang = view.lang
    state, notices = parse_args(view.lab_args)
    hardware = view.hardware or DEFAULT_HARDWARE
    p = panels(view, state, hardware)
    graph_config = {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "png", "filename": f"oplab-{state.op}", "scale": 2},
    }
    body = html.Main(
        [
            dcc.Store(id="lab-context", data={"lang": lang, "theme": view.theme, "embed": view.embed}),
            dcc.Store(id="lab-query", data=lab_query(view, state, hardware)),
            dcc.Store(id="lab-url-sync", data=""),
            controls(view, state, hardware),
            html.Div(
                [
                    html.Div(id="lab-status", className="notices lab-status", role="status", hidden=True),
                    dcc.Graph(id="lab-graph", figure=p["lab-graph"], config=graph_config, className="lab-graph"),
                    html.Div(p["lab-summary"], id="lab-summary", className="insight"),
                ],
                className="figure lab-figure",
            ),
            html.Aside(
                [
                    _section(
                        t("lab_ops_presets", lang),
                        html.Div(p["lab-seed-presets"], id="lab-seed-presets", className="lab-presets"),
                        _field(
                            t("lab_ops_decode_of", lang),
                            dcc.Dropdown(
                                id="lab-model",
                                options=[{"label": m, "value": m} for m in model_ids()],
                                value=state.model,
                                clearable=False,
                                labels=_dropdown_labels(lang),
                            ),
                        ),
                        html.Div(p["lab-decode-presets"], id="lab-decode-presets", className="lab-presets"),
                        section_id="lab-presets",
                    ),
                    html.Section(
                        [html.H2(t("lab_ops_views", lang)), html.Div(p["lab-views"], id="lab-views")],
                        className="panel",
                        id="lab-views-panel",
                        hidden=p["lab-views-panel"],
                    ),
                ],
                className="side",
            ),
            html.Section(
                [
                    html.H2(t("lab_ops_results", lang)),
                    html.Div(p["lab-results"], id="lab-results"),
                    html.Div(p["lab-details"], id="lab-details"),
                ],
                className="panel lab-wide",
                id="lab-results-panel",
            ),
        ],
        id="ops-lab",
        className="main lab lab-ops",
    )
    lab_notices = [t("notice_ignored", lang, name=n, value=v, why=w) for n, v, w in notices]
    return lab_shell(view, [body], lab_notices)


# ---- callbacks ------------------------------------------------------------------------------

PANEL_OUTPUTS = (
    ("lab-graph", "figure"),
    ("lab-summary", "children"),
    ("lab-views", "children"),
    ("lab-views-panel", "hidden"),
    ("lab-results", "children"),
    ("lab-details", "children"),
    ("lab-seed-presets", "children"),
    ("lab-decode-presets", "children"),
    ("lab-gemm-fields", "hidden"),
    ("lab-conv-fields", "hidden"),
    ("lab-ew-fields", "hidden"),
    ("lab-fused-field", "hidden"),
    ("lab-dtype-field", "hidden"),
)


def update(values: dict, context: object, flags: object) -> tuple:
    """Controls -> every panel, the status line, the canonical query and the page's flags."""
    context = context if isinstance(context, dict) else {}
    lang = context.get("lang") if context.get("lang") in ("en", "zh") else "en"
    view = View(
        tab="ops",
        lang=lang,
        theme=context.get("theme") if context.get("theme") in ("light", "dark") else "light",
        embed=context.get("embed") is True,
    )
    state, hardware, notices = from_controls(values)
    p = panels(view, state, hardware)
    status = [html.Div(t("notice_ignored", lang, name=n, value=v, why=w)) for n, v, w in notices]
    query = lab_query(view, state, hardware)
    # render_page (callbacks.py) re-renders the page only for a query other than this one
    new_flags = (flags if isinstance(flags, dict) else {}) | {"query": query}
    return (*(p[i] for i, _ in PANEL_OUTPUTS), status, not status, query, new_flags)


def register(app) -> None:
    @app.callback(
        *(Output(i, prop) for i, prop in PANEL_OUTPUTS),
        Output("lab-status", "children"),
        Output("lab-status", "hidden"),
        Output("lab-query", "data"),
        Output("view-flags", "data", allow_duplicate=True),
        *(Input(f"lab-{name}", "value") for name in CONTROLS),
        State("lab-context", "data"),
        State("view-flags", "data"),
        prevent_initial_call=True,
    )
    def update_lab(*args):
        values = dict(zip(CONTROLS, args[: len(CONTROLS)], strict=True))
        return update(values, *args[len(CONTROLS) :])

    app.clientside_callback(
        ClientsideFunction(namespace="lab_ops", function_name="syncUrl"),
        Output("lab-url-sync", "data"),
        Input("lab-query", "data"),
        prevent_initial_call=True,
    )
