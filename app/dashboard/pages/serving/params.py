"""The Serving page's URL parameters, each declared once (lib/params.py): its name in the
link, the ServingArgs field it sets, its limits (the engine's own) and the control that shows
it. The order of the rows is the order of the canonical link.

The page's chrome (`hw`, `lang`, `theme`, `embed`, `controls`, `present`) is read by the View
on every tab; the rest of the link is this table's.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.dashboard.lib.params import Choice, Float, Int, Invalid, Param, Why, typed_text
from app.dashboard.pages.roofline.params import MAX_HARDWARE, PRECISIONS, WhatIfs
from engine.model_catalog import nearest_model_names, preset_id_or_none
from engine.serving.scenario import (
    BACKENDS,
    DEFAULT_MEMORY_UTILIZATION,
    MAX_CONCURRENCY,
    MAX_GPUS,
    MAX_PREFILL_BATCH,
    MAX_TOKENS,
    MAX_WORKERS,
)

__all__ = ["MAX_HARDWARE", "PRECISIONS"]

BACKEND_CHOICES = ("any", *BACKENDS)
MODES = ("agg", "disagg")  # aggregated (one instance does both) | disaggregated (prefill and decode workers)
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
    # Disaggregated serving (engine.serving.disagg): prefill and decode workers, each side's
    # layout; a MoE split of None is the worker's GPUs over its expert parallelism. The layout
    # above stays the aggregated instance the deployment is compared with.
    mode: str = "agg"  # agg | disagg
    prefill_workers: int = 1
    prefill_tp: int = 4
    prefill_adp: int = 1
    prefill_moe_tp: int | None = None
    prefill_ep: int = 1
    prefill_batch: int = 1
    decode_workers: int = 1
    decode_tp: int = 4
    decode_adp: int = 1
    decode_moe_tp: int | None = None
    decode_ep: int = 1
    kv_link_gb_s: float | None = None  # None: auto (engine.serving.disagg.kv_link_for)
    kv_link_latency_us: float | None = None  # None: no link latency; only with a bandwidth


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


# The KV link's limits: the API's (app/api/serving_schemas.py KvLinkFields), GB/s and µs.
KV_LINK_GB_S = (0.001, 100_000.0)
KV_LINK_US = (0.001, 1e6)


class KvLinkText:
    """`kvlink=`: `auto`, a bandwidth in GB/s per GPU, or `GB/s:µs` (a latency per transfer
    too); on the page two boxes, the bandwidth (empty: auto) and the latency (empty: the
    calibrated one). Read and written as (GB/s or None, µs or None)."""

    def __init__(self) -> None:
        self.bandwidth = Float(*KV_LINK_GB_S)
        self.latency = Float(*KV_LINK_US)

    def parse(self, text: str) -> tuple[float | None, float | None]:
        if text == "auto":
            return None, None
        bandwidth, colon, latency = text.partition(":")
        return self.bandwidth.parse(bandwidth), self.latency.parse(latency) if colon else None

    def write(self, value: tuple) -> str:
        bandwidth, latency = value
        if bandwidth is None:
            return "auto"
        text = self.bandwidth.write(bandwidth)
        return text if latency is None else f"{text}:{self.latency.write(latency)}"

    def read_all(self, bandwidth: object, latency: object) -> tuple[tuple | None, list]:
        """(value, [(typed, why)]) from the two boxes: an empty bandwidth is auto (a latency typed
        beside it is not used, and is told so: it is a given link's), an empty latency none; a
        refused box is named by its own Why (`box`)."""
        if bandwidth in (None, ""):
            if latency in (None, ""):
                return (None, None), []
            # a latency is the given link's: with the link auto it is not used, and says so
            try:
                self.latency.read(latency)
            except Invalid as exc:
                return (None, None), [(typed_text(latency), Why(exc.why.code, exc.why.params | {"box": "lat"}))]
            return (None, None), [(typed_text(latency), Why("kvlink_latency_needs_bandwidth", {"box": "lat"}))]
        try:
            gb_s = self.bandwidth.read(bandwidth)
        except Invalid as exc:
            return None, [(typed_text(bandwidth), Why(exc.why.code, exc.why.params | {"box": "bw"}))]
        if latency in (None, ""):
            return (gb_s, None), []
        try:
            return (gb_s, self.latency.read(latency)), []
        except Invalid as exc:  # the bandwidth stands, with the calibrated latency
            return (gb_s, None), [(typed_text(latency), Why(exc.why.code, exc.why.params | {"box": "lat"}))]

    def show(self, value: tuple) -> tuple:
        return value


class AutoInt(Int):
    """A whole number, or None (an empty box, a link without it): worked out by the page."""

    def read(self, value: object) -> int | None:
        return None if value in (None, "") else super().read(value)


def _default(value):
    return lambda v: v == value


class DeploymentParam(Param):
    """A parameter of the disaggregated deployment: in the link only in that mode, so an
    aggregated link stays as it was."""

    def texts(self, state: object, template: bool = False) -> list[str]:
        return super().texts(state, template) if getattr(state, "mode", None) == "disagg" else []


def _side(side: str) -> tuple[Param, ...]:
    """One side's layout: `pworkers`, `ptp`, `pdp`, `pmtp`, `pep` (and `pbatch`), or `d...`."""
    s = side[0]
    rows = [
        ("workers", "workers", Int(1, MAX_WORKERS), None),
        ("tp", "tp", Int(1, 72), None),
        ("dp", "adp", Int(1, 72), None),
        ("mtp", "moe_tp", AutoInt(1, MAX_GPUS), None),
        ("ep", "ep", Int(1, MAX_GPUS), None),
    ]
    if side == "prefill":
        rows.append(("batch", "batch", Int(1, MAX_PREFILL_BATCH), _default(1)))
    return tuple(
        DeploymentParam(f"{s}{name}", f"{side}_{field}", kind, control=(f"srv-{s}{name}", "value"), omit=omit)
        for name, field, kind, omit in rows
    )


# The disaggregated deployment's parameters: in the link only in that mode.
DISAGG_PARAMS: tuple[Param, ...] = (
    *_side("prefill"),
    *_side("decode"),
    DeploymentParam(
        "kvlink",
        ("kv_link_gb_s", "kv_link_latency_us"),
        KvLinkText(),
        control=(("srv-kvbw", "value"), ("srv-kvlat", "value")),
        omit=_default((None, None)),
    ),
)
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
    Param("mode", "mode", Choice(MODES), control=("srv-mode", "value"), omit=_default("agg")),
    *DISAGG_PARAMS,
    Param("runs", "runs", RunsToken(), control=("srv-fit", "data")),
    Param("xhw", "what_if", WhatIfs(), control=("srv-what-if", "value"), repeat=True),
)
DISAGG = frozenset(p.name for p in DISAGG_PARAMS)
BY_NAME = {p.name: p for p in PARAMS}
OWN = frozenset(BY_NAME)
