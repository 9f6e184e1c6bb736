"""Measured numbers next to the model: import measurements, place them under the roofs with
their gap, and MFU/MBU from a measured decode step (the distance between what
you got and the roof: Databricks 2023 on MBU; measure a baseline, then reason).

Formats, all parsed as text, never executed; a file is imported whole or not at all:
- "csv" / "json": our own records — name, flops, bytes, time_s[, phase, hardware].
- "torch_table": the text of torch.profiler `key_averages().table(...)`.
- "chrome_trace": a torch.profiler chrome trace (JSON), GPU kernel events.
- "ncu_csv": Nsight Compute `ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,
  dram__bytes_write.sum[,smsp__sass_thread_inst_executed_op_{f,h,d}{add,mul,fma}_pred_on.sum]`.
Profiler rows carry times (and sometimes FLOPs or bytes) but not our op names: they are
mapped to op families (matmul, attention, norm, activation, residual_add, softmax, rope,
copy) and, where a count is missing, the model's predicted FLOPs/bytes for that family
supply it, so a measured time becomes a point at the predicted intensity.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass

from .errors import EngineInputError
from .metrics import mfu, training_flops_per_token

# Rows one import may hold. Parsing, placing and answering cost ~0.1 ms a row on one core
# (scripts/bench_hostile.py): 4,096 rows keep the import and the page's redraw well under a
# second; a profile of one decode step has a few hundred kernels.
MAX_RECORDS = 4096
# Lines a csv or torch_table file may have before it is parsed: the rows plus headers, rules
# and blank lines; a longer file is refused without parsing it.
_MAX_TABLE_LINES = MAX_RECORDS + 64
# A measured decode step (MBU/MFU): at most an hour, the one limit the API and the page use.
MAX_MEASURED_STEP_S = 3600.0
# Physical sanity bounds on one record (before dividing by `steps`): counts up to 1e30 and
# times from a femtosecond to a day keep every derived rate finite in float64.
MAX_COUNT = 1e30
MIN_TIME_S = 1e-15
MAX_TIME_S = 86_400.0
# ASCII-only number grammar: Python's float() also takes Arabic-Indic digits, "1_000",
# "inf" and "nan", none of which a profiler writes.
_NUMBER = re.compile(r"[+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")
FORMATS = ("csv", "json", "torch_table", "chrome_trace", "ncu_csv")

# Names are matched on their first MAX_NAME_MATCH_CHARS characters: a templated CUDA kernel
# name runs to a few hundred characters, and the match must cost the same for a 250 KB one.
MAX_NAME_MATCH_CHARS = 512
# profiler / kernel name -> our op family (first match wins). Every pattern is a plain
# alternation of literals (no `.*` between two literals, which backtracks quadratically on a
# name that repeats the first literal); "vectorized_elementwise ... add" is a substring test.
FAMILY_PATTERNS: tuple[tuple[str, str], ...] = (
    ("attention", r"flash|fmha|attention|attn|sdpa|scaled_dot_product|paged_attention|mla"),
    ("norm", r"rms_?norm|layer_?norm|native_layer_norm"),
    ("activation", r"silu|gelu|swiglu|act_and_mul|sigmoid"),
    ("softmax", r"softmax"),
    ("rope", r"rotary|rope"),
    ("matmul", r"gemm|gemv|matmul|aten::mm|aten::addmm|aten::bmm|aten::linear|cutlass|cublas|sm\d+_xmma|nvjet|wgmma"),
    ("residual_add", r"aten::add|add_kernel|elementwise_add|\badd\b"),
    ("copy", r"copy|transpose|cat|contiguous|aten::to\b"),
)
# our op names -> family, to sum the model's prediction per family
OP_FAMILY = {
    "attention": "attention",
    "attention_scores": "attention",
    "attention_values": "attention",
    "attention_softmax": "softmax",
    "logits_softmax": "softmax",
    "attn_norm": "norm",
    "mlp_norm": "norm",
    "final_norm": "norm",
    "post_norm": "norm",
    "qk_norm": "norm",
    "latent_norm": "norm",
    "activation": "activation",
    "residual_add": "residual_add",
    "rope": "rope",
}


_FAMILY_REGEXES = tuple((family, re.compile(pattern)) for family, pattern in FAMILY_PATTERNS)


def _elementwise_add(lowered: str) -> bool:
    """PyTorch's `vectorized_elementwise_kernel<..., CUDAFunctor_add<...>>`: "add" after the
    kernel's name, found in linear time."""
    start = lowered.find("vectorized_elementwise")
    return start >= 0 and "add" in lowered[start + len("vectorized_elementwise") :]


