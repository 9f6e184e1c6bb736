"""`llm-roofline` command line: one module per command group, each with `register(subparsers)`.

A new command group is one module here and one entry in COMMANDS.
"""

from __future__ import annotations

import argparse
import sys

from engine.errors import EngineInputError

from . import (
    analyze,
    calibrate,
    hardware,
    measurements,
    models,
    ops,
    plan,
    published,
    serve,
    serving,
    training,
    validate,
)

# `llm-roofline --help` lists the commands in this order.
COMMANDS = (
    analyze,
    hardware,
    training,
    published,
    models,
    measurements,
    calibrate,
    ops,
    serving,
    plan,
    validate,
    serve,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llm-roofline", description="Place LLM inference on the roofline.")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except EngineInputError as exc:
        print(f"llm-roofline: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `llm-roofline ... | head`: the reader has gone, not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
