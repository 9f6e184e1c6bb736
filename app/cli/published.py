"""`llm-roofline published`: published measurements beside the engine's bounds (MBU, MFU)."""

from __future__ import annotations

import argparse
import json
import sys

from engine.model_catalog import get_model
from engine.precision import DTYPES

from ..units import grouped


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    p = sub.add_parser("published", help="published measurements beside the engine's bounds (MBU, MFU)")
    p.add_argument("--model", default=None, help="only runs of this model preset (the rest are counted)")
    p.add_argument("--weight-dtype", default=None, choices=DTYPES, help="only runs with these weights")
    p.add_argument("--compute-dtype", default=None, choices=DTYPES, help="only runs with this matrix math")
    p.add_argument("--hardware", action="append", default=None, help="only runs on this accelerator (repeat)")
    p.add_argument("--json", action="store_true", help="every entry with its bound, MBU and MFU (SI units)")
    p.set_defaults(func=_published)


def _published(args: argparse.Namespace) -> int:
    from engine.hardware import get_accelerator
    from engine.published import published_for

    if args.model is not None:
        get_model(args.model)  # an unknown id is an error naming the known ones, not "0 match"
    for hardware_id in args.hardware or []:
        get_accelerator(hardware_id)
    chosen = published_for(args.model, args.weight_dtype, args.compute_dtype, args.hardware)
    items = chosen["items"]
    if args.json:
        json.dump(chosen, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{chosen['note']} Measured figures against their bounds (docs/reality-check.md).")
    if not items:
        return 0
    print(
        f"{'accelerator':<15}{'model':<13}{'prec':<5}{'TP':>3}{'batch':>6}{'in/out':>11}  "
        f"{'measured':>10}{'bound':>10}{'of bound':>9}{'MBU':>6}{'MFU':>6}  source"
    )
    units = {
        "output_tokens_per_s_per_gpu": "tok/s/GPU",
        "output_tokens_per_s": "tok/s",
        "output_tokens_per_s_per_sequence": "tok/s/user",
        "ms_per_output_token": "ms/tok",
        "ttft_ms": "ms TTFT",
    }
    for i in items:
        print(
            f"{i['accelerator']:<15}{i['model']:<13}{i['weight_dtype']:<5}{i['tensor_parallel']:>3}"
            f"{i['batch_size']:>6}{str(i['input_tokens']) + '/' + str(i['output_tokens']):>11}  "
            f"{grouped(i['value']):>10}{grouped(i['bound']):>10}{i['fraction_of_bound']:>9.0%}"
            f"{i['mbu']:>6.0%}{i['mfu']:>6.0%}  {i['source']['table']} ({i['source']['date']})"
        )
    if items:
        print("units: " + ", ".join(sorted({units[i["metric"]] for i in items})))
    return 0
