"""`llm-roofline hardware`: the accelerator catalogue."""

from __future__ import annotations

import argparse
import json
import sys

from engine.hardware import catalogue

from ..units import memory, si


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    h = sub.add_parser("hardware", help="list the accelerator catalogue")
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=_hardware)


def _hardware(args: argparse.Namespace) -> int:
    items = catalogue()
    if args.json:
        json.dump({"items": [a.model_dump() for a in items.values()]}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{'id':<16}{'name':<34}{'memory':>9}{'bandwidth':>12}{'bf16 dense':>13}{'ridge':>7}")
    for a in items.values():
        _, bf16 = a.tensor_roof("bf16")
        print(
            f"{a.id:<16}{a.name[:33]:<34}{memory(a.memory_bytes):>9}{si(a.memory_bandwidth_bytes_per_s, 'B/s'):>12}"
            f"{si(bf16, 'FLOP/s'):>13}{bf16 / a.memory_bandwidth_bytes_per_s:>7.0f}"
        )
    return 0
