"""A candidate opened on the serving page: the `/?tab=serving&...` link of the deployment whose
numbers the planner gave, so a reader can ask the serving page (and from there the roofline)
"why?". Written through the serving page's own parameter table (serving/params.py), from the
candidate's `serving_request` (the POST /api/v1/serving body that reproduces it).

A disaggregated candidate opens the serving page's disaggregated mode (`mode=disagg`, each
side's layout, workers and prefill batch, the KV link), its aggregated layout the decode side's.
"""

from __future__ import annotations

from dataclasses import replace

from app.dashboard.lib.params import query_string, write_link
from app.dashboard.pages.serving.params import PARAMS as SERVING_PARAMS
from app.dashboard.pages.serving.params import ServingArgs
from engine.hardware import get_accelerator
from engine.planner.space import PRECISIONS
from engine.serving.capacity import sglang_mem_fraction_static
from engine.serving.scenario import DEFAULT_MEMORY_UTILIZATION, ServingScenario

# ServingArgs' fields of a disaggregated side (`prefill_tp`, ...), from the serving body's
SIDE_FIELDS = (("tp", "tensor_parallel"), ("adp", "attention_data_parallel"), ("ep", "expert_parallel"),
               ("moe_tp", "moe_tensor_parallel"), ("workers", "workers"))  # fmt: skip


def _precision(body: dict) -> str:
    dtypes = (body["weight_dtype"], body["compute_dtype"], body["kv_dtype"])
    return next(name for name, d in PRECISIONS.items() if d == dtypes)


def memory_utilization(body: dict) -> float:
    """The serving page's memory utilisation for the body's: its number when it has one; with
    none (each backend's default), the default's value, which for SGLang depends on the card
    and the layout (engine.serving.capacity), so the page sizes the KV cache the same way."""
    if body["memory_utilization"] is not None:
        return body["memory_utilization"]
    if body["backend"] != "sglang" or "disaggregated" in body:
        return DEFAULT_MEMORY_UTILIZATION
    sc = ServingScenario(
        concurrency=1,
        tensor_parallel=body["tensor_parallel"],
        attention_data_parallel=body["attention_data_parallel"],
        backend="sglang",
    )
    return sglang_mem_fraction_static(get_accelerator(body["hardware"]), sc)


def _deployment(disagg: dict) -> dict:
    """ServingArgs' disaggregated fields of the body's `disaggregated` (the planner's link is auto)."""
    if disagg["kv_link"] != "auto":
        raise ValueError(f"a planner candidate's KV link is auto, not {disagg['kv_link']!r}")
    out = {"mode": "disagg", "prefill_batch": disagg["prefill"]["batch"]}
    for side in ("prefill", "decode"):
        out |= {f"{side}_{name}": disagg[side][field] for name, field in SIDE_FIELDS}
    return out


def serving_args(candidate: dict) -> ServingArgs:
    """The serving page's scenario of a candidate (aggregated: one instance at its concurrency;
    disaggregated: one xPyD unit at its concurrency, as its `serving_request` is)."""
    body = candidate["serving_request"]
    disagg = body.get("disaggregated")
    layout = body if disagg is None else disagg["decode"]
    args = replace(
        ServingArgs(),
        model=body["model"],
        hardware=(body["hardware"],),
        backend=body["backend"],
        precision=_precision(body),
        tensor_parallel=layout["tensor_parallel"],
        attention_data_parallel=layout["attention_data_parallel"],
        expert_parallel=layout["expert_parallel"],
        input_tokens=body["input_tokens"],
        output_tokens=body["output_tokens"],
        concurrency=body["concurrency"],
        memory_utilization=memory_utilization(body),
    )
    return args if disagg is None else replace(args, **_deployment(disagg))


def serving_link(candidate: dict, price: float | None, lang: str, theme: str) -> str:
    """`?tab=serving&model=...`: the candidate on the serving page, in the page's language and theme."""
    args = replace(serving_args(candidate), gpu_hour_price=price)
    pairs = [("tab", "serving"), ("hw", ",".join(args.hardware)), *write_link(SERVING_PARAMS, args)]
    pairs += [("lang", lang), ("theme", theme)]
    return "?" + query_string(pairs)
