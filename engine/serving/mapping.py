"""How a measured-run row (aiconfigurator's silicon_sample.csv columns) becomes a scenario.

The mapping is the one published/serving/README.md states: system -> hardware id, the GEMM
quantisation mode -> weight and compute dtypes (KV in fp8 whenever the weights are below 16
bits), parallel degrees as recorded (empty or 0 means 1; world_size_layout says how a rack's
MLA rows are read), concurrency = the benchmark's `silicon_concurrency=N` in
silicon_data_source, else batch_size (on attention-DP rows batch_size is one rank's batch). A
disaggregated row (mode `disagg`) becomes a DisaggScenario: prefill_* and decode_* layouts,
their worker counts and the prefill batch. Where a count is empty, the benchmark's published
recipe for that deployment supplies both, and its attention DP (engine.serving.recipes;
`workers_from` "recipe"), else one worker per side is assumed (`workers_from` "assumed");
either way `workers_recorded` is False, and `candidates` holds the recipes the run may have
been (one, several, or none). A number that is not finite, not whole where a count
is, or outside its range is an error naming its column: no row maps onto a run that could not
have happened.

Files are read as a stream of rows (`stream_rows`): only a regular file, at most
MAX_FILE_BYTES and MAX_ROWS rows, both checked before the first row is read.
"""

from __future__ import annotations

import csv
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import EngineInputError
from .recipes import Recipe, published_candidates, published_recipe
from .scenario import BACKENDS, MAX_CONCURRENCY, MAX_GPUS, MAX_TOKENS, DisaggScenario, ServingScenario, WorkerLayout

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
MODES = ("", "agg", "disagg")  # the `mode` column's values; empty is an aggregated row
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
    # a disaggregated row whose prefill_num_workers or decode_num_workers is empty (or 0) is not
    # recorded: its counts come from the benchmark's published recipe where one matches
    # ("recipe"), else one worker per side is assumed ("assumed") and the real deployment may be larger
    workers_recorded: bool = True
    workers_from: str = "recorded"  # "recorded", "recipe" or "assumed"
    recipe: Recipe | None = None  # the published recipe the counts come from
    # a row without recorded counts: the published recipes it may have been (engine.serving.recipes.
    # published_candidates), each once; validate answers each where the counts or decoding are not one
    candidates: tuple[Recipe, ...] = ()

    @property
    def mtp_draft_tokens(self) -> int | None:
        """k where the run's recipe decodes with multi-token prediction of k draft tokens (its
        recipe's name says how many); None otherwise."""
        recipe = self.recipe if self.workers_from == "recipe" else None
        return recipe.draft_tokens if recipe is not None and recipe.speculative == "mtp" else None

    @property
    def may_run_mtp(self) -> bool:
        """Its counts come from a recipe that decodes with MTP, or lists MTP beside plain decoding."""
        return self.workers_from == "recipe" and self.recipe.speculative != "none"

    @property
    def tpot_describable(self) -> bool:
        """The estimate describes this run's TPOT: an aggregated run, or a disaggregated one whose
        worker counts are known and whose decoding is: recorded counts, or a recipe that decodes a
        token a step or runs MTP of a named k. A recipe that lists MTP beside plain decoding at
        the run's concurrency, or names no k, leaves the decoding unknown."""
        if self.workers_from == "recipe":
            return self.recipe.speculative == "none" or self.mtp_draft_tokens is not None
        return self.workers_from == "recorded"

    @property
    def one_token_a_step(self) -> bool:
        """Its TPOT is described and decodes a token a step (no MTP drafts): the runs the fit's
        TPOT and the planner's measured points take."""
        return self.tpot_describable and self.mtp_draft_tokens is None


# Measured times a run can have, ms: a microsecond to 1e7 ms (2.8 hours; the shipped runs span
# 2.3 ms to 462 s). Outside, a time is a recording error, and its ratio to an estimate could
# overflow (1e-320 ms) or mean nothing (0, negative, inf, 1e308).
MIN_MS, MAX_MS = 1e-3, 1e7
# Longest text of a number read (a digit string of 10,000 characters is not a count)
MAX_NUMBER_CHARS = 32


