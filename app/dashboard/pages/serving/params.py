"""The Serving page's URL parameters, each declared once (lib/params.py): its name in the
link, the ServingArgs field it sets, its limits (the engine's own) and the control that shows
it. The order of the rows is the order of the canonical link.

The page's chrome (`hw`, `lang`, `theme`, `embed`, `controls`, `present`) is read by the View
on every tab; the rest of the link is this table's.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.dashboard.lib.params import Choice, Float, Int, Invalid, Param
from app.dashboard.pages.roofline.params import MAX_HARDWARE, PRECISIONS, WhatIfs
from engine.model_catalog import nearest_model_names, preset_id_or_none
from engine.serving.scenario import BACKENDS, DEFAULT_MEMORY_UTILIZATION, MAX_CONCURRENCY, MAX_GPUS, MAX_TOKENS

__all__ = ["MAX_HARDWARE", "PRECISIONS"]

BACKEND_CHOICES = ("any", *BACKENDS)
DEFAULT_HARDWARE = ("h200-sxm",)
MAX_PRICE = 1000.0  # USD per GPU-hour: far above any rental price


@dataclass(frozen=True)
class ServingArgs:
    """A serving scenario as the page shows it: Llama-3.1-70B in FP8 on one H200 x TP 4 under
    TensorRT-LLM, 1,024 tokens in and out, 64 requests in flight (a pairing the shipped
    measured runs cover)."""

    model: str = "meta-llama/Llama-3.1-70B"
    hardware: tuple[str, ...] = DEFAULT_HARDWARE
    what_if: tuple[str, ...] = ()
    backend: str = "trtllm"
    precision: str = "fp8"
    tensor_parallel: int = 4
    attention_data_parallel: int = 1
    expert_parallel: int = 1
    input_tokens: int = 1024
    output_tokens: int = 1024
    concurrency: int = 64
    memory_utilization: float = DEFAULT_MEMORY_UTILIZATION
    gpu_hour_price: float | None = None
    runs: str | None = None  # the user's runs and the scenario they were fitted on (carried.py)


class Model:
    """`model=`: a preset id or a Hugging Face repo id (kept as given; the engine resolves it)."""

    def parse(self, text: str) -> str:
        if len(text) > 120 or preset_id_or_none(text) is None:
            raise Invalid("unknown_model", nearest=", ".join(nearest_model_names(text[:120])))
        return text

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, str):
            raise Invalid("unknown_model", nearest=", ".join(nearest_model_names("")))
        return self.parse(value)

    def show(self, value: str) -> str:
        return value


class RunsToken:
    """`runs=`: the user's runs and the scenario they were fitted on, packed (carried.py); the
    page fits them again wherever the link is opened."""

    def parse(self, text: str) -> str:
        from app.dashboard.pages.serving.carried import decode_runs  # carried.py reads PARAMS

        decode_runs(text)  # Invalid names what is wrong
        return text

    def write(self, value: str) -> str:
        return value

    def read(self, value: object) -> str:
        if not isinstance(value, dict) or not isinstance(value.get("runs"), str):
            raise Invalid("missing")
        return self.parse(value["runs"])

    def show(self, value) -> None:
        return None

    shows = False  # the fit's store is filled by the layout


def _default(value):
    return lambda v: v == value


PARAMS: tuple[Param, ...] = (
    Param("model", "model", Model(), control=("srv-model", "value")),
    Param("backend", "backend", Choice(BACKEND_CHOICES), control=("srv-backend", "value")),
    Param("prec", "precision", Choice(tuple(PRECISIONS)), control=("srv-prec", "value")),
    Param("tp", "tensor_parallel", Int(1, 72), control=("srv-tp", "value")),
    Param("adp", "attention_data_parallel", Int(1, 72), control=("srv-adp", "value"), omit=_default(1)),
    Param("ep", "expert_parallel", Int(1, MAX_GPUS), control=("srv-ep", "value"), omit=_default(1)),
    Param("isl", "input_tokens", Int(1, MAX_TOKENS), control=("srv-isl", "value")),
    Param("osl", "output_tokens", Int(1, MAX_TOKENS), control=("srv-osl", "value")),
    Param("conc", "concurrency", Int(1, MAX_CONCURRENCY), control=("srv-conc", "value")),
    Param(
        "memutil",
        "memory_utilization",
        Float(0.01, 1.0),
        control=("srv-memutil", "value"),
        omit=_default(DEFAULT_MEMORY_UTILIZATION),
    ),
    Param("price", "gpu_hour_price", Float(0, MAX_PRICE, open_low=True), control=("srv-price", "value")),
    Param("runs", "runs", RunsToken(), control=("srv-fit", "data")),
    Param("xhw", "what_if", WhatIfs(), control=("srv-what-if", "value"), repeat=True),
)
BY_NAME = {p.name: p for p in PARAMS}
OWN = frozenset(BY_NAME)
