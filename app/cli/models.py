"""`llm-roofline models`: the model presets."""

from __future__ import annotations

import argparse
import json
import sys

from engine.model_catalog import get_model, model_ids


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    m = sub.add_parser("models", help="list the model presets")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=_models)


def _models(args: argparse.Namespace) -> int:
    rows = [get_model(mid).summary() for mid in model_ids()]
    if args.json:
        json.dump({"items": rows}, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{'id':<22}{'family':<8}{'params':>9}{'layers':>7}{'heads':>6}{'kv':>4}")
    for r in rows:
        print(
            f"{r['id']:<22}{r['family']:<8}{r['num_params'] / 1e9:>8.2f}B{r['num_layers']:>7}"
            f"{r['num_heads']:>6}{r['num_kv_heads']:>4}"
        )
    return 0
