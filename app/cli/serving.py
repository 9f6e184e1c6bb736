"""`llm-roofline serving ...`: a serving instance at a concurrency, or a concurrency sweep (bound, estimate)."""

from __future__ import annotations

import argparse
import re

from engine.errors import EngineInputError
from engine.precision import DTYPES
from engine.serving import ServingScenario, serving_estimate
from engine.serving.curve import serving_curve
from engine.serving.disagg import TTFT_PART_KEYS, disaggregated_estimate
from engine.serving.scenario import DisaggScenario, KvLink, WorkerLayout
from engine.serving.speculative import METHODS, Speculative

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
        default=None,
        help="the backend's own memory knob (vLLM gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM "
        "free_gpu_memory_fraction); default: that backend's own (no backend: vLLM's 0.9)",
    )
    _disaggregated_flags(s)
    _speculative_flags(s)
    s.add_argument("--json", action="store_true", help="print the full answer as JSON")
    s.set_defaults(func=_serving)


def _disaggregated_flags(s) -> None:  # noqa: ANN001
    g = s.add_argument_group(
        "disaggregated", "prefill and decode on separate workers: any --prefill-* or --decode-* flag switches to it"
    )
    for side in ("prefill", "decode"):
        g.add_argument(f"--{side}-workers", type=int, help=f"{side} workers (default 1)")
        g.add_argument(f"--{side}-tp", type=int, help=f"{side} workers' tensor parallel (default 1)")
        g.add_argument(f"--{side}-dp", type=int, help=f"{side} workers' attention data-parallel ranks (default 1)")
        g.add_argument(f"--{side}-moe-tp", type=int, help=f"{side} workers' MoE tensor parallel (default 1)")
        g.add_argument(f"--{side}-ep", type=int, help=f"{side} workers' expert parallel (default 1)")
    g.add_argument("--prefill-batch", type=int, help="prompts each prefill rank prefills together (default 1)")
    g.add_argument("--decode-hardware", help="the decode workers' accelerator id (default: --hardware)")
    g.add_argument(
        "--kv-link",
        default="auto",
        help="the link the KV cache crosses: auto (NVLink inside one scale-up domain, else each GPU's NIC) or "
        "BANDWIDTH_GB_S[:LATENCY_US]",
    )


def _speculative_flags(s) -> None:  # noqa: ANN001
    g = s.add_argument_group("speculative decoding")
    g.add_argument("--speculative", choices=METHODS, help="draft method")
    g.add_argument("--draft-tokens", type=int, help="tokens the draft proposes per step (default 1)")
    g.add_argument("--acceptance", help="acceptance rate, or a range LOW,HIGH (default 0.7)")
    g.add_argument("--draft-model", help="the draft model's id (method draft_model)")


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
        speculative=_speculative(args),
    )


SPECULATIVE_DETAILS = (
    ("draft_tokens", "--draft-tokens"),
    ("acceptance", "--acceptance"),
    ("draft_model", "--draft-model"),
)


def _speculative(args: argparse.Namespace) -> Speculative | None:
    if args.speculative is None:
        given = [flag for name, flag in SPECULATIVE_DETAILS if getattr(args, name) is not None]
        if given:  # silently answering without the draft would read as its effect
            raise EngineInputError(
                given[0], "describes speculative decoding, which --speculative turns on", "--speculative METHOD",
                code="cli_value", params={"value": given[0], "allowed": "--speculative METHOD"},
            )  # fmt: skip
        return None
    draft_tokens = 1 if args.draft_tokens is None else args.draft_tokens
    acceptance_text = args.acceptance or "0.7"
    try:
        low, _, high = acceptance_text.partition(",")
        acceptance = (float(low), float(high or low))
    except ValueError:
        raise EngineInputError(
            "--acceptance", f"{acceptance_text[:40]!r} is not a rate or LOW,HIGH", "0.7 or 0.6,0.8", code="cli_value",
            params={"value": acceptance_text[:40], "allowed": "0.7 or 0.6,0.8"},
        ) from None  # fmt: skip
    return Speculative(args.speculative, draft_tokens, *acceptance, args.draft_model)


SIDE_FLAGS = ("workers", "tp", "dp", "moe_tp", "ep")


def _disaggregated(args: argparse.Namespace) -> DisaggScenario | None:
    given = [f"{side}_{flag}" for side in ("prefill", "decode") for flag in SIDE_FLAGS]
    given += ["prefill_batch", "decode_hardware"]
    if all(getattr(args, name) is None for name in given) and args.kv_link == "auto":
        return None
    sides = {}
    for side in ("prefill", "decode"):
        value = {flag: _given_or_one(getattr(args, f"{side}_{flag}")) for flag in SIDE_FLAGS}
        extra = (
            {"batch": _given_or_one(args.prefill_batch)} if side == "prefill" else {"hardware": args.decode_hardware}
        )
        sides[side] = WorkerLayout(value["workers"], value["tp"], value["dp"], value["moe_tp"], value["ep"], **extra)
    link = _kv_link(args.kv_link)
    try:
        return DisaggScenario(_scenario(args, args.concurrency), sides["prefill"], sides["decode"], link)
    except EngineInputError as exc:
        raise exc.named(_SIDE_FIELD_FLAGS.get(exc.field, exc.field)) from None


# A side's field as the engine names it -> the flag that sets it
_SIDE_FIELD_FLAGS = {
    f"{side}.{field}": f"--{side}-{flag}"
    for side in ("prefill", "decode")
    for field, flag in (
        ("workers", "workers"), ("tensor_parallel", "tp"), ("attention_data_parallel", "dp"),
        ("moe_tensor_parallel", "moe-tp"), ("expert_parallel", "ep"), ("batch", "batch"),
    )
}  # fmt: skip


