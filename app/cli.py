"""`llm-roofline` command line: analyze, hardware, models (and serve, when the web extra is in)."""

from __future__ import annotations

import argparse
import json
import sys

from engine.analysis import DEFAULT_MEMORY_UTILIZATION, Scenario
from engine.errors import EngineInputError
from engine.hardware import TENSOR_PARALLEL_DEGREES, catalogue
from engine.model_catalog import get_model, load_model_file, model_ids
from engine.precision import DTYPES

from .cli_memory import fit_sentence, training_verdict, usable_words
from .cli_ops import add_ops_parser
from .cli_serving import add_serving_parser
from .service import run_analysis
from .units import duration, grouped, memory, plural, si


def _model_spec(value: str):
    return value if value in model_ids() or not value.endswith(".json") else load_model_file(value)


def _analyze(args: argparse.Namespace) -> int:
    spec = _model_spec(args.model)
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

    from .service import resolve_hardware

    if output_tokens is None:
        return attach_requests(result, None, [], scenario, None, price)
    return attach_requests(result, load_model(spec), resolve_hardware(hardware), scenario, output_tokens, price)


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
    print(f"{chosen['note']} Measured figures against their bounds (README 'Reality check').")
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


def _serve(args: argparse.Namespace) -> int:
    import os

    from .config import get_settings
    from .server import run

    # Workers are separate processes that build their own app from the environment, so the
    # command-line choices travel as the same LLM_ROOFLINE_* variables the settings read.
    overrides = {"HOST": args.host, "PORT": args.port, "WORKERS": args.workers, "ROOT_PATH": args.root_path}
    for key, value in overrides.items():
        if value is not None:
            os.environ[f"LLM_ROOFLINE_{key}"] = str(value)
    get_settings.cache_clear()
    settings = get_settings()
    if settings.hardware_dir:
        os.environ["LLM_ROOFLINE_HARDWARE_DIR"] = settings.hardware_dir
    catalogue()  # fail here, with the file and field, rather than in every worker
    run(settings)
    return 0