def _number(row: dict, column: str) -> float:
    """A column's finite number; EngineInputError naming the column otherwise."""
    text = (row.get(column) or "").strip()
    try:
        value = float(text) if len(text) <= MAX_NUMBER_CHARS else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        shown = repr(text[:MAX_NUMBER_CHARS])
        raise EngineInputError(column, f"{shown} is not a finite number", code="finite", params={"value": shown})
    return value


def _whole(row: dict, column: str, low: int, high: int) -> int:
    value = _number(row, column)
    if value != int(value) or not low <= value <= high:
        raise EngineInputError(
            column,
            f"{value:g} is not an integer in [{low}, {high}]",
            code="int_range",
            params={"value": f"{value:g}", "low": low, "high": high},
        )
    return int(value)


def _degree(row: dict, column: str) -> int:
    """A parallel degree as recorded: empty or 0 means 1, else a whole number of GPUs."""
    if not (row.get(column) or "").strip() or _number(row, column) == 0:
        return 1
    return _whole(row, column, 1, MAX_GPUS)


def _ms(row: dict, column: str) -> float:
    """A measured time in ms, as seconds."""
    value = _number(row, column)
    if not MIN_MS <= value <= MAX_MS:
        raise EngineInputError(
            column,
            f"{value:g} ms is not a measured time (allowed: {MIN_MS:g} to {MAX_MS:g} ms)",
            code="number_range",
            params={"value": f"{value:g}", "low": MIN_MS, "high": MAX_MS},
        )
    return value / 1e3


def concurrency_of(row: dict) -> int:
    """The benchmark's requests in flight: `silicon_concurrency=N` where the source column holds
    it, else batch_size (the data README: on attention-DP rows batch_size is one rank's)."""
    found = _CONCURRENCY.search(row.get("silicon_data_source") or "")
    if not found:
        return _whole(row, "batch_size", 1, MAX_CONCURRENCY)
    value = int(found.group(1))
    if not 1 <= value <= MAX_CONCURRENCY:  # stated, and out of range: not a reason to read another column
        raise EngineInputError(
            "silicon_data_source", f"silicon_concurrency={value} is not an integer in [1, {MAX_CONCURRENCY}]",
            code="int_range", params={"value": value, "low": 1, "high": MAX_CONCURRENCY},
        )  # fmt: skip
    return value


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
    return attention_dp_over(tp, moe_tp, ep)


def attention_dp_over(world: int, moe_tp: int, ep: int) -> tuple:
    """A worker whose recorded tensor-parallel degree is its world size, read with attention data
    parallelism over it: (1, world, moe TP, EP), the recorded MoE split where it covers the world,
    else expert parallel over all of it."""
    if moe_tp * ep != world:
        moe_tp, ep = 1, world
    return 1, world, moe_tp, ep


RACK_SCALE = ("gb200", "gb300")  # NVL72 racks: hardware/gb200.yaml, gb300.yaml scale_up_domain_size 72


def _worker(row: dict, side: str) -> WorkerLayout:
    tp, adp, moe_tp, ep = world_size_layout(
        _degree(row, f"{side}_tp_size"),
        _degree(row, f"{side}_attention_dp_size"),
        _degree(row, f"{side}_moe_tp_size"),
        _degree(row, f"{side}_moe_ep_size"),
        row.get("model_path", ""),
        row.get("system", ""),
    )
    return WorkerLayout(
        workers=_degree(row, f"{side}_num_workers"),
        tensor_parallel=tp,
        attention_data_parallel=adp,
        moe_tensor_parallel=moe_tp,
        expert_parallel=ep,
        batch=_degree(row, "prefill_batch_size") if side == "prefill" else 1,
    )


