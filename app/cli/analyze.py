"""`llm-roofline analyze`: decode and prefill of one model on one or more accelerators."""

from __future__ import annotations

import argparse
import json
import sys

from engine.analysis import DEFAULT_MEMORY_UTILIZATION, Scenario
from engine.hardware import TENSOR_PARALLEL_DEGREES
from engine.precision import DTYPES

from ..service import run_analysis
from ..units import duration, grouped, memory, plural, si
from .common import model_spec
from .memory import fit_sentence, usable_words


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    a = sub.add_parser("analyze", help="decode and prefill of one model on one or more accelerators")
    a.add_argument("--model", required=True, help="preset id or path to a config.json")
    a.add_argument("--hardware", action="append", required=True, help="accelerator id (repeat for several)")
    a.add_argument("--batch", type=int, default=1, help="sequences in flight")
    a.add_argument("--context", type=int, default=4096, help="tokens per sequence (decode: cached; prefill: prompt)")
    a.add_argument("--kv-heads", type=int, default=None, help="override the KV heads (must divide the query heads)")
    a.add_argument("--weight-dtype", default="bf16", choices=DTYPES)
    a.add_argument("--kv-dtype", default="bf16", choices=DTYPES)
    a.add_argument("--compute-dtype", default="bf16", choices=DTYPES)
    a.add_argument("--no-flash-attention", dest="flash_attention", action="store_false")
    a.add_argument("--full-square", action="store_true", help="count prefill attention without the causal mask")
    a.add_argument("--tp", type=int, default=1, choices=TENSOR_PARALLEL_DEGREES, help="tensor-parallel degree")
    a.add_argument("--kv-block-size", type=int, default=16, help="paged KV block size in tokens")
    a.add_argument("--shared-prefix", type=int, default=0, help="prefix tokens shared by the whole batch")
    a.add_argument("--layers", action="store_true", help="print the per-layer breakdown (window / MLA / MoE)")
    a.add_argument(
        "--roofs",
        choices=("nominal", "measured", "hierarchy"),
        default="nominal",
        help="datasheet roofs, a calibration's (where the accelerator has one), or the datasheet roofs "
        "plus the sourced cache roofs (L2, Infinity Cache)",
    )
    a.add_argument("--bandwidth-efficiency", type=float, default=1.0, help="achievable fraction of bandwidth")
    a.add_argument("--compute-efficiency", type=float, default=1.0, help="achievable fraction of peak FLOP/s")
    a.add_argument("--measured-step-ms", type=float, default=None, help="a measured decode step -> MBU/MFU")
    a.add_argument("--measured-tokens-per-s", type=float, default=None, help="or a measured decode tokens/s")
    a.add_argument(
        "--memory-utilization",
        type=float,
        default=DEFAULT_MEMORY_UTILIZATION,
        help="fraction of memory the server may fill, 0 < x <= 1 (default 0.9, vLLM's "
        "gpu_memory_utilization default; 1.0 = the whole card)",
    )
    a.add_argument(
        "--output-tokens",
        type=int,
        default=None,
        help="tokens each sequence generates: TTFT, TPOT, end-to-end time and output rates",
    )
    a.add_argument(
        "--gpu-hour-price",
        type=float,
        default=None,
        help="USD per GPU-hour (with --output-tokens): cost per million output tokens",
    )
    a.add_argument("--json", action="store_true", help="the analysis as JSON (SI units)")
    a.set_defaults(func=_analyze)