def _measurements(args: argparse.Namespace) -> int:
    from .service import place_measurements

    try:
        with open(args.file, encoding="utf-8") as f:
            content = f.read(256 * 1024 + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise EngineInputError(
            "file", f"cannot read {args.file}: {exc}", code="file_open", params={"detail": str(exc)}
        ) from None
    if len(content) > 256 * 1024:
        raise EngineInputError(
            "file", f"{args.file} is larger than 256 KiB", code="file_size", params={"n": 256 * 1024}
        )
    scenario = Scenario(
        batch_size=args.batch,
        context_length=args.context,
        roofs=args.roofs,
        compute_dtype=args.compute_dtype,
        tensor_parallel=args.tp,
    )
    result = place_measurements(args.format, content, args.hardware, args.model, scenario, args.steps)
    from engine.hardware import get_accelerator
    from engine.triage import triage_for

    result["triage"] = triage_for(result["points"], get_accelerator(args.hardware), scenario)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{len(result['points'])} measured points on {result['hardware_id']} ({result['roofs']} roofs)")
    print(f"{'name':<28}{'time':>10}{'FLOP/byte':>11}{'achieved':>16}{'roof':>16}{'of roof':>9}")
    for p in result["points"]:
        print(
            f"{p['name'][:27]:<28}{duration(p['time_s']):>10}{p['intensity']:>11.3g}"
            f"{si(p['achieved_flops_per_s'], 'FLOP/s'):>16}{si(p['attainable_flops_per_s'], 'FLOP/s'):>16}"
            f"{p['fraction_of_roof']:>9.0%}"
        )
    if result["skipped"]:
        print("skipped (no counts): " + ", ".join(result["skipped"]))
    print("triage, by recoverable time (measured - roof = time x (1 - 1/gap)):")
    print(f"{'#':>3} {'name':<28}{'recoverable':>12}{'of profile':>11}{'gap':>7}  {'regime':<9} first check")
    for t in result["triage"]:
        print(
            f"{t['rank']:>3} {t['name'][:27]:<28}{duration(t['recoverable_time_s']):>12}"
            f"{t['recoverable_share']:>11.1%}{t['gap']:>7.2f}  {t['regime']:<9} {t['first_check']}"
        )
    return 0


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
        spec = _model_spec(args.model)
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


def _calibrate(args: argparse.Namespace) -> int:
    import yaml

    from .calibrate import calibrate_cpu, calibrate_cuda, report, to_accelerator

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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llm-roofline", description="Place LLM inference on the roofline.")
    sub = parser.add_subparsers(dest="command", required=True)

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

    h = sub.add_parser("hardware", help="list the accelerator catalogue")
    h.add_argument("--json", action="store_true")
    h.set_defaults(func=_hardware)

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

    p = sub.add_parser("published", help="published measurements beside the engine's bounds (MBU, MFU)")
    p.add_argument("--model", default=None, help="only runs of this model preset (the rest are counted)")
    p.add_argument("--weight-dtype", default=None, choices=DTYPES, help="only runs with these weights")
    p.add_argument("--compute-dtype", default=None, choices=DTYPES, help="only runs with this matrix math")
    p.add_argument("--hardware", action="append", default=None, help="only runs on this accelerator (repeat)")
    p.add_argument("--json", action="store_true", help="every entry with its bound, MBU and MFU (SI units)")
    p.set_defaults(func=_published)

    m = sub.add_parser("models", help="list the model presets")
    m.add_argument("--json", action="store_true")
    m.set_defaults(func=_models)

    me = sub.add_parser("measurements", help="place measured ops under the roofs, with their gap")
    me.add_argument("file", help="a measurement file (see README: Measure your own GPU)")
    me.add_argument("--format", required=True, choices=("csv", "json", "torch_table", "chrome_trace", "ncu_csv"))
    me.add_argument("--hardware", required=True, help="the accelerator it was measured on")
    me.add_argument("--model", default=None, help="preset: lets profiler rows without counts borrow the model's")
    me.add_argument("--batch", type=int, default=1)
    me.add_argument("--context", type=int, default=4096)
    me.add_argument("--compute-dtype", default="bf16", choices=DTYPES)
    me.add_argument("--tp", type=int, default=1, choices=TENSOR_PARALLEL_DEGREES)
    me.add_argument("--roofs", choices=("nominal", "measured"), default="nominal")
    me.add_argument("--steps", type=int, default=1, help="decode steps the profile covers")
    me.add_argument("--json", action="store_true")
    me.set_defaults(func=_measurements)

    c = sub.add_parser("calibrate", help="measure this machine's bandwidth and FLOP/s roofs")
    c.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    c.add_argument("--size", choices=("small", "full"), default="full", help="small: a quick check")
    c.add_argument("--base", default=None, help="catalogue id whose datasheet roofs to keep (e.g. h200-sxm)")
    c.add_argument("--id", default=None, help="id of the written accelerator (default <base>-calibrated)")
    c.add_argument("--out", default=None, help="write the accelerator YAML here")
    c.set_defaults(func=_calibrate)

    add_ops_parser(sub)  # llm-roofline ops gemm|conv2d|elementwise|chart|presets (app/cli_ops.py)
    add_serving_parser(sub)  # llm-roofline serving ... | validate serving --data FILE.csv (app/cli_serving.py)

    s = sub.add_parser("serve", help="run the dashboard and API (uvicorn)")
    s.add_argument("--host", default=None, help="address (default 127.0.0.1, env LLM_ROOFLINE_HOST)")
    s.add_argument("--port", type=int, default=None, help="port (default 8050, env LLM_ROOFLINE_PORT)")
    s.add_argument("--workers", type=int, default=None, help="worker processes (default 1)")
    s.add_argument("--root-path", default=None, help="sub-path behind a reverse proxy, e.g. /roofline")
    s.set_defaults(func=_serve)
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


if __name__ == "__main__":
    sys.exit(main())
