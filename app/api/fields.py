"""Request fields several endpoints share, each declared once: its type, limits and words."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from engine.precision import DTYPES

Dtype = Literal[DTYPES]  # type: ignore[valid-type]
WeightDtype = Annotated[Dtype, Field(description="storage format of the weights")]
KvDtype = Annotated[Dtype, Field(description="storage format of the KV cache")]
ComputeDtype = Annotated[Dtype, Field(description="format of the matrix math (selects the tensor roof)")]
MemoryUtilization = Annotated[
    float,
    Field(
        gt=0,
        le=1.0,
        allow_inf_nan=False,
        description="fraction of each accelerator's memory the server may fill (0 < x <= 1; default 0.9, "
        "vLLM's gpu_memory_utilization default; 1.0 = the whole card): what fits, the running batch, max "
        "batch, max context and min TP use capacity x this",
    ),
]