def _instance_layout(row: dict) -> tuple:
    return world_size_layout(
        _degree(row, "tp_size"),
        _degree(row, "attention_dp_size"),
        _degree(row, "moe_tp_size"),
        _degree(row, "moe_ep_size"),
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
    model = row.get("model_path") or ""
    if not model.strip():
        raise EngineInputError(
            "model_path", "cannot read a column: empty", code="map_column", params={"detail": "empty"}
        )
    mode = (row.get("mode") or "").strip().lower()
    if mode not in MODES:  # a mode read as another would answer a deployment nobody ran
        raise EngineInputError(
            "mode", f"{mode[:40]!r} is not a mode", "agg, disagg or empty (agg)", code="map_mode",
            params={"value": repr(mode[:40]), "allowed": "agg, disagg or empty (agg)"},
        )  # fmt: skip
    disagg = mode == "disagg"
    layout = (1, 1, 1, 1) if disagg else _instance_layout(row)
    sc = ServingScenario(
        concurrency=concurrency_of(row),
        input_tokens=_whole(row, "isl", 1, MAX_TOKENS),
        output_tokens=_whole(row, "osl", 1, MAX_TOKENS),
        tensor_parallel=layout[0],
        attention_data_parallel=layout[1],
        moe_tensor_parallel=layout[2],
        expert_parallel=layout[3],
        weight_dtype=weight,
        compute_dtype=compute,
        kv_dtype=kv,
        backend=backend if backend in BACKENDS else None,  # another tool's backend: the "any" calibration
    )
    split = DisaggScenario(sc, _worker(row, "prefill"), _worker(row, "decode")) if disagg else None
    ttft, tpot = _ms(row, "silicon_ttft_ms"), _ms(row, "silicon_tpot_ms")
    hardware = HARDWARE_OF_SYSTEM[system]
    recorded = not disagg or all(_recorded(row, f"{side}_num_workers") for side in ("prefill", "decode"))
    recipe = None if recorded else _recipe_of(row, split, published_recipe)
    candidates = () if recorded else _recipe_of(row, split, published_candidates)
    if recipe is not None:
        split = as_recipe_ran(split, recipe)
    workers_from = "recorded" if recorded else ("recipe" if recipe is not None else "assumed")
    return MeasuredRow(
        row.get("id") or "",
        model,
        system,
        hardware,
        backend or "",
        sc,
        ttft,
        tpot,
        campaign_of(row),
        split,
        recorded,
        workers_from,
        recipe,
        candidates,
    )


def _recipe_of(row: dict, split: DisaggScenario, lookup: Callable):
    """What `lookup` (engine.serving.recipes: published_recipe, published_candidates) answers for
    this row's deployment."""
    fields = _source_fields(row.get("silicon_data_source") or "")
    return lookup(
        row.get("system", ""),
        (row.get("precision") or "").strip(),
        row.get("backend") or "",
        (split.base.input_tokens, split.base.output_tokens),
        split.base.concurrency,
        (split.prefill.gpus, split.decode.gpus),
        fields.get("image", ""),
    )


def as_recipe_ran(split: DisaggScenario, recipe: Recipe) -> DisaggScenario:
    """A row's deployment with its recipe's worker counts and attention DP on each side."""
    return replace(
        split,
        prefill=_recipe_side(split.prefill, recipe.prefill_workers, recipe.prefill_attention_dp),
        decode=_recipe_side(split.decode, recipe.decode_workers, recipe.decode_attention_dp),
    )


def _recipe_side(side: WorkerLayout, workers: int, attention_dp: bool | None) -> WorkerLayout:
    """A side as its recipe ran it: its worker count, and attention data parallelism where the
    recipe turns it on (dp-attn) over a row that records the worker's GPUs as tensor parallel
    alone (TensorRT-LLM's and SGLang's tp is the world size, attention DP a switch beside it:
    world_size_layout), the experts as attention_dp_over reads them."""
    side = replace(side, workers=workers)
    if not attention_dp or side.attention_data_parallel > 1 or side.tensor_parallel == 1:
        return side
    layout = attention_dp_over(side.tensor_parallel, side.moe_tensor_parallel, side.expert_parallel)
    names = ("tensor_parallel", "attention_data_parallel", "moe_tensor_parallel", "expert_parallel")
    return replace(side, **dict(zip(names, layout, strict=True)))


def _source_fields(source: str) -> dict[str, str]:
    """silicon_data_source's `key=value; ...` fields."""
    pairs = (part.split("=", 1) for part in source.split(";") if "=" in part)
    return {key.strip(): value.strip() for key, value in pairs}


def _recorded(row: dict, column: str) -> bool:
    """A count the row states (not empty, not 0: _degree reads both as 1)."""
    return bool((row.get(column) or "").strip()) and _number(row, column) != 0


# What `stream_rows` reads: the shipped file is 0.7 MB and 1,862 rows; aiconfigurator's whole
# silicon_sample.csv a few MB. A row costs one to two milliseconds to answer (scripts/
# bench_hostile.py), so a file at the row limit takes a few minutes, in flat memory.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_ROWS = 100_000
REQUIRED_COLUMNS = ("model_path", "system", "batch_size", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms")


@dataclass(frozen=True)
class CsvRow:
    """One row of a file: its first line (the header is line 1) and its fields, or what the
    CSV reader found wrong with it (a field longer than the csv module's 131,072 characters)."""

    line: int
    fields: dict
    problem: EngineInputError | None = None


def _refuse(path: object, detail: str, code: str, params: dict) -> EngineInputError:
    return EngineInputError("--data", f"{path}: {detail}", code=code, params=params)


def _open_regular(path: str | Path):
    """The file opened for reading, or EngineInputError: only a regular file (a FIFO blocked
    forever, /dev/zero grew to gigabytes) of at most MAX_FILE_BYTES. Opened without blocking,
    then checked on the open descriptor, so nothing can be swapped in between."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        detail = getattr(exc, "strerror", None) or str(exc)
        raise _refuse(path, f"cannot open: {detail}", "file_open", {"detail": detail}) from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        detail = "not a regular file (a pipe, device or directory is not read)"
        raise _refuse(path, detail, "file_open", {"detail": detail})
    if info.st_size > MAX_FILE_BYTES:
        os.close(fd)
        detail = f"file larger than {MAX_FILE_BYTES:,} bytes ({MAX_FILE_BYTES // 2**20} MiB): {info.st_size:,} bytes"
        raise _refuse(path, detail, "file_size", {"n": MAX_FILE_BYTES})
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _count_lines(f) -> int:
    """Physical lines of a binary file (a last line without its newline counted), then rewound."""
    lines, last = 0, b"\n"
    for chunk in iter(lambda: f.read(1 << 20), b""):
        lines, last = lines + chunk.count(b"\n"), chunk[-1:]
    f.seek(0)
    return lines + (last != b"\n")


def stream_rows(path: str | Path = TRAINING_CSV) -> Iterator[CsvRow]:
    """The rows of a CSV file one at a time (memory does not grow with the file), each with its
    line. Refuses the file (EngineInputError, field --data) when it is not a regular file, is
    over MAX_FILE_BYTES or MAX_ROWS rows (counted by lines before any row is read), is not
    UTF-8, or its header lacks a REQUIRED_COLUMNS column."""
    with _open_regular(path) as raw:
        lines = _count_lines(raw)
        if lines - 1 > MAX_ROWS:  # a row takes at least one line
            detail = f"{lines - 1:,} lines after the header: more than the {MAX_ROWS:,} rows one file may hold"
            raise _refuse(path, detail, "too_many_records", {"n": MAX_ROWS})
        # a byte-order mark (a spreadsheet's export) is not part of the first column's name
        text = (line.decode("utf-8-sig" if i == 0 else "utf-8") for i, line in enumerate(raw))
        reader = csv.DictReader(text)
        try:
            if reader.fieldnames is None:
                raise _refuse(path, "cannot read a column: the file is empty", "map_column", {"detail": "empty"})
            missing = [c for c in REQUIRED_COLUMNS if c not in reader.fieldnames]
            if missing:
                detail = f"the header has no column {', '.join(missing)}"
                raise _refuse(path, f"cannot read a column: {detail}", "map_column", {"detail": detail})
            while True:
                start = reader.line_num + 1
                try:
                    row = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:  # the reader goes on at the next line
                    yield CsvRow(start, {}, EngineInputError("row", f"not valid CSV ({exc})", code="csv_invalid"))
                    continue
                yield CsvRow(start, row)
        except UnicodeDecodeError as exc:
            line = reader.line_num + 1
            raise _refuse(path, f"not UTF-8 text (line {line})", "file_utf8", {"n": exc.start}) from None


def read_rows(path: str | Path = TRAINING_CSV) -> list[dict]:
    """Every row of a CSV file (the shipped one: scripts/fit_serving.py, the page's runs)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def resolve_model(name: str):
    """A model by preset id or Hugging Face repo id (engine.model_catalog's resolver: a
    quantised release resolves to its base architecture)."""
    from ..model_catalog import get_model

    return get_model(name)