def _analyze(args: argparse.Namespace) -> int:
    spec = model_spec(args.model)
    scenario = Scenario(
        batch_size=args.batch,
        context_length=args.context,
        num_kv_heads=args.kv_heads,
        weight_dtype=args.weight_dtype,
        kv_dtype=args.kv_dtype,
        compute_dtype=args.compute_dtype,
        flash_attention=args.flash_attention,
        causal=not args.full_square,
        tensor_parallel=args.tp,
        kv_block_size=args.kv_block_size,
        shared_prefix_length=args.shared_prefix,
        # hierarchy: the datasheet roofs plus each sourced cache roof (engine/hierarchy.py)
        roofs="nominal" if args.roofs == "hierarchy" else args.roofs,
        bandwidth_efficiency=args.bandwidth_efficiency,
        compute_efficiency=args.compute_efficiency,
        memory_utilization=args.memory_utilization,
    )
    step_s = None if args.measured_step_ms is None else args.measured_step_ms / 1e3
    result = run_analysis(spec, args.hardware, scenario, step_s, args.measured_tokens_per_s)
    _with_requests(result, spec, args.hardware, scenario, args.output_tokens, args.gpu_hour_price)
    if args.roofs == "hierarchy":
        from engine.hardware import get_accelerator
        from engine.hierarchy import hierarchy_roofs

        for r in result["results"]:
            r["hierarchy_roofs"] = hierarchy_roofs(get_accelerator(r["hardware_id"]), args.compute_dtype)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    m = result["model"]
    active = f" ({m['num_active_params'] / 1e9:.2f}B active)" if m["moe"] else ""
    tp = f", TP {args.tp} (numbers per GPU)" if args.tp > 1 else ""
    kv = "an MLA latent" if m["mla"] else f"{m['num_kv_heads']} KV heads"
    print(
        f"{m['id']}: {m['num_params'] / 1e9:.2f}B params{active}, {m['num_layers']} layers, "
        f"{m['num_heads']} heads / {kv}; batch {args.batch}, context {args.context}{tp}"
    )
    if args.layers:
        print(f"{'layers':<10}{'attention':<16}{'KV values/token':>16}  {'mlp':<20}")
        for g in m["layer_groups"]:
            span = str(g["first"]) if g["count"] == 1 else f"{g['first']}-{g['last']}"
            att = g["attention"] + (f" w={g['window']}" if g["window"] else "")
            mlp = g["mlp"] + (f" {g['experts_per_token']}/{g['num_experts']}" if g["mlp"] == "moe" else "")
            print(f"{span:<10}{att:<16}{g['kv_values_per_token']:>16}  {mlp:<20}")
    header = (
        f"{'accelerator':<16}{'ridge':>7}  {'decode step':>11} {'tok/s':>9} {'I':>7} {'bound':>8}  "
        f"{'prefill':>9} {'bound':>8}  {'memory':>9} {'usable':>9} {'fits':>5} {'max B':>6} {'min TP':>6}"
    )
    print(header)
    for r in result["results"]:
        d, p, mem = r["decode"], r["prefill"], r["memory"]
        print(
            f"{r['hardware_id']:<16}{r['ridge_point']:>7.0f}  {duration(d['time_s']):>11} "
            f"{grouped(d['tokens_per_s']):>9} {d['intensity']:>7.1f} {d['bound']:>8}  "
            f"{duration(p['time_s']):>9} {p['bound']:>8}  {memory(mem['total_bytes']):>9} "
            f"{memory(mem['usable_bytes']):>9} {'yes' if mem['fits'] else 'NO':>5} "
            f"{mem['max_batch_size']:>6} {mem['min_tensor_parallel'] or '>8':>6}"
        )
        sentence = fit_sentence(r["hardware_id"], mem, args.memory_utilization)
        if sentence:
            print(f"{'':<16}  {sentence}")
        if "measured_decode" in r:
            md = r["measured_decode"]
            print(
                f"{'':<16}  measured decode {duration(md['step_time_s'])} ({grouped(md['tokens_per_s'])} tok/s): "
                f"MBU {md['mbu']:.1%}, MFU {md['mfu']:.2%}, {md['gap']:.2f}x the bound"
            )
        if r.get("request"):
            q = r["request"]
            cost = (
                ""
                if q["cost_per_million_output_tokens"] is None
                else f", ${q['cost_per_million_output_tokens']:.3g} per million output tokens"
            )
            print(
                f"{'':<16}  request of {plural(q['output_tokens'], 'token')}: TTFT {duration(q['ttft_s'])}, "
                f"TPOT {duration(q['tpot_s'])}, end to end {duration(q['e2e_s'])}, "
                f"{grouped(q['output_tokens_per_s_per_sequence'])} tok/s per user, "
                f"{grouped(q['output_tokens_per_s'])} tok/s in all{cost}"
                + ("" if q["fits_at_end"] else "; the batch no longer fits at its last token")
            )
        if args.tp > 1:
            print(
                f"{'':<16}  all-reduce {duration(d['communication_time_s'])} per step on {r['link']['name']}; "
                f"{duration(d['time_with_overlap_s'])} if fully overlapped"
            )
        for h in r.get("hierarchy_roofs", []):
            print(
                f"{'':<16}  {h['level']:<15}{si(h['bandwidth_bytes_per_s'], 'B/s'):>11} ({h['times_hbm']:.2f}x HBM, "
                f"ridge {h['ridge_point']:.0f}) for working sets up to {memory(h['capacity_bytes'])}, {h['kind']}"
            )
        if args.roofs == "hierarchy" and len(r.get("hierarchy_roofs", [])) < 2:
            print(f"{'':<16}  no sourced cache roof for {r['hardware_id']}")
    print(f"memory and usable in GiB (2^30 bytes, as nvidia-smi); {usable_words(args.memory_utilization)}")
    return 0


def _with_requests(result: dict, spec, hardware: list, scenario: Scenario, output_tokens, price) -> dict:
    """Each result's `request` block, as the API gives it (engine/request.py)."""
    from engine.model_catalog import load_model
    from engine.request import attach_requests

    from ..service import resolve_hardware

    if output_tokens is None:
        return attach_requests(result, None, [], scenario, None, price)
    return attach_requests(result, load_model(spec), resolve_hardware(hardware), scenario, output_tokens, price)
