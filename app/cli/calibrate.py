"""`llm-roofline calibrate`: measure this machine's bandwidth and FLOP/s roofs (app/calibrate.py)."""

from __future__ import annotations

import argparse
import sys


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    c = sub.add_parser("calibrate", help="measure this machine's bandwidth and FLOP/s roofs")
    c.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    c.add_argument("--size", choices=("small", "full"), default="full", help="small: a quick check")
    c.add_argument("--base", default=None, help="catalogue id whose datasheet roofs to keep (e.g. h200-sxm)")
    c.add_argument("--id", default=None, help="id of the written accelerator (default <base>-calibrated)")
    c.add_argument("--out", default=None, help="write the accelerator YAML here")
    c.set_defaults(func=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    import yaml

    from ..calibrate import calibrate_cpu, calibrate_cuda, report, to_accelerator

    try:
        result = calibrate_cuda(args.size) if args.device == "cuda" else calibrate_cpu(args.size)
    except (ImportError, RuntimeError) as exc:
        print(f"llm-roofline: error: calibrate --device {args.device}: {exc}", file=sys.stderr)
        return 2
    default_id = f"{args.base}-calibrated" if args.base else f"{args.device}-calibrated"
    acc = to_accelerator(result, args.id or default_id, args.base)
    print(report(result, acc))
    if args.out:
        text = yaml.safe_dump(acc.model_dump(), sort_keys=False, width=100, allow_unicode=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("# Written by llm-roofline calibrate: datasheet roofs plus the measured ones.\n" + text)
        print(f"wrote {args.out} (drop it into $LLM_ROOFLINE_HARDWARE_DIR; the file name must be its id: {acc.id})")
    return 0
