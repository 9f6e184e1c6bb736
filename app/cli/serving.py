"""`llm-roofline serving ...`: a serving instance at a concurrency, or a concurrency sweep (bound, estimate)."""

from __future__ import annotations

import argparse

from engine.precision import DTYPES
from engine.serving import DEFAULT_MEMORY_UTILIZATION, ServingScenario, serving_estimate
from engine.serving.curve import serving_curve

from ..service import serving_inputs
from .common import print_json


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    s = sub.add_parser("serving", help="a serving instance at a concurrency: TTFT, TPOT, throughput (bound, estimate)")
    s.add_argument("--model", required=True, help="preset id or Hugging Face repo id")
    s.add_argument("--hardware", required=True, help="accelerator id")
    s.add_argument("--backend", choices=("trtllm", "vllm", "sglang"), help="calibration to use (default: any)")
    s.add_argument("--concurrency", type=int, default=16, help="requests in flight (default 16)")
    s.add_argument("--curve", type=int, nargs="+", metavar="C", help="a concurrency sweep instead: C1 C2 ...")
    s.add_argument("--input-tokens", type=int, default=1024)
    s.add_argument("--output-tokens", type=int, default=1024)
    s.add_argument(
        "--tp", type=int, default=1, help="tensor parallel (attention), at most the accelerator's scale-up domain"
    )
    s.add_argument("--attention-dp", type=int, default=1, help="attention data-parallel ranks")
    s.add_argument("--moe-tp", type=int, default=1, help="MoE tensor parallel")
    s.add_argument("--ep", type=int, default=1, help="expert parallel")
    s.add_argument("--weight-dtype", choices=DTYPES, default="bf16")
    s.add_argument("--compute-dtype", choices=DTYPES, default="bf16")
    s.add_argument("--kv-dtype", choices=DTYPES, default="bf16")
    s.add_argument(
        "--memory-utilization",
        type=float,
        default=DEFAULT_MEMORY_UTILIZATION,
        help="fraction of each GPU's memory the server fills (default 0.9, vLLM's default)",
    )
    s.add_argument("--json", action="store_true", help="print the full answer as JSON")
    s.set_defaults(func=_serving)


def _scenario(args: argparse.Namespace, concurrency: int) -> ServingScenario:
    return ServingScenario(
        concurrency=concurrency,
        input_tokens=args.input_tokens,
        output_tokens=args.output_tokens,
        tensor_parallel=args.tp,
        attention_data_parallel=args.attention_dp,
        moe_tensor_parallel=args.moe_tp,
        expert_parallel=args.ep,
        weight_dtype=args.weight_dtype,
        compute_dtype=args.compute_dtype,
        kv_dtype=args.kv_dtype,
        memory_utilization=args.memory_utilization,
        backend=args.backend,
    )


def _serving(args: argparse.Namespace) -> int:
    model, hw = serving_inputs(args.model, args.hardware, args.tp, "--tp")
    if args.curve:
        result = serving_curve(model, hw, _scenario(args, 1), args.curve)
        if args.json:
            print_json(result)
            return 0
        print(f"{result['model']} on {result['gpus']} x {result['hardware']} (calibration {result['calibration']})")
        print(f"{'C':>6} {'run':>6} {'queue':>6} {'TPOT bound ms':>14} {'TPOT est ms':>12} {'tok/s/GPU est':>14}")
        for p in result["points"]:
            print(
                f"{p['concurrency']:>6} {p['running_batch']:>6} {p['queued']:>6} {p['bound']['tpot_s'] * 1e3:>14.3f}"
                f" {p['estimate']['tpot_s'] * 1e3:>12.3f} {p['estimate']['output_tokens_per_s_per_gpu']:>14.1f}"
            )
        return 0
    result = serving_estimate(model, hw, _scenario(args, args.concurrency))
    if args.json:
        print_json(result)
        return 0
    _print_answer(result)
    return 0


def _print_answer(r: dict) -> None:
    cal = r["calibration"]
    print(f"{r['model']} on {r['gpus']} x {r['hardware']}: running batch {r['running_batch']}, queued {r['queued']}")
    print(f"calibration {cal['id']} (backend {cal['backend']}, family {cal['family']}, {cal['rows']} measured runs)")
    b, e = r["bound"], r["estimate"]
    print(f"{'':<26}{'bound':>12}{'estimate':>12}  estimate range (p10-p90)")
    lo, hi = e["ttft_s_range"]
    print(f"{'TTFT ms':<26}{b['ttft_s'] * 1e3:>12.2f}{e['ttft_s'] * 1e3:>12.2f}  {lo * 1e3:.2f}-{hi * 1e3:.2f}")
    lo, hi = e["tpot_s_range"]
    print(f"{'TPOT ms':<26}{b['tpot_s'] * 1e3:>12.3f}{e['tpot_s'] * 1e3:>12.3f}  {lo * 1e3:.3f}-{hi * 1e3:.3f}")
    for key, label in (
        ("output_tokens_per_s_per_gpu", "output tokens/s per GPU"),
        ("tokens_per_s_per_user", "tokens/s per user"),
    ):
        print(f"{label:<26}{b[key]:>12.1f}{e[key]:>12.1f}")
    print("TPOT parts (ms):")
    for part in ("decode_s", "prefill_share_s", "communication_s", "overhead_s"):
        bound_ms = r["breakdown"]["tpot"]["bound"][part] * 1e3
        est_ms = r["breakdown"]["tpot"]["estimate"][part] * 1e3
        print(f"  {part[:-2].replace('_', ' '):<24}{bound_ms:>12.3f}{est_ms:>12.3f}")
    for w in r["warnings"]:
        print(f"warning: {w}")
