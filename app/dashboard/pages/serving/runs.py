"""The user's own runs, pasted or uploaded as CSV (fit.py fits them; carried.py puts them in
the link). Nothing is stored on the server.

Two forms are read:
- the shipped data's columns (published/serving/README.md: `batch_size`, `isl`, `osl`,
  `tp_size`, ..., `silicon_ttft_ms`, `silicon_tpot_ms`), each row mapped onto its own scenario
  as the shipped runs are; a row of another model, or of another accelerator than the one the
  runs are said to be measured on, is refused (a fit belongs to one deployment);
- the short form `concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms`, each row the page's
  scenario at that concurrency and length.
A bad row is named by its line and field, and then nothing is imported. Whatever the paste
holds (a field longer than the CSV reader takes, an infinite layout, a row the mapping cannot
read), the answer is a named problem, never an exception.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import math
from dataclasses import dataclass, replace

from engine.errors import EngineInputError
from engine.model_catalog import preset_id_or_none
from engine.serving.mapping import row_scenario
from engine.serving.scenario import MAX_CONCURRENCY, MAX_GPUS, MAX_TOKENS, ServingScenario

SHORT_COLUMNS = ("concurrency", "input_tokens", "output_tokens", "ttft_ms", "tpot_ms")
SHIPPED_COLUMNS = ("batch_size", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms")
MAX_RUNS = 500
MAX_CHARS = 200_000
MAX_MS = 1e7
# the shipped columns read as GPU counts (empty or 0 means 1): checked here, by name, before
# the mapping reads them
DEGREE_COLUMNS = ("tp_size", "attention_dp_size", "moe_tp_size", "moe_ep_size")


@dataclass(frozen=True)
class UserRun:
    line: int
    scenario: ServingScenario
    ttft_s: float
    tpot_s: float


class RunsError(ValueError):
    """What is wrong with the runs: a list of (line or None, field or None, what)."""

    def __init__(self, problems: list[tuple[int | None, str | None, object]]):  # a srv_runs_ code or an engine error
        super().__init__("; ".join(f"{line}:{name}: {what}" for line, name, what in problems))
        self.problems = problems


def decode_upload(contents: object) -> str:
    """dcc.Upload's `data:...;base64,...` as text; RunsError when it is not UTF-8 text."""
    if not isinstance(contents, str) or "," not in contents:
        raise RunsError([(None, None, "not_csv")])
    try:
        return base64.b64decode(contents.split(",", 1)[1], validate=False).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise RunsError([(None, None, "not_csv")]) from None


def _int(text: str, high: int) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and 1 <= int(text) <= high else None


def _ms(text: str) -> float | None:
    try:
        x = float(text.strip()) if len(text) <= 30 else math.nan
    except ValueError:
        return None
    return x / 1e3 if math.isfinite(x) and 0 < x <= MAX_MS else None


def _short_row(line: int, row: dict, base: ServingScenario, problems: list, deployment=None) -> UserRun | None:
    conc = _int(row.get("concurrency") or "", MAX_CONCURRENCY)
    isl = _int(row.get("input_tokens") or "", MAX_TOKENS)
    osl = _int(row.get("output_tokens") or "", MAX_TOKENS)
    ttft, tpot = _ms(row.get("ttft_ms") or ""), _ms(row.get("tpot_ms") or "")
    bad = [
        (name, kind)
        for name, value, kind in (
            ("concurrency", conc, "int"),
            ("input_tokens", isl, "int"),
            ("output_tokens", osl, "int"),
            ("ttft_ms", ttft, "ms"),
            ("tpot_ms", tpot, "ms"),
        )
        if value is None
    ]
    for name, kind in bad:
        problems.append((line, name, kind))
    if bad:
        return None
    return UserRun(line, replace(base, concurrency=conc, input_tokens=isl, output_tokens=osl), ttft, tpot)


def _degree_ok(text: str) -> bool:
    """Empty, or a whole number of GPUs 0..MAX_GPUS written as digits (`4`) or a float (`4.0`)."""
    text = text.strip()
    if not text:
        return True
    try:
        x = float(text) if len(text) <= 30 else math.nan
    except ValueError:
        return False
    return math.isfinite(x) and x == int(x) and 0 <= x <= MAX_GPUS


def _shipped_row(line: int, row: dict, base: ServingScenario, problems: list, deployment) -> UserRun | None:
    bad = [(line, name, "degree") for name in DEGREE_COLUMNS if not _degree_ok(row.get(name) or "")]
    if bad:
        problems += bad
        return None
    try:
        mapped = row_scenario(row)
    except EngineInputError as exc:
        problems.append((line, exc.field, exc.with_traceback(None)))  # said from its code (i18n.reason)
        return None
    except (KeyError, ValueError, TypeError, OverflowError, ArithmeticError) as exc:  # a column the mapping needs
        problems.append((line, exc.args[0] if isinstance(exc, KeyError) else None, "unreadable"))
        return None
    model, hardware = deployment
    if preset_id_or_none(mapped.model) != preset_id_or_none(model):
        problems.append((line, "model_path", "other_model"))
        return None
    if hardware is not None and mapped.hardware != hardware:
        problems.append((line, "system", "other_system"))
        return None
    if not (0 < mapped.ttft_s <= MAX_MS / 1e3 and 0 < mapped.tpot_s <= MAX_MS / 1e3):
        problems.append((line, "silicon_tpot_ms", "ms"))
        return None
    sc = replace(mapped.scenario, memory_utilization=base.memory_utilization)
    return UserRun(line, sc, mapped.ttft_s, mapped.tpot_s)


def parse_runs(text: object, base: ServingScenario, model: str, hardware: str | None) -> list[UserRun]:
    """Every row of the CSV as a run, or RunsError naming every bad row by line and field.
    `base`: the page's scenario (the short form's); `model` and `hardware` (a catalogue id, or
    None for a what-if card): the deployment a shipped-form row must be of."""
    if not isinstance(text, str) or not text.strip():
        raise RunsError([(None, None, "empty")])
    if len(text) > MAX_CHARS:
        raise RunsError([(None, None, "too_long")])
    reader = csv.DictReader(io.StringIO(text.strip()))
    try:
        return _read(reader, base, (model, hardware))
    except csv.Error:  # a field past the reader's limit (131,072 characters), a stray NUL
        raise RunsError([(reader.line_num + 1, None, "csv")]) from None  # the line it was reading


def _read(reader: csv.DictReader, base: ServingScenario, deployment: tuple) -> list[UserRun]:
    header = [h.strip() for h in reader.fieldnames or []]
    reader.fieldnames = header
    if set(SHORT_COLUMNS) <= set(header):
        read_row = _short_row
    elif set(SHIPPED_COLUMNS) <= set(header):
        read_row = _shipped_row
    else:
        raise RunsError([(1, None, "header")])
    runs, problems = [], []
    for index, row in enumerate(reader):
        if index >= MAX_RUNS:
            raise RunsError([(None, None, "too_many")])
        values = {k: v if isinstance(v, str) else "" for k, v in row.items() if k is not None}
        run = read_row(reader.line_num, values, base, problems, deployment)
        if run is not None:
            runs.append(run)
    if problems:
        raise RunsError(problems)
    if not runs:
        raise RunsError([(None, None, "empty")])
    return runs
