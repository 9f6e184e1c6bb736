"""Launch commands for a candidate, in each backend's own flags.

The flags are each backend's documented command line (docs/planner.md cites them):
- vLLM (`vllm serve`, docs.vllm.ai "vllm serve" and "Data Parallel Deployment"):
  --tensor-parallel-size, --data-parallel-size, --enable-expert-parallel, --max-num-seqs,
  --gpu-memory-utilization, --kv-cache-dtype; disaggregated prefill/decode through the NIXL
  connector, --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'.
- SGLang (`python -m sglang.launch_server`, docs.sglang.ai "Server Arguments" and "PD
  Disaggregation"): --tp, --dp, --enable-dp-attention, --ep-size, --max-running-requests,
  --mem-fraction-static, --kv-cache-dtype, --disaggregation-mode prefill|decode, and the
  router `python -m sglang_router.launch_router --pd-disaggregation`.
- TensorRT-LLM (`trtllm-serve`, nvidia.github.io/TensorRT-LLM "trtllm-serve" and
  "Disaggregated Serving"): --tp_size (the worker's world size), --ep_size, --max_batch_size,
  --max_num_tokens, --kv_cache_free_gpu_memory_fraction, --extra_llm_api_options FILE for
  enable_attention_dp and the cache transceiver, and `trtllm-serve disaggregated -c FILE`.
"""

from __future__ import annotations

from .space import Layout

KV_FLAG = {"vllm": {"fp8": "fp8"}, "sglang": {"fp8": "fp8_e4m3"}}
VLLM_NIXL = '\'{"kv_connector":"NixlConnector","kv_role":"kv_both"}\''
# Where a candidate's weights come from: the model as released; quantized to fp8 while loading
# (vLLM's and SGLang's `--quantization fp8`, dynamic per-tensor scales: docs.vllm.ai "FP8 W8A8",
# docs.sglang.ai "Quantization"); or a checkpoint quantized beforehand (NVIDIA TensorRT Model
# Optimizer, llm-compressor), whose format every backend reads from its config: TensorRT-LLM
# has no quantization on load, and no backend makes fp4 or int4 weights while loading.
RELEASED, ON_LOAD, CHECKPOINT = "released", "quantized_on_load", "quantized_checkpoint"


def weights_source(backend: str, precision: str, native: str | None) -> str:
    """How a backend gets a candidate's weights in `precision` from a model released in `native`
    (None: 16-bit)."""
    if precision == (native or "bf16"):
        return RELEASED
    if precision == "fp8" and native is None and backend in ("vllm", "sglang"):
        return ON_LOAD
    return CHECKPOINT


def _quantization(backend: str, weights: tuple) -> str:
    """The flag that quantizes the weights while loading, where the candidate needs it."""
    return " --quantization fp8" if weights_source(backend, *weights) == ON_LOAD else ""


def _with_weights(commands: list[dict], backend: str, weights: tuple) -> list[dict]:
    """Each worker command with its weights' precision and source (the router runs no model)."""
    source = weights_source(backend, *weights)
    for item in commands:
        if item["role"] != "router":
            item["weights"] = {"precision": weights[0], "source": source}
    return commands


def _vllm(model: str, lay: Layout, batch: int, util: float | None, kv: str, extra: str = "", quant: str = "") -> str:
    parts = [f"vllm serve {model}{quant}", f"--tensor-parallel-size {lay.tensor_parallel}"]
    if lay.attention_data_parallel > 1:
        parts.append(f"--data-parallel-size {lay.attention_data_parallel}")
    if lay.expert_parallel > 1:
        parts.append("--enable-expert-parallel")
    parts.append(f"--max-num-seqs {batch}")
    parts.append(f"--gpu-memory-utilization {util if util is not None else 0.9:g}")
    if kv in KV_FLAG["vllm"]:
        parts.append(f"--kv-cache-dtype {KV_FLAG['vllm'][kv]}")
    return " ".join(parts) + extra


