"""`llm-roofline plan ...`: the best way to serve a model on N GPUs under TTFT and TPOT targets."""

from __future__ import annotations

import argparse

from engine.errors import EngineInputError
from engine.hardware import get_accelerator
from engine.model_catalog import load_model
from engine.planner import MAX_TOP, MODES, PlanRequest, deployment_words, plan, rate_words, usd_words
from engine.planner.space import PRECISIONS
from engine.serving.scenario import BACKENDS

from .common import print_json

# What a command's weights need beyond the model id (engine.planner.launch.weights_source)
WEIGHTS_NOTE = {
    "quantized_on_load": "weights quantized to {precision} while loading (--quantization)",
    "quantized_checkpoint": "serve a checkpoint of this model quantized to {precision} beforehand (e.g. with NVIDIA "
    "TensorRT Model Optimizer): pass its path in place of the model id",
}


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    p = sub.add_parser("plan", help="the best deployment on N GPUs under TTFT and TPOT targets (search)")
    p.add_argument("--model", required=True, help="preset id or Hugging Face repo id")
    p.add_argument("--hardware", required=True, nargs="+", help="accelerator ids to compare")
    p.add_argument("--gpus", type=int, required=True, help="the GPU budget")
    p.add_argument("--isl", type=int, default=1024, help="input tokens per request (default 1024)")
    p.add_argument("--osl", type=int, default=1024, help="output tokens per request (default 1024)")
    p.add_argument("--ttft-ms", type=float, help="TTFT target, ms (default: none)")
    p.add_argument("--tpot-ms", type=float, help="TPOT target, ms (default: none)")
    p.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--precisions", nargs="+", choices=tuple(PRECISIONS), help="default: the release, fp8, fp4")
    p.add_argument(
        "--price", nargs="+", metavar="HW=USD", default=[], help="USD per GPU-hour, e.g. h200-sxm=3.5 (ranks by $/Mtok)"
    )
    p.add_argument(
        "--memory-utilization",
        type=float,
        help="the backends' own memory knob (vLLM gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM "
        "free_gpu_memory_fraction); default: each backend's own",
    )
    p.add_argument("--pessimistic", action="store_true", help="meet the target at the range's pessimistic end")
    p.add_argument("--top", type=int, default=10, help=f"how many to list (1 to {MAX_TOP})")
    p.add_argument("--json", action="store_true", help="print the full answer as JSON")
    p.set_defaults(func=_plan)


def _prices(pairs: list[str]) -> dict[str, float]:
    out = {}
    for pair in pairs:
        hw, _, price = pair.partition("=")
        if hw in out:  # a second price for one accelerator: which one was meant is not ours to guess
            raise EngineInputError(
                "--price", f"{hw[:40]!r} is priced twice", "one HW=USD per accelerator", code="cli_value",
                params={"value": pair[:40], "allowed": "one HW=USD per accelerator"},
            )  # fmt: skip
        try:
            out[hw] = float(price)
        except ValueError:
            raise EngineInputError(
                "--price", f"{pair[:40]!r} is not HW=USD", "h200-sxm=3.5", code="cli_value",
                params={"value": pair[:40], "allowed": "h200-sxm=3.5"},
            ) from None  # fmt: skip
    return out


def _plan(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    hardware = [get_accelerator(h) for h in dict.fromkeys(args.hardware)]
    req = PlanRequest(
        gpus=args.gpus,
        input_tokens=args.isl,
        output_tokens=args.osl,
        ttft_s=None if args.ttft_ms is None else args.ttft_ms / 1e3,
        tpot_s=None if args.tpot_ms is None else args.tpot_ms / 1e3,
        backends=tuple(args.backends),
        modes=tuple(args.modes),
        precisions=None if args.precisions is None else tuple(args.precisions),
        gpu_hour_price=_prices(args.price),
        target="pessimistic" if args.pessimistic else "estimate",
        top=args.top,
        memory_utilization=args.memory_utilization,
    )
    answer = plan(model, hardware, req)
    if args.json:
        print_json(answer)
        return 0
    c = answer["candidates"]
    print(answer["verdict"]["text"])
    print(
        f"{c['evaluated']:,} candidates scored in {answer['seconds']:.2f} s, {c['dropped_memory']:,} dropped (memory), "
        f"{c['meeting_target']:,} meet the target; calibration {answer['calibration']}"
    )
    for said in answer["warnings"]:
        print(f"warning: {said}")
    if not answer["top"]:
        return 0
    if len(hardware) > 1:
        for hw_id, t in answer["best_by_hardware"].items():
            cost = "" if t["usd_per_million_tokens"] is None else f", ${usd_words(t['usd_per_million_tokens'])}/Mtok"
            print(
                f"best on {hw_id}: {t['mode']}, {t['backend']} {t['precision']}, {deployment_words(t)} at concurrency "
                f"{t['concurrency']:,}: {rate_words(t['estimate']['output_tokens_per_s_per_gpu'])} tok/s/GPU{cost}"
            )
    print(
        f"{'#':>3} {'mode':<6} {'GPU':<10} {'backend':<7} {'prec':<5} {'layout':<44} {'GPUs':>4} {'C':>6} "
        f"{'TTFT ms':>9} {'TPOT ms':>9} {'tok/s/GPU':>10} {'tok/s/user':>10} {'$/Mtok':>7}"
    )
    for i, t in enumerate(answer["top"], 1):
        e = t["estimate"]
        cost = "-" if t["usd_per_million_tokens"] is None else usd_words(t["usd_per_million_tokens"])
        print(
            f"{i:>3} {t['mode'][:6]:<6} {t['hardware'][:10]:<10} {t['backend']:<7} {t['precision']:<5} "
            f"{deployment_words(t)[:44]:<44} {t['gpus']:>4} {t['concurrency']:>6} {e['ttft_s'] * 1e3:>9.1f} "
            f"{e['tpot_s'] * 1e3:>9.2f} {e['output_tokens_per_s_per_gpu']:>10.1f} {e['tokens_per_s_per_user']:>10.1f} "
            f"{cost:>7}"
        )
    print("launch the best:")
    for cmd in answer["best"]["launch"]:
        print(f"  [{cmd['role']} x {cmd['count']}] {cmd['command']}")
        note = WEIGHTS_NOTE.get(cmd.get("weights", {}).get("source"))
        if note:
            print("    # " + note.format(precision=cmd["weights"]["precision"]))
    return 0
