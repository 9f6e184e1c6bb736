"""`llm-roofline ops ...`: the op lab on the command line (engine/oplab.py; docs/labs.md).

`--json` prints exactly what POST /api/v1/ops answers for the same op.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from engine.errors import EngineInputError
from engine.model_catalog import get_model
from engine.oplab import (
    ACTIVATIONS,
    DEFAULT_CHAIN_OP,
    STORAGE_DTYPES,
    VALUE_DTYPES,
    Conv2dSpec,
    ElementwiseSpec,
    GemmSpec,
    lab,
    op_presets,
    parse_tile,
    teaching_chart,
)
from engine.ops import ELEMENTWISE_KINDS
from engine.precision import DTYPES

from ..service import resolve_hardware
from ..units import duration, plain, si


def _hardware(args: argparse.Namespace) -> list:
    return resolve_hardware(args.hardware, "--hardware")


def _overhead_s(args: argparse.Namespace) -> float:
    return args.launch_overhead_us / 1e6


def _shape(text: str) -> tuple[int, ...]:
    parts = text.replace("x", ",").split(",")
    if not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
        raise EngineInputError(
            "op.shape",
            f"{text!r} is not a shape",
            "comma-separated sizes, e.g. 32,2048,4096",
            code="op_shape_text",
            params={"value": text},
        )
    return tuple(int(p) for p in parts)


def _gemm(args: argparse.Namespace) -> dict:
    tile = None if args.tile is None else parse_tile(args.tile)
    fields = ("m", "n", "k", "dtype", "a_dtype", "b_dtype", "c_dtype", "bias", "activation")
    spec = GemmSpec(**{f: getattr(args, f) for f in fields}, tile=tile, fused_epilogue=not args.unfused_epilogue)
    return lab(spec, _hardware(args), _overhead_s(args))


def _conv2d(args: argparse.Namespace) -> dict:
    fields = dataclasses.fields(Conv2dSpec)  # every spec field is a CLI option of the same name
    spec = Conv2dSpec(**{f.name: getattr(args, f.name) for f in fields})
    return lab(spec, _hardware(args), _overhead_s(args))


def _elementwise(args: argparse.Namespace) -> dict:
    spec = ElementwiseSpec(_shape(args.shape), tuple(args.op or [DEFAULT_CHAIN_OP]), args.count, args.fused, args.dtype)
    return lab(spec, _hardware(args), _overhead_s(args))


def _row(label: str, r: dict) -> str:
    return (
        f"{label:<18}{duration(r['time_s']):>10} {r['bound']:>9} {plain(r['intensity']):>9} "
        f"{si(r['flops'], 'FLOP'):>11} {si(r['bytes'], 'B'):>10} {r['kernels']:>7}  "
        f"{duration(r['compute_time_s'])} / {duration(r['memory_time_s'])} / {duration(r['overhead_time_s'])}"
    )


def print_lab(result: dict) -> None:
    overhead = result["launch_overhead_s"]
    print(result["name"] + (f", launch overhead {duration(overhead)} per kernel" if overhead else ""))
    print(
        f"{'accelerator':<18}{'time':>10} {'bound':>9} {'FLOP/B':>9} {'FLOPs':>11} {'bytes':>10} {'kernels':>7}  "
        "compute / memory / overhead"
    )
    for r in result["results"]:
        print(_row(r["hardware_id"] + (" (what-if)" if r["what_if"] else ""), r))
        for name, alt in r["alternatives"].items():
            print(_row(f"  {name}", alt))
    tile = result["tile"]
    if tile:
        rmw, once = tile["c_read_modify_write"], tile["read_once_write_once"]
        print(
            f"tile {tile['tile_m']}x{tile['tile_n']}x{tile['tile_k']}: {plain(rmw['intensity'])} FLOP/byte with C "
            f"read-modify-write each K step, {plain(once['intensity'])} read once/write once; "
            f"{plain(tile['no_l2_reuse']['intensity'])} for the whole GEMM if no tile hits L2"
        )
    v = result["im2col"]
    if v:
        print(
            f"im2col GEMM: {v['groups']} x (M {v['m']}, N {v['n']}, K {v['k']}); the unrolled input is "
            f"{plain(v['expansion'])}x the input"
        )


def _run(args: argparse.Namespace) -> int:
    result = args.build(args)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_lab(result)
    return 0


def _chart(args: argparse.Namespace) -> int:
    result = teaching_chart(_hardware(args), get_model(args.model), args.context)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for point in result["points"]:
        print(f"{point['name']} ({point['source']})")
        for r in point["results"]:
            print(
                f"  {r['hardware_id']:<16}{duration(r['time_s']):>10} {r['bound']:>8} "
                f"{plain(r['intensity']):>8} FLOP/B  {si(r['attainable_flops_per_s'], 'FLOP/s')}"
            )
    return 0


def _presets(args: argparse.Namespace) -> int:
    items = op_presets(None if args.model is None else get_model(args.model), args.batch)
    if args.json:
        json.dump({"items": items}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    for p in items:
        print(f"{p['id']:<22}{p['label']}")
    return 0


def _common(p: argparse.ArgumentParser, overhead: bool = True) -> None:
    p.add_argument(
        "--hardware",
        action="append",
        required=True,
        help="accelerator id, or a what-if <name>:<bandwidth TB/s>:<bf16 TFLOP/s>[:<memory GB>[:<vector TFLOP/s>]]"
        " (repeatable)",
    )
    if overhead:
        p.add_argument(
            "--launch-overhead-us",
            type=float,
            default=0.0,
            help="fixed cost per kernel in µs (a few: CUDA launch latency); time = max(compute, memory, overhead)",
        )
    p.add_argument("--json", action="store_true", help="the API's /api/v1/ops answer (SI units)")


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    ops = sub.add_parser("ops", help="the op lab: GEMM, conv2d, elementwise chains on the roofline")
    kinds = ops.add_subparsers(dest="op_kind", required=True)

    g = kinds.add_parser("gemm", help="C[m,n] = A[m,k] B[k,n], optionally with a tile view and an epilogue")
    g.add_argument("--m", type=int, required=True, help="rows of A and C (tokens)")
    g.add_argument("--n", type=int, required=True, help="columns of B and C")
    g.add_argument("--k", type=int, required=True, help="inner dimension")
    g.add_argument("--dtype", default="bf16", choices=DTYPES, help="compute dtype (selects the tensor roof)")
    for m in ("a", "b", "c"):
        g.add_argument(f"--{m}-dtype", default=None, choices=STORAGE_DTYPES, help=f"format of {m.upper()}")
    g.add_argument("--tile", default=None, help="thread-block tile MxN[xK], e.g. 128x128")
    g.add_argument("--bias", action="store_true", help="add a bias vector in the epilogue")
    g.add_argument("--activation", default=None, choices=ACTIVATIONS, help="activation in the epilogue")
    g.add_argument("--unfused-epilogue", action="store_true", help="bias/activation as separate kernels")
    _common(g)
    g.set_defaults(func=_run, build=_gemm)

    c = kinds.add_parser("conv2d", help="a 2-D convolution: direct count and im2col GEMM")
    for name, helptext in (
        ("batch", "images"),
        ("height", "input height"),
        ("width", "input width"),
        ("in-channels", "input channels"),
        ("out-channels", "output channels"),
    ):
        c.add_argument(f"--{name}", type=int, required=True, help=helptext)
    c.add_argument("--kernel", type=int, default=3, help="square kernel side")
    c.add_argument("--stride", type=int, default=1)
    c.add_argument("--padding", type=int, default=0)
    c.add_argument("--groups", type=int, default=1, help="= channels: depthwise")
    c.add_argument("--dtype", default="bf16", choices=DTYPES)
    _common(c)
    c.set_defaults(func=_run, build=_conv2d)

    e = kinds.add_parser("elementwise", help="a chain of elementwise ops, fused or not")
    e.add_argument("--shape", required=True, help="tensor shape, e.g. 32,2048,4096")
    e.add_argument(
        "--op",
        action="append",
        choices=tuple(ELEMENTWISE_KINDS),
        help=f"an op of the chain, in order (repeatable; default {DEFAULT_CHAIN_OP})",
    )
    e.add_argument("--count", type=int, default=1, help="repeats of the op list")
    e.add_argument("--fused", action="store_true", help="one kernel: read once, write once")
    e.add_argument("--dtype", default="bf16", choices=VALUE_DTYPES)
    _common(e)
    e.set_defaults(func=_run, build=_elementwise)

    ch = kinds.add_parser("chart", help="the three-op chart: 8192³ GEMM, elementwise add, a 7B decode step")
    ch.add_argument("--model", default="llama-2-7b", help="model of the decode step")
    ch.add_argument("--context", type=int, default=128, help="cached tokens of the decode step")
    _common(ch, overhead=False)
    ch.set_defaults(func=_chart)

    p = kinds.add_parser("presets", help="the one-click op specs (worked shapes, decode projections)")
    p.add_argument("--model", default=None, help="add this preset model's decode projections")
    p.add_argument("--batch", type=int, default=1, help="tokens in flight for the projections")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_presets)