def _sglang(model: str, lay: Layout, batch: int, util: float | None, kv: str, extra: str = "", quant: str = "") -> str:
    parts = [f"python -m sglang.launch_server --model-path {model}{quant}", f"--tp {lay.gpus}"]
    if lay.attention_data_parallel > 1:
        parts += [f"--dp {lay.attention_data_parallel}", "--enable-dp-attention"]
    if lay.expert_parallel > 1:
        parts.append(f"--ep-size {lay.expert_parallel}")
    parts.append(f"--max-running-requests {batch}")
    if util is not None:
        parts.append(f"--mem-fraction-static {util:g}")
    if kv in KV_FLAG["sglang"]:
        parts.append(f"--kv-cache-dtype {KV_FLAG['sglang'][kv]}")
    return " ".join(parts) + extra


def _trtllm_options(lay: Layout, role: str | None) -> list[str]:
    lines = []
    if lay.attention_data_parallel > 1:
        lines.append("enable_attention_dp: true")
    if role is not None:
        lines += ["cache_transceiver_config:", "  backend: DEFAULT"]
        if role == "context":
            lines.append("disable_overlap_scheduler: true")
    return lines


def _trtllm(model: str, lay: Layout, batch: int, tokens: int, util: float | None, role: str | None = None) -> str:
    options = _trtllm_options(lay, role)
    name = f"extra-{role or 'llm-api'}.yaml"
    parts = [f"trtllm-serve {model}", f"--tp_size {lay.gpus}"]
    if lay.expert_parallel > 1:
        parts.append(f"--ep_size {lay.expert_parallel}")
    parts += [f"--max_batch_size {batch}", f"--max_num_tokens {tokens}"]
    if util is not None:
        parts.append(f"--kv_cache_free_gpu_memory_fraction {util:g}")
    if options:
        body = "\\n".join(options)
        return f"printf '{body}\\n' > {name} && " + " ".join(parts) + f" --extra_llm_api_options {name}"
    return " ".join(parts)


def aggregated_commands(
    backend: str, model: str, lay: Layout, replicas: int, batch: int, kv: str, util, budget_tokens,
    weights: tuple = ("bf16", None),
):  # fmt: skip
    """One instance's command and how many to start; `weights` = (the candidate's precision, the
    model's release precision or None for 16-bit)."""
    quant = _quantization(backend, weights)
    if backend == "vllm":
        cmd = _vllm(model, lay, batch, util, kv, quant=quant)
    elif backend == "sglang":
        cmd = _sglang(model, lay, batch, util, kv, quant=quant)
    else:
        cmd = _trtllm(model, lay, batch, budget_tokens, util)
    instance = {"role": "instance", "count": replicas, "gpus_each": lay.gpus, "command": cmd}
    return _with_weights([instance], backend, weights)


def disaggregated_commands(
    backend: str, model: str, pre: Layout, x: int, dec: Layout, y: int, batch: int, kv: str, util, prefill_tokens: int,
    weights: tuple = ("bf16", None), units: int = 1,
):  # fmt: skip
    """The prefill and decode workers' commands and counts, and the router that joins them:
    `units` replicas of x prefill and y decode workers, each unit behind its own router."""
    quant = _quantization(backend, weights)
    if backend == "sglang":
        p = _sglang(model, pre, max(1, batch), util, kv, " --disaggregation-mode prefill", quant)
        d = _sglang(model, dec, batch, util, kv, " --disaggregation-mode decode", quant)
        router = "python -m sglang_router.launch_router --pd-disaggregation --prefill http://PREFILL:30000 " + (
            "--decode http://DECODE:30000"
        )
    elif backend == "vllm":
        p = _vllm(model, pre, max(1, batch), util, kv, f" --kv-transfer-config {VLLM_NIXL}", quant)
        d = _vllm(model, dec, batch, util, kv, f" --kv-transfer-config {VLLM_NIXL}", quant)
        router = "a prefill/decode proxy (vLLM's disaggregated-serving examples) in front of both"
    else:
        p = _trtllm(model, pre, 1, prefill_tokens, util, role="context")
        d = _trtllm(model, dec, batch, batch, util, role="generation")
        router = "trtllm-serve disaggregated -c disagg.yaml  # context_servers and generation_servers: the URLs above"
    commands = [
        {"role": "prefill", "count": units * x, "gpus_each": pre.gpus, "command": p},
        {"role": "decode", "count": units * y, "gpus_each": dec.gpus, "command": d},
        {"role": "router", "count": units, "gpus_each": 0, "command": router},
    ]
    return _with_weights(commands, backend, weights)