def op_family(name: str) -> str | None:
    lowered = name[:MAX_NAME_MATCH_CHARS].lower()
    for family, regex in _FAMILY_REGEXES:
        if regex.search(lowered) or (family == "residual_add" and _elementwise_add(lowered)):
            return family
    return None


def family_of_op(op_name: str) -> str:
    return OP_FAMILY.get(op_name, "matmul" if op_name != "embedding" else "copy")


@dataclass
class Record:
    name: str
    time_s: float
    flops: float | None = None
    bytes: float | None = None
    phase: str | None = None
    hardware: str | None = None
    family: str | None = None
    unit: str | None = None  # "tensor" | "vector"; inferred from the family when absent
    where: str = ""  # "line 3", "measurements[2]", ...: named by errors about derived numbers

    def resolved_unit(self) -> str:
        if self.unit:
            return self.unit
        if self.family in ("matmul", "attention"):
            return "tensor"
        if self.family is not None:
            return "vector"
        # unknown name: matrix-like intensities go under the tensor roof
        return "tensor" if self.flops and self.bytes and self.flops / self.bytes > 4 else "vector"


def _number(value: object, where: str, field: str, allow_zero: bool = False, high: float = MAX_COUNT) -> float:
    if isinstance(value, bool):
        raise EngineInputError(
            f"{where}: {field}", f"{value!r} is not a number", code="not_number", params={"value": repr(value)}
        )
    if isinstance(value, (int, float)):
        x = float(value) if not isinstance(value, int) or abs(value) < 10**300 else math.inf
    else:
        text = str(value).replace(",", "").strip()
        if not _NUMBER.fullmatch(text):
            raise EngineInputError(
                f"{where}: {field}",
                f"{str(value)[:40]!r} is not a number",
                "ASCII digits, an optional decimal point and exponent, e.g. 1.5e9",
                code="not_number",
                params={"value": repr(str(value)[:40])},
            )
        x = float(text)
    if not math.isfinite(x) or x < 0 or (x == 0 and not allow_zero) or x > high:
        shown = "a number too large" if isinstance(value, float) and math.isinf(value) else repr(str(value)[:40])
        raise EngineInputError(
            f"{where}: {field}",
            f"{shown} must be a finite number {'>= 0' if allow_zero else '> 0'} and <= {high:g}",
            code="count_range",
            params={"value": shown, "bound": ">= 0" if allow_zero else "> 0", "high": f"{high:g}"},
        )
    return x


def _time(value: object, where: str, field: str) -> float:
    x = _number(value, where, field, high=MAX_TIME_S)
    if x < MIN_TIME_S:
        raise EngineInputError(
            f"{where}: {field}",
            f"{value!r} s is shorter than a femtosecond",
            f"{MIN_TIME_S:g} .. {MAX_TIME_S:g} s",
            code="time_short",
            params={"value": repr(value)[:40], "low": f"{MIN_TIME_S:g}", "high": f"{MAX_TIME_S:g}"},
        )
    return x


