"""How a measured-run row (aiconfigurator's silicon_sample.csv columns) becomes a scenario.

The mapping is the one published/serving/README.md states: system -> hardware id, the GEMM
quantisation mode -> weight and compute dtypes (KV in fp8 whenever the weights are below 16
bits), parallel degrees as recorded (empty or 0 means 1), concurrency = batch_size.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from ..errors import EngineInputError
from .scenario import ServingScenario

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


@dataclass(frozen=True)
class MeasuredRow:
    id: str
    model: str
    system: str
    hardware: str
    backend: str
    scenario: ServingScenario
    ttft_s: float
    tpot_s: float


def _degree(value: str | None) -> int:
    text = (value or "").strip()
    return int(float(text)) if text and float(text) > 0 else 1


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
    try:
        sc = ServingScenario(
            concurrency=int(row["batch_size"]),
            input_tokens=int(row["isl"]),
            output_tokens=int(row["osl"]),
            tensor_parallel=_degree(row.get("tp_size")),
            attention_data_parallel=_degree(row.get("attention_dp_size")),
            moe_tensor_parallel=_degree(row.get("moe_tp_size")),
            expert_parallel=_degree(row.get("moe_ep_size")),
            weight_dtype=weight,
            compute_dtype=compute,
            kv_dtype=kv,
            backend=backend if backend in ("trtllm", "vllm", "sglang") else None,
        )
        ttft, tpot = float(row["silicon_ttft_ms"]) / 1e3, float(row["silicon_tpot_ms"]) / 1e3
    except (KeyError, ValueError, TypeError) as exc:
        if isinstance(exc, EngineInputError):
            raise
        raise EngineInputError(
            "row", f"cannot read a column: {exc}", code="map_column", params={"detail": str(exc)[:200]}
        ) from None
    return MeasuredRow(
        row.get("id", ""), row["model_path"], system, HARDWARE_OF_SYSTEM[system], backend or "", sc, ttft, tpot
    )


def read_rows(path: str | Path = TRAINING_CSV) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def resolve_model(name: str):
    """A model by preset id or Hugging Face repo id (engine.model_catalog's resolver: a
    quantised release resolves to its base architecture)."""
    from ..model_catalog import get_model

    return get_model(name)
