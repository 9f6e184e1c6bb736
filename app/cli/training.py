"""`llm-roofline training`: the training lab (engine/training.py): MFU/HFU, the gradient all-reduce, the memory bill."""

from __future__ import annotations

import argparse
import json
import sys

from engine.errors import EngineInputError

from ..units import duration, grouped, memory, si
from .common import model_spec
from .memory import training_verdict


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    t = sub.add_parser("training", help="training lab: MFU/HFU, the gradient all-reduce, the memory bill per GPU")
    t.add_argument("--model", default=None, help="preset id or config.json path (or the four teaching options)")
    t.add_argument("--num-params", type=float, default=None, help="teaching form: N")
    t.add_argument("--num-layers", type=int, default=None, help="teaching form: L")
    t.add_argument("--num-heads", type=int, default=None, help="teaching form: H")
    t.add_argument("--head-dim", type=int, default=None, help="teaching form: Q")
    t.add_argument("--hardware", required=True, help="accelerator id")
    t.add_argument("--gpus", type=int, required=True, help="data-parallel GPUs")
    t.add_argument("--sequence-length", type=int, required=True, help="tokens per sequence")
    t.add_argument("--tokens-per-step", type=int, required=True, help="tokens per optimizer step")
    t.add_argument("--step-time-s", type=float, default=None, help="measured step time, seconds")
    t.add_argument("--tokens-per-s", type=float, default=None, help="or the measured tokens/s")
    t.add_argument("--optimizer", choices=("adamw", "sgd_momentum"), default="adamw")
    t.add_argument("--zero-stage", type=int, default=0, help="ZeRO stage 0-3")
    t.add_argument("--recompute", choices=("none", "selective", "full"), default="none")
    t.add_argument("--dtype", choices=("bf16", "fp16"), default="bf16", help="mixed-precision training dtype")
    t.add_argument("--micro-batch-size", type=int, default=None, help="sequences per GPU per micro-batch")
    t.add_argument("--busbw", type=float, default=None, help="measured all-reduce busbw, bytes/s (nccl-tests)")
    t.add_argument("--gpus-per-node", type=int, default=8, help="GPUs one scale-up link joins")
    t.add_argument("--json", action="store_true", help="every number (SI units)")
    t.set_defaults(func=_training)


def _training(args: argparse.Namespace) -> int:
    """The training lab (engine/training.py): MFU/HFU, the gradient all-reduce, the memory bill."""
    from engine.hardware import get_accelerator
    from engine.training import run_training

    teaching = (args.num_params, args.num_layers, args.num_heads, args.head_dim)
    if args.model is None:
        if None in teaching:
            raise EngineInputError(
                "model",
                "give --model, or --num-params --num-layers --num-heads --head-dim",
                code="training_model_or_form",
            )
        spec = dict(zip(("num_params", "num_layers", "num_heads", "head_dim"), teaching, strict=True))
    else:
        spec = model_spec(args.model)
    r = run_training(
        spec,
        get_accelerator(args.hardware),
        gpus=args.gpus,
        sequence_length=args.sequence_length,
        tokens_per_step=args.tokens_per_step,
        step_time_s=args.step_time_s,
        tokens_per_s=args.tokens_per_s,
        optimizer=args.optimizer,
        zero_stage=args.zero_stage,
        recompute=args.recompute,
        dtype=args.dtype,
        micro_batch_size=args.micro_batch_size,
        bus_bandwidth_bytes_per_s=args.busbw,
        gpus_per_node=args.gpus_per_node,
    )
    if args.json:
        json.dump(r, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    st, m, mem = r["setup"], r["model"], r["memory"]
    print(
        f"{m['id']}: N = {m['num_params'] / 1e9:.3g}B, L {m['num_layers']}, H {m['num_heads']}, Q {m['head_dim']}; "
        f"{st['gpus']} x {r['hardware_id']}, T {st['sequence_length']}, {grouped(st['tokens_per_step'])} tokens/step "
        f"in {duration(r['step_time_s'])} = {grouped(r['tokens_per_s'])} tokens/s"
    )
    for key in ("mfu", "mfu_with_attention", "hfu", "hfu_with_attention", "mfu_sparse_peak"):
        value = "-" if r[key] is None else f"{r[key]:.1%}"
        print(f"  {key:<20}{value:>7}  {r['counted'][key]}")
    print(f"  {st['dtype']}: {r['dtype_note']}")
    print(
        f"gradient all-reduce: {si(r['gradient_bytes'], 'B')} at {si(r['bus_bandwidth_bytes_per_s'] or 0, 'B/s')} "
        f"busbw ({r['bus_bandwidth_source']}): {duration(r['allreduce_time_s'])}, "
        f"{r['allreduce_share_of_step']:.1%} of the step if none of it overlaps"
    )
    if st["accumulation_steps"] > 1:
        print(
            f"  {st['accumulation_steps']} micro-batches of {st['micro_batch_size']}: without no_sync() "
            f"{duration(r['allreduce_time_without_no_sync_s'])}"
        )
    if st["zero_stage"]:
        print(
            f"  ZeRO-{st['zero_stage']} traffic {duration(r['zero_communication_time_s'])} "
            f"({r['zero_communication_share_of_step']:.1%} of the step)"
        )
    print(
        f"memory per GPU ({st['optimizer']}, ZeRO-{st['zero_stage']}, {st['recompute']} recompute, "
        f"micro-batch {st['micro_batch_size']}):"
    )
    for key in ("weights_bytes", "gradients_bytes", "optimizer_bytes", "activation_bytes", "total_bytes"):
        print(f"  {key.removesuffix('_bytes'):<12}{memory(mem[key]):>10}")
    print(training_verdict(mem, r["fits"], r["overflow"]))
    if r["smallest_fix"]:
        fix = r["smallest_fix"]
        print(
            f"smallest change that fits: {fix['change']} -> {memory(fix['total_bytes'])}, "
            + (
                f"~{duration(fix['estimated_extra_time_s'])} more per step"
                if fix["estimated_extra_time_s"]
                else "no extra FLOPs or traffic"
            )
        )
    elif r["fix_note"]:
        print(r["fix_note"])
    return 0