def _text(value: object, where: str, field: str, limit: int) -> str:
    """A name from the file: control characters (NUL and friends) are refused, not kept."""
    text = str(value).strip()[:limit]
    if any(ord(c) < 32 and c != "\t" or ord(c) == 127 or 0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise EngineInputError(
            f"{where}: {field}",
            "contains a control character or invalid Unicode",
            "printable text",
            code="text_control",
        )
    return text


def _own_record(row: dict, where: str) -> Record:
    missing = [k for k in ("name", "flops", "bytes", "time_s") if row.get(k) in (None, "")]
    if missing:
        raise EngineInputError(
            where,
            f"missing {', '.join(missing)}",
            "name, flops, bytes, time_s[, phase, hardware]",
            code="record_missing",
            params={"missing": ", ".join(missing)},
        )
    name = _text(row["name"], where, "name", 120)
    unit = row.get("unit") or None
    if unit not in (None, "tensor", "vector"):
        raise EngineInputError(
            f"{where}: unit",
            f"{unit!r} is not a unit",
            "tensor, vector",
            code="record_unit",
            params={"value": repr(unit)[:40]},
        )
    return Record(
        name=name,
        unit=unit,
        flops=_number(row["flops"], where, "flops", allow_zero=True),
        bytes=_number(row["bytes"], where, "bytes"),
        time_s=_time(row["time_s"], where, "time_s"),
        phase=(_text(row["phase"], where, "phase", 40) if row.get("phase") else None),
        hardware=(_text(row["hardware"], where, "hardware", 64) if row.get("hardware") else None),
        family=op_family(name),
        where=where,
    )


def _csv_rows(text: str, prefix: str, first_line: int = 1):
    """The header's names, then (line number, row) of csv.DictReader over `text`; a csv.Error
    (a field over the size limit) or a duplicate column is an EngineInputError naming the line."""
    reader = csv.DictReader(io.StringIO(text))
    try:
        fields = reader.fieldnames
        names = [f.strip() for f in fields or []]
        duplicates = sorted({f for f in names if names.count(f) > 1})
        if duplicates:
            raise EngineInputError(
                f"{prefix} {first_line}",
                f"duplicate column {duplicates[0]!r}",
                "each column once",
                code="csv_duplicate",
                params={"value": repr(duplicates[0])[:40]},
            )
        yield names
        for row in reader:
            yield reader.line_num + first_line - 1, row
    except csv.Error as exc:
        # DictReader.line_num lags on a failed row; its inner reader's does not
        raise EngineInputError(
            f"{prefix} {reader.reader.line_num + first_line - 1}",
            f"not valid CSV ({exc})",
            f"fields up to {csv.field_size_limit()} characters",
            code="csv_invalid",
        ) from None


def parse_csv(text: str) -> list[Record]:
    rows = _csv_rows(text, "line")
    names = next(rows)
    if not {"name", "flops", "bytes", "time_s"} <= set(names):
        raise EngineInputError(
            "line 1",
            "the header must name the columns name, flops, bytes, time_s",
            "name,flops,bytes,time_s[,phase,hardware]",
            code="csv_header",
        )
    records = []
    for line, row in rows:
        records.append(_own_record({k.strip(): v for k, v in row.items() if k}, f"line {line}"))
    return records


def _json_list(text: str, fmt: str, key: str) -> list:
    """A JSON document that is a list, or an object holding one under `key`."""
    try:
        # integers as floats: a 5,000-digit integer becomes inf (refused by _number) instead
        # of tripping Python's int-conversion limit
        data = json.loads(text, parse_int=float)
    except json.JSONDecodeError as exc:
        raise EngineInputError(
            fmt, f"not valid JSON ({exc.msg}, line {exc.lineno})", code="json_invalid", params={"line": exc.lineno}
        ) from None
    except RecursionError:
        raise EngineInputError(fmt, "JSON nested too deeply", "a list of flat records", code="json_deep") from None
    rows = data.get(key) if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise EngineInputError(fmt, f'expected a list or {{"{key}": [...]}}', code="json_list", params={"name": key})
    return rows


def parse_json(text: str) -> list[Record]:
    rows = _json_list(text, "json", "measurements")
    return [_own_record(row if isinstance(row, dict) else {}, f"measurements[{i}]") for i, row in enumerate(rows)]


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _duration(text: str, where: str) -> float:
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(s|ms|us|µs|ns)", text.strip())
    if not m:
        raise EngineInputError(
            where, f"{text[:40]!r} is not a duration like 13.504ms", code="duration", params={"value": repr(text[:40])}
        )
    value = float(m.group(1)) * _TIME_UNITS[m.group(2)]
    if value > MAX_TIME_S:
        raise EngineInputError(
            where, f"{text[:40]!r} is longer than a day", code="duration_long", params={"value": repr(text[:40])}
        )
    return value


def parse_torch_table(text: str) -> list[Record]:
    """key_averages().table(): a dashed rule, a header row, a rule, rows, a rule, totals."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header_idx = next((i for i, ln in enumerate(lines) if ln.strip().startswith("Name") and "Self" in ln), None)
    if header_idx is None:
        raise EngineInputError(
            "torch_table", "no header row starting with 'Name' (paste the whole table)", code="torch_header"
        )
    names = re.split(r"\s{2,}", lines[header_idx].strip())
    # Time column: GPU self time when there is one, else CPU self time.
    time_col = next((c for c in ("Self CUDA", "Self XPU", "Self Device", "CUDA total", "Self CPU") if c in names), None)
    if time_col is None:
        raise EngineInputError(
            "torch_table", "no time column", "Self CUDA, CUDA total or Self CPU", code="torch_no_time"
        )
    flops_col = next((c for c in names if re.fullmatch(r"Total [KMGT]?FLOPs", c)), None)
    scale = {"Total FLOPs": 1, "Total KFLOPs": 1e3, "Total MFLOPs": 1e6, "Total GFLOPs": 1e9, "Total TFLOPs": 1e12}
    records = []
    for n, ln in enumerate(lines[header_idx + 1 :], start=header_idx + 2):
        if set(ln.strip()) <= {"-", " "} or ln.startswith("Self CPU time total") or ln.startswith("Self CUDA time"):
            continue
        cells = re.split(r"\s{2,}", ln.strip())
        if len(cells) != len(names):
            raise EngineInputError(
                f"torch_table line {n}",
                f"{len(cells)} cells for {len(names)} columns",
                code="torch_cells",
                params={"cells": len(cells), "columns": len(names)},
            )
        row = dict(zip(names, cells, strict=True))
        t = _duration(row[time_col], f"torch_table line {n}")
        if t == 0:
            continue
        flops = None
        if flops_col and row[flops_col] not in ("", "--"):
            flops = _number(row[flops_col], f"torch_table line {n}", flops_col, allow_zero=True) * scale[flops_col]
        where = f"torch_table line {n}"
        records.append(
            Record(
                name=_text(row["Name"], where, "Name", 120),
                time_s=t,
                flops=flops or None,
                family=op_family(row["Name"]),
                where=where,
            )
        )
    return records


def parse_chrome_trace(text: str) -> list[Record]:
    events = _json_list(text, "chrome_trace", "traceEvents")
    totals: dict[str, float] = {}
    for i, ev in enumerate(events):
        if (
            not isinstance(ev, dict)
            or ev.get("ph") != "X"
            or str(ev.get("cat", "")).lower() not in ("kernel", "gpu_op")
        ):
            continue
        dur = _number(ev.get("dur", 0), f"traceEvents[{i}]", "dur", allow_zero=True, high=MAX_TIME_S * 1e6) * 1e-6
        name = _text(ev.get("name", "kernel"), f"traceEvents[{i}]", "name", 120)
        totals[name] = totals.get(name, 0.0) + dur
        if totals[name] > MAX_TIME_S:
            raise EngineInputError(
                f"traceEvents[{i}]: dur",
                f"kernel {name!r} adds up to more than a day",
                code="trace_kernel_day",
                params={"name": repr(name)},
            )
    if not totals:
        raise EngineInputError("chrome_trace", "no GPU kernel events (ph 'X', cat 'kernel')", code="trace_no_kernels")
    return [
        Record(name=name, time_s=t, family=op_family(name), where=f"chrome_trace kernel {name!r}")
        for name, t in totals.items()
        if t > 0
    ]


_NCU_SCALE = {
    "byte": 1,
    "kbyte": 1e3,
    "mbyte": 1e6,
    "gbyte": 1e9,
    "tbyte": 1e12,
    "nsecond": 1e-9,
    "usecond": 1e-6,
    "msecond": 1e-3,
    "second": 1,
    "inst": 1,
    "": 1,
}
_NCU_FLOPS = {"fadd": 1, "fmul": 1, "ffma": 2, "hadd": 1, "hmul": 1, "hfma": 2, "dadd": 1, "dmul": 1, "dfma": 2}


def parse_ncu_csv(text: str) -> list[Record]:
    """Long-format `ncu --csv` output: one row per (kernel launch, metric)."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID"') or ln.startswith("ID,")), None)
    if start is None:
        raise EngineInputError("ncu_csv", 'no header row starting with "ID" (use ncu --csv)', code="ncu_header")
    rows = _csv_rows("\n".join(lines[start:]), "ncu_csv line", first_line=start + 1)
    need = {"ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"}
    if not need <= set(next(rows)):
        raise EngineInputError(
            "ncu_csv",
            "missing columns",
            ", ".join(sorted(need)),
            code="ncu_columns",
            params={"allowed": ", ".join(sorted(need))},
        )
    kernels: dict[str, dict] = {}
    for n, row in rows:
        if any(row.get(c) is None for c in need):  # a short row: DictReader fills None
            raise EngineInputError(
                f"ncu_csv line {n}",
                "row has fewer cells than the header",
                ", ".join(sorted(need)),
                code="ncu_short_row",
                params={"allowed": ", ".join(sorted(need))},
            )
        where = f"ncu_csv line {n}"
        k = kernels.setdefault(
            row["ID"], {"name": _text(row["Kernel Name"], where, "Kernel Name", 120), "metrics": {}, "where": where}
        )
        unit = (row["Metric Unit"] or "").lower()
        if unit not in _NCU_SCALE:
            raise EngineInputError(
                where,
                f"unknown unit {row['Metric Unit'][:40]!r}",
                ", ".join(_NCU_SCALE),
                code="ncu_unit",
                params={"value": repr(row["Metric Unit"][:40]), "allowed": ", ".join(_NCU_SCALE)},
            )
        value = _number(row["Metric Value"], where, row["Metric Name"][:80], allow_zero=True)
        k["metrics"][row["Metric Name"]] = value * _NCU_SCALE[unit]
    records = []
    for kid, k in kernels.items():
        m = k["metrics"]
        if "gpu__time_duration.sum" not in m:
            raise EngineInputError(f"ncu_csv kernel {kid[:40]}", "missing gpu__time_duration.sum", code="ncu_no_time")
        time_s = m["gpu__time_duration.sum"]
        if not MIN_TIME_S <= time_s <= MAX_TIME_S:
            raise EngineInputError(
                f"{k['where']}: gpu__time_duration.sum",
                f"{time_s!r} s is not a kernel time",
                f"{MIN_TIME_S:g} .. {MAX_TIME_S:g} s",
                code="ncu_time",
                params={"value": f"{time_s:g}", "low": f"{MIN_TIME_S:g}", "high": f"{MAX_TIME_S:g}"},
            )
        byts = m.get("dram__bytes_read.sum", 0.0) + m.get("dram__bytes_write.sum", 0.0)
        flops = sum(
            w * m[f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum"]
            for op, w in _NCU_FLOPS.items()
            if f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum" in m
        )
        records.append(
            Record(
                name=k["name"],
                time_s=time_s,
                flops=flops or None,
                bytes=byts or None,
                family=op_family(k["name"]),
                where=k["where"],
            )
        )
    return records


PARSERS = {
    "csv": parse_csv,
    "json": parse_json,
    "torch_table": parse_torch_table,
    "chrome_trace": parse_chrome_trace,
    "ncu_csv": parse_ncu_csv,
}


def _too_many(fmt: str, found: str) -> None:
    raise EngineInputError(
        fmt,
        f"{found}: more than the {MAX_RECORDS:,} records one import may hold",
        f"at most {MAX_RECORDS:,} records",
        code="too_many_records",
        params={"n": f"{MAX_RECORDS:,}"},
    )


def parse_measurements(fmt: str, text: str, steps: int = 1) -> list[Record]:
    """All records of a file, or an EngineInputError naming the line and field: nothing is
    half-imported. `steps`: how many decode steps a profile covers (times are divided)."""
    if fmt not in PARSERS:
        raise EngineInputError(
            "format",
            f"unknown format {fmt!r}",
            ", ".join(FORMATS),
            code="measure_format",
            params={"value": repr(fmt)[:40], "allowed": ", ".join(FORMATS)},
        )
    if not isinstance(steps, int) or steps < 1:
        raise EngineInputError(
            "steps", f"{steps!r} must be a positive integer", code="steps_positive", params={"value": repr(steps)[:40]}
        )
    if fmt in ("csv", "torch_table") and text.count("\n") > _MAX_TABLE_LINES:
        _too_many(fmt, f"{text.count(chr(10)):,} lines")
    records = PARSERS[fmt](text)
    if not records:
        raise EngineInputError(fmt, "no measurements found", code="no_measurements")
    if len(records) > MAX_RECORDS:
        _too_many(fmt, f"{len(records):,} records")
    for r in records:
        r.time_s /= steps
        if r.flops is not None:
            r.flops /= steps
        if r.bytes is not None:
            r.bytes /= steps
        if not r.time_s > 0:  # 5e-324 s over 2 steps underflows to 0
            raise EngineInputError(
                f"{r.where or r.name}: time_s",
                f"divided by {steps} steps it underflows to 0",
                code="underflow",
                params={"steps": steps},
            )
    return records


def place(
    records: list[Record], unit_peaks: dict[str, float], bandwidth: float, predicted_ops: list[dict] | None = None
) -> tuple[list[dict], list[str]]:
    """Measured points: achieved FLOP/s at their intensity, the roof there, and the gap.

    Records lacking FLOPs or bytes borrow the model's prediction for their op family (summed
    over the decode step's ops of that family; the record's time is the family's measured
    time). Records that still lack a count are skipped and listed."""
    predicted: dict[str, dict] = {}
    for op in predicted_ops or []:
        fam = family_of_op(op["name"])
        agg = predicted.setdefault(fam, {"flops": 0.0, "bytes": 0.0, "unit": op["unit"]})
        agg["flops"] += op["flops"]
        agg["bytes"] += op["bytes"]
    grouped: dict[str, Record] = {}
    points, skipped = [], []
    for r in records:
        if (r.flops is None or r.bytes is None) and r.family in predicted:
            key = r.family
            g = grouped.setdefault(key, Record(name=key, time_s=0.0, family=key, phase="decode"))
            g.time_s += r.time_s
            continue
        if not r.flops or not r.bytes:  # no count to place it by, or no FLOPs (a copy): not on a log chart
            skipped.append(r.name)
            continue
        points.append(_point(r, r.flops, r.bytes, r.resolved_unit(), unit_peaks, bandwidth))
    for fam, g in grouped.items():
        pred = predicted[fam]
        if not pred["flops"]:
            skipped.append(fam)
            continue
        points.append(_point(g, pred["flops"], pred["bytes"], pred["unit"], unit_peaks, bandwidth, predicted=True))
    return points, skipped


def _point(
    r: Record,
    flops: float,
    byts: float,
    unit: str,
    unit_peaks: dict[str, float],
    bandwidth: float,
    predicted: bool = False,
) -> dict:
    intensity = flops / byts
    achieved = flops / r.time_s
    roof = min(unit_peaks[unit], intensity * bandwidth)
    bound_time = max(flops / unit_peaks[unit], byts / bandwidth)
    point = {
        "name": r.name,
        "family": r.family,
        "phase": r.phase,
        "hardware": r.hardware,
        "unit": unit,
        "flops": flops,
        "bytes": byts,
        "time_s": r.time_s,
        "intensity": intensity,
        "achieved_flops_per_s": achieved,
        "achieved_bytes_per_s": byts / r.time_s,
        "attainable_flops_per_s": roof,
        "gap": roof / achieved,
        "fraction_of_roof": achieved / roof,
        "predicted_time_s": bound_time,
        "counts_from_model": predicted,
    }
    _check_finite(point, r.where or r.name)
    return point


def _check_finite(numbers: dict, where: str) -> None:
    """Derived numbers that overflow (1e30 FLOP in a femtosecond) or vanish are an input
    error naming the record, not an inf in the answer (JSON has no inf)."""
    for key, value in numbers.items():
        if isinstance(value, float) and not (math.isfinite(value) and (value > 0 or key in ("flops", "gap"))):
            raise EngineInputError(
                f"{where}: {key}",
                f"{value!r} is out of range: the record's numbers are not physical",
                "counts and times whose ratios are finite and > 0",
                code="not_physical",
                params={"value": repr(value)[:40]},
            )


def decode_utilisation(
    decode: dict,
    num_active_params: float,
    tensor_parallel: int,
    peak_flops_per_s: float,
    bandwidth: float,
    batch: int,
    step_time_s: float | None = None,
    tokens_per_s: float | None = None,
) -> dict:
    """MBU and MFU of a measured decode step (Databricks 2023; PaLM app. B).

    MBU = bytes the step must move (per GPU) / measured step time / peak bandwidth.
    MFU (PaLM, 2N per generated token) = tokens/s x 2 x N_active / (GPUs x peak).
    Give the step time or the tokens/s (tokens/s = batch / step time)."""
    if (step_time_s is None) == (tokens_per_s is None):
        raise EngineInputError("measured", "give exactly one of a decode step time or tokens/s", code="measured_one")
    if step_time_s is None:
        tokens_per_s = _number(tokens_per_s, "measured", "tokens_per_s", high=math.inf)
        step_time_s = batch / tokens_per_s
    else:
        step_time_s = _number(step_time_s, "measured", "step_time_s", high=math.inf)
        tokens_per_s = batch / step_time_s
    out = {
        "step_time_s": step_time_s,
        "tokens_per_s": tokens_per_s,
        "mbu": decode["bytes"] / step_time_s / bandwidth,
        "mfu": tokens_per_s * 2.0 * num_active_params / (tensor_parallel * peak_flops_per_s),
        "intensity": decode["intensity"],
        "achieved_flops_per_s": decode["flops"] / step_time_s,
        "predicted_time_s": decode["time_s"],
        "gap": step_time_s / decode["time_s"],
    }
    for key, value in out.items():
        if not math.isfinite(value) or value <= 0:  # 5e-324 s: batch / step overflows
            raise EngineInputError(
                f"measured: {key}",
                f"{value!r}: the measured number is too extreme to use",
                "a step time or tokens/s whose derived rates are finite",
                code="measured_extreme",
                params={"value": repr(value)[:40]},
            )
    return out


def training_mfu(
    step_time_s: float,
    tokens_per_step: float,
    num_params: float,
    peak_flops_per_s: float,
    num_gpus: int = 1,
    num_layers: int = 0,
    num_heads: int = 0,
    head_dim: int = 0,
    seq_len: int = 0,
    include_attention: bool = False,
) -> float:
    """PaLM MFU of a measured training step: tokens/s x (6N [+ 12·L·H·Q·T]) / (GPUs x peak)."""
    tokens_per_s = _number(tokens_per_step, "measured", "tokens_per_step") / _number(
        step_time_s, "measured", "step_time_s"
    )
    per_token = training_flops_per_token(num_params, num_layers, num_heads, head_dim, seq_len, include_attention)
    return mfu(tokens_per_s, per_token, peak_flops_per_s, num_gpus)