def _given_or_one(value: int | None) -> int:
    """A side's flag as given (0 included, which the layout refuses by name), 1 when left out."""
    return 1 if value is None else value


# a plain decimal in ASCII (float() also takes "1_000" and other scripts' digits, which the API
# does not): 50, 0.5, 1e3 (a sign is read, and refused as out of range)
_DECIMAL = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _decimal(text: str) -> float:
    if not _DECIMAL.fullmatch(text):
        raise ValueError(text)
    return float(text)


def _kv_link(text: str) -> KvLink:
    if text == "auto":
        return KvLink()
    try:
        bandwidth, colon, latency = text.partition(":")
        link = KvLink(_decimal(bandwidth) * 1e9, _decimal(latency) * 1e-6 if colon else None)
        link.check()
        return link
    except EngineInputError:  # out of KvLink's range: said in the flag's own units
        raise EngineInputError(
            "--kv-link", f"{text[:40]!r} is out of range", "bandwidth 0.001-100,000 GB/s, latency 0.001-1,000,000 us",
            code="cli_value", params={"value": text[:40], "allowed": "0.001-100000 GB/s[:0.001-1000000 us]"},
        ) from None  # fmt: skip
    except ValueError:
        raise EngineInputError(
            "--kv-link", f"{text[:40]!r} is not auto or GB/s[:us]", "auto, 50 or 50:20", code="cli_value",
            params={"value": text[:40], "allowed": "auto, 50 or 50:20"},
        ) from None  # fmt: skip


# An aggregated instance's flags: with a disaggregated deployment each side has its own.
INSTANCE_FLAGS = (("tp", "--tp"), ("attention_dp", "--attention-dp"), ("moe_tp", "--moe-tp"), ("ep", "--ep"))


def _refuse_instance_flags(args: argparse.Namespace) -> None:
    """A disaggregated request that also sets an instance's layout or a curve is refused, as the
    API refuses it (the answer would silently ignore them)."""
    given = [flag for name, flag in INSTANCE_FLAGS if getattr(args, name) != 1]
    given += ["--curve"] if args.curve else []
    if args.decode_hardware == "":
        raise EngineInputError(
            "--decode-hardware", "'' is not an accelerator id", "an accelerator id, or leave it out for --hardware",
            code="cli_value", params={"value": "''", "allowed": "an accelerator id"},
        )  # fmt: skip
    if given:
        raise EngineInputError(
            given[0], "does not apply to a disaggregated deployment", "the --prefill-* and --decode-* flags",
            code="cli_disaggregated_flag", params={"allowed": "--prefill-*, --decode-*"},
        )  # fmt: skip


def _serving(args: argparse.Namespace) -> int:
    split = _disaggregated(args)
    if split is not None:
        _refuse_instance_flags(args)
        model, hw = serving_inputs(args.model, args.hardware, split.prefill.tensor_parallel, "--prefill-tp")
        # the decode side's accelerator and its TP are checked by the same rule (the engine resolves it again)
        serving_inputs(args.model, args.decode_hardware or args.hardware, split.decode.tensor_parallel, "--decode-tp")
        result = disaggregated_estimate(model, hw, split)
        if args.json:
            print_json(result)
        else:
            _print_answer(result)
        return 0
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


def _gpus_words(r: dict) -> str:
    """`36 x h200-sxm`, or each side's GPUs where decode runs on another accelerator."""
    d = r.get("disaggregated")
    if d and d["prefill"]["hardware"] != d["decode"]["hardware"]:
        pre, dec = d["prefill"], d["decode"]
        return f"{pre['gpus']} x {pre['hardware']} (prefill) + {dec['gpus']} x {dec['hardware']} (decode)"
    return f"{r['gpus']} x {r['hardware']}"


def _print_answer(r: dict) -> None:
    cal = r["calibration"]
    print(f"{r['model']} on {_gpus_words(r)}: running batch {r['running_batch']}, queued {r['queued']}")
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
    d = r.get("disaggregated")
    if d:
        pre, dec = d["prefill"], d["decode"]
        print(
            f"disaggregated: {pre['workers']} prefill x {pre['gpus'] // pre['workers']} GPUs + {dec['workers']} decode "
            f"x {dec['gpus'] // dec['workers']} GPUs; estimate: limited by {d['limited_by']}; prefill "
            f"{d['prefill_capacity_rps']:.3g} req/s, decode "
            f"{d['decode_capacity_at_memory_cap_rps']:.3g} req/s at its memory cap; balanced at "
            f"{d['balanced_ratio']:.2g} prefill workers per decode worker"
        )
        parts = r["breakdown"]["ttft"]["estimate"]
        shown = ", ".join(f"{k[:-2].replace('_', ' ')} {parts[k] * 1e3:.2f}" for k in TTFT_PART_KEYS)
        print(f"TTFT parts (ms, estimate): {shown} (fixed: the first token's handshake and routing)")
    spec = r.get("speculative")
    if spec:
        e = spec["tokens_per_step"]
        print(
            f"speculative {spec['method']}: {spec['draft_tokens']} draft tokens, {e['low']:.3g}-{e['high']:.3g} tokens "
            f"per step; bound without speculation {spec['bound_tpot_s_without_speculation'] * 1e3:.3f} ms"
        )
    for w in r["warnings"]:
        print(f"warning: {w}")
