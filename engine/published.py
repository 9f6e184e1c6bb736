"""Published measurements beside the bounds (docs/reality-check.md).

`published/*.yaml` holds measured figures from public sources whose scenario is stated well
enough to place on the roofline (model, accelerator, precision, TP, batch, input and output
lengths). For each one the engine computes, for exactly that scenario:

- `bound`: the best the roofs allow for the measured figure, in its unit (tokens/s cannot be
  higher, ms cannot be lower): from the `request` block (engine/request.py);
- `fraction_of_bound` = bound time / measured time (1 = on the roof; above 1 means the entry
  or the engine is wrong, and the file must say which);
- `mbu` (model bandwidth utilisation, Databricks "LLM Inference Performance Engineering: Best
  Practices", 2023): bytes the engine counts for the measured interval / measured time /
  peak bandwidth, per GPU;
- `mfu`: FLOPs the engine counts for the interval / measured time / peak tensor FLOP/s of the
  compute dtype, per GPU (PaLM's MFU with the engine's FLOP count instead of 2N per token;
  meaningful where the interval is compute-heavy: prefill, large batches).

The measured interval depends on the metric: a static-batch throughput covers the whole
request (prefill + N decode steps); a per-token time or a per-user rate covers the decode
steps only; a TTFT covers the prefill only.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .analysis import MAX_BATCH, MAX_CONTEXT, Scenario, analyze_one
from .errors import EngineInputError, schema_error
from .hardware import get_accelerator
from .model_catalog import get_model
from .precision import DTYPES
from .request import decode_steps_sums, request_block

PUBLISHED_DIR = Path(__file__).resolve().parent.parent / "published"
MAX_FILE_BYTES = 512 * 1024

Metric = Literal[
    "output_tokens_per_s_per_gpu",
    "output_tokens_per_s",
    "output_tokens_per_s_per_sequence",
    "ms_per_output_token",
    "ttft_ms",
]
Dtype = Literal[DTYPES]  # type: ignore[valid-type]
Text = Annotated[str, Field(min_length=1, max_length=2000)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PublishedSource(_Strict):
    document: Text = Field(description="title of the document (and where it lives)")
    url: Text = Field(description="where to read it")
    table: Text = Field(description="table or figure the number is in")
    date: Annotated[str, Field(min_length=4, max_length=60)] = Field(description="when it was published / measured")
    quote: Text = Field(description="the number as printed, verbatim (table cells joined by ' | ')")


class PublishedEntry(_Strict):
    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9.\-]{0,95}$")] = Field(description="unique id")
    model: Annotated[str, Field(max_length=64)] = Field(description="model preset id (engine/presets)")
    accelerator: Annotated[str, Field(max_length=64)] = Field(description="accelerator id (hardware/)")
    weight_dtype: Dtype = Field(description="weights as served")
    kv_dtype: Dtype = Field(description="KV cache as served")
    compute_dtype: Dtype = Field(description="matrix math")
    tensor_parallel: Literal[1, 2, 4, 8] = Field(description="GPUs the model is split over")
    batch_size: Annotated[int, Field(ge=1, le=MAX_BATCH)] = Field(description="sequences run together")
    input_tokens: Annotated[int, Field(ge=1, le=MAX_CONTEXT)] = Field(description="prompt tokens per sequence")
    output_tokens: Annotated[int, Field(ge=1, le=MAX_CONTEXT)] = Field(description="generated tokens per sequence")
    batching: Literal["static"] = Field(description="static: the batch is prefilled together, then decodes N tokens")
    metric: Metric = Field(description="what was measured")
    value: Annotated[float, Field(gt=0, le=1e9, allow_inf_nan=False)] = Field(description="the measured figure")
    source: PublishedSource = Field(description="where the number comes from")
    notes: Annotated[str, Field(max_length=4000)] = Field("", description="how the entry was read, caveats")
    verdict: Annotated[str, Field(max_length=4000)] = Field(
        "", description="required when the entry is above its bound: which side (entry or engine) is wrong and why"
    )


class PublishedFile(_Strict):
    measurements: Annotated[list[PublishedEntry], Field(min_length=1, max_length=1000)]


def load_file(path: Path) -> list[PublishedEntry]:
    if path.stat().st_size > MAX_FILE_BYTES:
        raise EngineInputError(
            str(path), f"file larger than {MAX_FILE_BYTES} bytes", code="file_size", params={"n": MAX_FILE_BYTES}
        )
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        return PublishedFile.model_validate(data).measurements
    except yaml.YAMLError as exc:
        raise EngineInputError(
            str(path), f"not valid YAML: {exc}", code="yaml_invalid", params={"detail": str(exc)[:300]}
        ) from None
    except ValidationError as exc:
        raise schema_error(str(path), exc.errors()[0]) from None


@lru_cache(maxsize=2)
def _load(directory: str) -> tuple[PublishedEntry, ...]:
    entries: list[PublishedEntry] = []
    for path in sorted(Path(directory).glob("*.yaml")):
        entries += load_file(path)
    ids = [e.id for e in entries]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise EngineInputError(
            "published: id",
            f"duplicate ids {duplicates}",
            code="published_duplicates",
            params={"value": ", ".join(duplicates)[:300]},
        )
    return tuple(entries)


def published_entries(directory: Path = PUBLISHED_DIR) -> tuple[PublishedEntry, ...]:
    """Every entry of `published/*.yaml`, validated (models and accelerators must exist)."""
    entries = _load(str(directory))
    for e in entries:
        get_model(e.model)
        get_accelerator(e.accelerator)
    return entries


def place(entry: PublishedEntry) -> dict:
    """The entry with its bound, fraction of the bound, MBU and MFU (see the module doc)."""
    model, hw = get_model(entry.model), get_accelerator(entry.accelerator)
    scenario = Scenario(
        batch_size=entry.batch_size,
        context_length=entry.input_tokens,
        weight_dtype=entry.weight_dtype,
        kv_dtype=entry.kv_dtype,
        compute_dtype=entry.compute_dtype,
        tensor_parallel=entry.tensor_parallel,
        # The run happened on that card, so `fits` asks whether the card could hold it at all;
        # a serving engine's 0.9 default would call one of these runs (Llama-2-7B fp16 on an
        # A100, 60 x 2,176 tokens at the last step) impossible.
        memory_utilization=1.0,
    )
    block = request_block(model, hw, scenario, entry.output_tokens)
    result = analyze_one(model, hw, scenario)
    steps = decode_steps_sums(model, hw, scenario, entry.batch_size, entry.output_tokens)
    b, n, tp, v = entry.batch_size, entry.output_tokens, entry.tensor_parallel, entry.value
    prefill, decode = result["prefill"], {"flops": float(steps["flops"]), "bytes": float(steps["bytes"])}
    whole = {"flops": prefill["flops"] + decode["flops"], "bytes": prefill["bytes"] + decode["bytes"]}
    if entry.metric in ("output_tokens_per_s_per_gpu", "output_tokens_per_s"):
        gpus = tp if entry.metric == "output_tokens_per_s_per_gpu" else 1
        measured_s, bound_s, work = b * n / (v * gpus), block["e2e_s"], whole
        bound = block["output_tokens_per_s"] / gpus
    elif entry.metric == "ms_per_output_token":
        measured_s, bound_s, work = v / 1e3 * n, block["decode_time_s"], decode
        bound = block["tpot_s"] * 1e3
    elif entry.metric == "output_tokens_per_s_per_sequence":
        measured_s, bound_s, work = n / v, block["decode_time_s"], decode
        bound = block["output_tokens_per_s_per_sequence"]
    else:  # ttft_ms
        measured_s, bound_s, work = v / 1e3, block["ttft_s"], prefill
        bound = block["ttft_s"] * 1e3
    peak_flops = result["tensor_flops_per_s"]
    return entry.model_dump() | {
        "bound": bound,
        "fraction_of_bound": bound_s / measured_s,
        "measured_time_s": measured_s,
        "bound_time_s": bound_s,
        # where the measured interval sits on the roofline: its intensity and achieved FLOP/s
        "flops": work["flops"],
        "bytes": work["bytes"],
        "intensity": work["flops"] / work["bytes"],
        "achieved_flops_per_s": work["flops"] / measured_s,
        "mbu": work["bytes"] / measured_s / hw.memory_bandwidth_bytes_per_s,
        "mfu": work["flops"] / measured_s / peak_flops,
        "tensor_dtype": result["tensor_dtype"],
        "fits": bool(result["memory"]["fits"]) and block["fits_at_end"],
    }


def published_measurements(directory: Path = PUBLISHED_DIR) -> list[dict]:
    """Every entry placed against its bound, in file order (computed once per directory:
    the files and the catalogues do not change while the process runs)."""
    return [dict(item) for item in _placed(str(directory))]


@lru_cache(maxsize=2)
def _placed(directory: str) -> tuple[dict, ...]:
    return tuple(place(e) for e in published_entries(Path(directory)))


# Why a published run is left out of a scenario, in the order the reasons are checked.
LEFT_OUT_REASONS = ("other_model", "other_precision", "other_accelerator")
_REASON_WORDS = {
    "other_model": "of another model",
    "other_precision": "in another precision",
    "other_accelerator": "on another accelerator",
}


def left_out_reason(
    entry: dict,
    model_id: str | None = None,
    weight_dtype: str | None = None,
    compute_dtype: str | None = None,
    hardware_ids: tuple[str, ...] | list[str] | None = None,
) -> str | None:
    """None when the run matches the scenario (an unset criterion matches anything), else the
    first of LEFT_OUT_REASONS it fails. Precision is the weights and the matrix math, what a
    serving precision names (W8A8 = fp8/fp8, W4A16 = int4/bf16)."""
    if model_id is not None and entry["model"] != model_id:
        return "other_model"
    if (weight_dtype is not None and entry["weight_dtype"] != weight_dtype) or (
        compute_dtype is not None and entry["compute_dtype"] != compute_dtype
    ):
        return "other_precision"
    if hardware_ids is not None and entry["accelerator"] not in hardware_ids:
        return "other_accelerator"
    return None


def published_for(
    model_id: str | None = None,
    weight_dtype: str | None = None,
    compute_dtype: str | None = None,
    hardware_ids: tuple[str, ...] | list[str] | None = None,
    directory: Path = PUBLISHED_DIR,
) -> dict:
    """The published runs of one scenario's model and precision (and, given ids, on its
    accelerators), with how many were left out and why. A run of another model or precision
    has another bound: drawn beside this scenario's roofs it would compare unlike things, so it
    is left out, and counted, so the reader knows it exists."""
    items: list[dict] = []
    left_out = dict.fromkeys(LEFT_OUT_REASONS, 0)
    for entry in published_measurements(directory):
        why = left_out_reason(entry, model_id, weight_dtype, compute_dtype, hardware_ids)
        if why is None:
            items.append(entry)
        else:
            left_out[why] += 1
    count = sum(left_out.values())
    return {"items": items, "left_out": left_out, "left_out_count": count, "note": left_out_note(len(items), left_out)}


def left_out_note(shown: int, left_out: dict[str, int]) -> str:
    """'2 published runs match; 17 left out: 15 of another model, 2 in another precision.'"""
    runs = "published run matches" if shown == 1 else "published runs match"
    parts = [f"{n} {_REASON_WORDS[k]}" for k, n in left_out.items() if n]
    count = sum(left_out.values())
    return f"{shown} {runs}" + (f"; {count} left out: {', '.join(parts)}." if count else ".")


__all__ = [
    "LEFT_OUT_REASONS",
    "PublishedEntry",
    "left_out_reason",
    "place",
    "published_entries",
    "published_for",
    "published_measurements",
]
