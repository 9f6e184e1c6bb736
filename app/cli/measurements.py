"""`llm-roofline measurements FILE`: measured ops under the roofs, with their gap and a triage."""

from __future__ import annotations

import argparse
import json
import sys

from engine.analysis import Scenario
from engine.errors import EngineInputError
from engine.hardware import TENSOR_PARALLEL_DEGREES
from engine.precision import DTYPES

from ..units import duration, si


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    me = sub.add_parser("measurements", help="place measured ops under the roofs, with their gap")
    me.add_argument("file", help="a measurement file (see docs/measure.md)")
    me.add_argument("--format", required=True, choices=("csv", "json", "torch_table", "chrome_trace", "ncu_csv"))
    me.add_argument("--hardware", required=True, help="the accelerator it was measured on")
    me.add_argument("--model", default=None, help="preset: lets profiler rows without counts borrow the model's")
    me.add_argument("--batch", type=int, default=1)
    me.add_argument("--context", type=int, default=4096)
    me.add_argument("--compute-dtype", default="bf16", choices=DTYPES)
    me.add_argument("--tp", type=int, default=1, choices=TENSOR_PARALLEL_DEGREES)
    me.add_argument("--roofs", choices=("nominal", "measured"), default="nominal")
    me.add_argument("--steps", type=int, default=1, help="decode steps the profile covers")
    me.add_argument("--json", action="store_true")
    me.set_defaults(func=_measurements)


def _measurements(args: argparse.Namespace) -> int:
    from ..service import place_measurements

    try:
        with open(args.file, encoding="utf-8") as f:
            content = f.read(256 * 1024 + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise EngineInputError(
            "file", f"cannot read {args.file}: {exc}", code="file_open", params={"detail": str(exc)}
        ) from None
    if len(content) > 256 * 1024:
        raise EngineInputError(
            "file", f"{args.file} is larger than 256 KiB", code="file_size", params={"n": 256 * 1024}
        )
    scenario = Scenario(
        batch_size=args.batch,
        context_length=args.context,
        roofs=args.roofs,
        compute_dtype=args.compute_dtype,
        tensor_parallel=args.tp,
    )
    result = place_measurements(args.format, content, args.hardware, args.model, scenario, args.steps)
    from engine.hardware import get_accelerator
    from engine.triage import triage_for

    result["triage"] = triage_for(result["points"], get_accelerator(args.hardware), scenario)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{len(result['points'])} measured points on {result['hardware_id']} ({result['roofs']} roofs)")
    print(f"{'name':<28}{'time':>10}{'FLOP/byte':>11}{'achieved':>16}{'roof':>16}{'of roof':>9}")
    for p in result["points"]:
        print(
            f"{p['name'][:27]:<28}{duration(p['time_s']):>10}{p['intensity']:>11.3g}"
            f"{si(p['achieved_flops_per_s'], 'FLOP/s'):>16}{si(p['attainable_flops_per_s'], 'FLOP/s'):>16}"
            f"{p['fraction_of_roof']:>9.0%}"
        )
    if result["skipped"]:
        print("skipped (no counts): " + ", ".join(result["skipped"]))
    print("triage, by recoverable time (measured - roof = time x (1 - 1/gap)):")
    print(f"{'#':>3} {'name':<28}{'recoverable':>12}{'of profile':>11}{'gap':>7}  {'regime':<9} first check")
    for t in result["triage"]:
        print(
            f"{t['rank']:>3} {t['name'][:27]:<28}{duration(t['recoverable_time_s']):>12}"
            f"{t['recoverable_share']:>11.1%}{t['gap']:>7.2f}  {t['regime']:<9} {t['first_check']}"
        )
    return 0
