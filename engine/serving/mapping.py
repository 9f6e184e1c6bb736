"""How a measured-run row (aiconfigurator's silicon_sample.csv columns) becomes a scenario.

The mapping is the one published/serving/README.md states: system -> hardware id, the GEMM
quantisation mode -> weight and compute dtypes (KV in fp8 whenever the weights are below 16
bits), parallel degrees as recorded (empty or 0 means 1), concurrency = the benchmark's
`silicon_concurrency=N` in silicon_data_source, else batch_size (on attention-DP rows
batch_size is one rank's batch). A disaggregated row (mode `disagg`) becomes a DisaggScenario:
prefill_* and decode_* layouts, their worker counts and the prefill batch.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import EngineInputError
from .scenario import DisaggScenario, ServingScenario, WorkerLayout

HARDWARE_OF_SYSTEM = {
    "h100_sxm": "h100-sxm5",
    "h200_sxm": "h200-sxm",
    "b200_sxm": "b200",
    "b300_sxm": "b300",
    "gb200": "gb200",
    "gb300": "gb300",
}
# gemm_quant_mode -> (weights, compute): the data README's mapping, plus the other names of
# aiconfigurator's GEMMQuantMode (sdk/common.py: bfloat16, fp8_static, fp8_ootb, int8_wo, sq =
# SmoothQuant's int8 weights and activations), so a file that uses them is answered too
PRECISION_OF_QUANT = {
    "fp8": ("fp8", "fp8"),
    "fp8_block": ("fp8", "fp8"),
    "fp8_static": ("fp8", "fp8"),
    "fp8_ootb": ("fp8", "fp8"),
    "nvfp4": ("fp4", "fp4"),
    "w4a16_mxfp4": ("fp4", "bf16"),
    "int4_wo": ("int4", "bf16"),
    "int8_wo": ("int8", "bf16"),
    "sq": ("int8", "int8"),
    "float16": ("bf16", "bf16"),
    "bfloat16": ("bf16", "bf16"),
    "": ("bf16", "bf16"),
}
PUBLISHED_DIR = Path(__file__).resolve().parent.parent.parent / "published" / "serving"
TRAINING_CSV = PUBLISHED_DIR / "measured-serving-train.csv"
DISAGG_CSV = PUBLISHED_DIR / "measured-disagg-train.csv"
_CONCURRENCY = re.compile(r"(?:^|;)\s*silicon_concurrency=(\d{1,9})\s*(?:;|$)")


@dataclass(frozen=True)
class MeasuredRow:
    id: str
    model: str
    system: str
    hardware: str
    backend: str
    scenario: ServingScenario  # a disaggregated row: the shared part (lengths, precision, concurrency)
    ttft_s: float
    tpot_s: float
    campaign: str = ""  # the measuring campaign (source file or database dump): for grouped folds only
    disagg: DisaggScenario | None = None


def _degree(value: str | None) -> int:
    text = (value or "").strip()
    return int(float(text)) if text and float(text) > 0 else 1


def concurrency_of(row: dict) -> int:
    """The benchmark's requests in flight: `silicon_concurrency=N` where the source column holds
    it, else batch_size (the data README: on attention-DP rows batch_size is one rank's)."""
    found = _CONCURRENCY.search(row.get("silicon_data_source") or "")
    if found:
        return int(found.group(1))
    return int(row["batch_size"])


def campaign_of(row: dict) -> str:
    """Which measuring campaign a row came from: its source file's name or its database dump
    (the first field of silicon_data_source). The estimate never reads it; grouped
    cross-validation holds campaigns out."""
    first = (row.get("silicon_data_source") or "").split(";")[0].strip()
    if not first.startswith("source_file="):
        return first.split("/")[0][:120]  # a database dump: db-dump/<date>
    parts = first.removeprefix("source_file=").split("/")
    # a project's data tree (.../<campaign>/data/<system>/<backend>/...) or a file of its own
    name = parts[parts.index("data") - 1] if "data" in parts[1:] else parts[-1]
    return name.removesuffix(".csv")[:120]


# A board's NVLink domain: past it, a recorded tensor-parallel degree of an MLA model on an
# NVL72 rack is the world size of an attention-data-parallel instance (world_size_layout).
BOARD = 8


def world_size_layout(tp: int, adp: int, moe_tp: int, ep: int, model_path: str, system: str) -> tuple:
    """(tensor_parallel, attention_data_parallel, moe_tensor_parallel, expert_parallel) of a row.

    TensorRT-LLM's tensor_parallel_size and SGLang's --tp are the world size of an instance;
    attention data parallelism is a switch beside them (TensorRT-LLM enable_attention_dp,
    SGLang --enable-dp-attention with --dp), and wide expert-parallel deployments on an NVL72
    rack run it (NVIDIA's and SGLang's wide-EP DeepSeek recipes). A row of an MLA model (whose
    latent cache every attention-TP GPU would hold whole: engine.model.ModelConfig.shard) on a
    rack (scale-up domain past a board) that records tp_size > 8 with no attention DP is read so:
    attention DP = tp_size, the experts over the same GPUs (the recorded MoE split when it
    covers them, else expert parallel over all). Read literally, its bound sits above the
    measured TPOT. Every other row is read as recorded."""
    if adp > 1 or tp <= BOARD or HARDWARE_OF_SYSTEM.get(system) not in RACK_SCALE:
        return tp, adp, moe_tp, ep
    try:
        mla = resolve_model(model_path).is_mla
    except EngineInputError:
        return tp, adp, moe_tp, ep
    if not mla:
        return tp, adp, moe_tp, ep
    if moe_tp * ep != tp:
        moe_tp, ep = 1, tp
    return 1, tp, moe_tp, ep


RACK_SCALE = ("gb200", "gb300")  # NVL72 racks: hardware/gb200.yaml, gb300.yaml scale_up_domain_size 72


def _worker(row: dict, side: str) -> WorkerLayout:
    tp, adp, moe_tp, ep = world_size_layout(
        _degree(row.get(f"{side}_tp_size")),
        _degree(row.get(f"{side}_attention_dp_size")),
        _degree(row.get(f"{side}_moe_tp_size")),
        _degree(row.get(f"{side}_moe_ep_size")),
        row.get("model_path", ""),
        row.get("system", ""),
    )
    return WorkerLayout(
        workers=_degree(row.get(f"{side}_num_workers")),
        tensor_parallel=tp,
        attention_data_parallel=adp,
        moe_tensor_parallel=moe_tp,
        expert_parallel=ep,
        batch=_degree(row.get("prefill_batch_size")) if side == "prefill" else 1,
    )


def _instance_layout(row: dict) -> tuple:
    return world_size_layout(
        _degree(row.get("tp_size")),
        _degree(row.get("attention_dp_size")),
        _degree(row.get("moe_tp_size")),
        _degree(row.get("moe_ep_size")),
        row.get("model_path", ""),
        row.get("system", ""),
    )


def row_scenario(row: dict) -> MeasuredRow:
    """One CSV row as a scenario; EngineInputError names the column it cannot map."""
    system = row.get("system", "")
    if system not in HARDWARE_OF_SYSTEM:
        raise EngineInputError(
            "system",
            f"{system!r} is not a known system",
            ", ".join(HARDWARE_OF_SYSTEM),
            code="map_system",
            params={"value": repr(system)[:80], "allowed": ", ".join(HARDWARE_OF_SYSTEM)},
        )
    quant = (row.get("gemm_quant_mode") or "").strip()
    if quant not in PRECISION_OF_QUANT:
        allowed = ", ".join(repr(name) for name in PRECISION_OF_QUANT)  # quoted: '' is one of them
        raise EngineInputError(
            "gemm_quant_mode",
            f"{quant!r} is not mapped",
            allowed,
            code="map_quant",
            params={"value": repr(quant)[:80], "allowed": allowed},
        )
    weight, compute = PRECISION_OF_QUANT[quant]
    kv = "fp8" if weight not in ("bf16", "fp16") else "bf16"
    backend = row.get("backend") or None
    disagg = (row.get("mode") or "").strip() == "disagg"
    try:
        layout = (1, 1, 1, 1) if disagg else _instance_layout(row)
        sc = ServingScenario(
            concurrency=concurrency_of(row),
            input_tokens=int(row["isl"]),
            output_tokens=int(row["osl"]),
            tensor_parallel=layout[0],
            attention_data_parallel=layout[1],
            moe_tensor_parallel=layout[2],
            expert_parallel=layout[3],
            weight_dtype=weight,
            compute_dtype=compute,
            kv_dtype=kv,
            backend=backend if backend in ("trtllm", "vllm", "sglang") else None,
        )
        split = DisaggScenario(sc, _worker(row, "prefill"), _worker(row, "decode")) if disagg else None
        ttft, tpot = float(row["silicon_ttft_ms"]) / 1e3, float(row["silicon_tpot_ms"]) / 1e3
    except (KeyError, ValueError, TypeError) as exc:
        if isinstance(exc, EngineInputError):
            raise
        raise EngineInputError(
            "row", f"cannot read a column: {exc}", code="map_column", params={"detail": str(exc)[:200]}
        ) from None
    return MeasuredRow(
        row.get("id", ""),
        row["model_path"],
        system,
        HARDWARE_OF_SYSTEM[system],
        backend or "",
        sc,
        ttft,
        tpot,
        campaign_of(row),
        split,
    )


def read_rows(path: str | Path = TRAINING_CSV) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def resolve_model(name: str):
    """A model by preset id or Hugging Face repo id (engine.model_catalog's resolver: a
    quantised release resolves to its base architecture)."""
    from ..model_catalog import get_model

    return get_model(name)
