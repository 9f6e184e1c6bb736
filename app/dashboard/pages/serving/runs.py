"""The user's own runs, pasted or uploaded as CSV, and the fit of that deployment's calibration
to them (engine.serving_userfit). Nothing is stored: the fitted numbers go into the link.

Two forms are read:
- the shipped data's columns (published/serving/README.md: `batch_size`, `isl`, `osl`,
  `tp_size`, ..., `silicon_ttft_ms`, `silicon_tpot_ms`), each row mapped onto its own scenario
  as the shipped runs are;
- the short form `concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms`, each row the page's
  scenario at that concurrency and length.
Either way the runs are estimated with the page's model on the accelerator the fit is for.
A bad row is named by its line and field, and then nothing is imported.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import math
from dataclasses import dataclass, replace

from app.dashboard.pages.serving.params import ServingArgs
from engine.errors import EngineInputError
from engine.model_catalog import get_model
from engine.serving import serving_estimate
from engine.serving.estimate import queue_steps
from engine.serving.mapping import row_scenario
from engine.serving.scenario import MAX_CONCURRENCY, MAX_TOKENS, ServingScenario
from engine.serving_userfit import FitReport, fit_user_runs, run_parts

SHORT_COLUMNS = ("concurrency", "input_tokens", "output_tokens", "ttft_ms", "tpot_ms")
SHIPPED_COLUMNS = ("batch_size", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms")
MAX_RUNS = 500
MAX_CHARS = 200_000
MAX_MS = 1e7


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


def _short_row(line: int, row: dict, base: ServingScenario, problems: list) -> UserRun | None:
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


def _shipped_row(line: int, row: dict, base: ServingScenario, problems: list) -> UserRun | None:
    try:
        mapped = row_scenario(row)
    except EngineInputError as exc:
        problems.append((line, exc.field, exc.with_traceback(None)))  # said from its code (i18n.reason)
        return None
    if not (0 < mapped.ttft_s <= MAX_MS / 1e3 and 0 < mapped.tpot_s <= MAX_MS / 1e3):
        problems.append((line, "silicon_tpot_ms", "ms"))
        return None
    sc = replace(mapped.scenario, memory_utilization=base.memory_utilization)
    return UserRun(line, sc, mapped.ttft_s, mapped.tpot_s)


def parse_runs(text: object, base: ServingScenario) -> list[UserRun]:
    """Every row of the CSV as a run, or RunsError naming every bad row by line and field."""
    if not isinstance(text, str) or not text.strip():
        raise RunsError([(None, None, "empty")])
    if len(text) > MAX_CHARS:
        raise RunsError([(None, None, "too_long")])
    reader = csv.DictReader(io.StringIO(text.strip()))
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
        line = index + 2  # the header is line 1
        run = read_row(line, {k: (v or "") for k, v in row.items() if k is not None}, base, problems)
        if run is not None:
            runs.append(run)
    if problems:
        raise RunsError(problems)
    if not runs:
        raise RunsError([(None, None, "empty")])
    return runs


def fit_runs(a: ServingArgs, hw, runs: list[UserRun]) -> FitReport:
    """The fit of the page's model on `hw` to the runs; RunsError names a run the engine
    cannot answer (its layout does not fit the accelerator, say)."""
    model = get_model(a.model)
    parts, problems = [], []
    for run in runs:
        try:
            result = serving_estimate(model, hw, run.scenario)
        except EngineInputError as exc:
            problems.append((run.line, exc.field, exc.with_traceback(None)))
            continue
        queue = queue_steps(run.scenario, result["running_batch"])
        parts.append(run_parts(result, queue, run.tpot_s, run.ttft_s))
    if problems:
        raise RunsError(problems)
    return fit_user_runs(parts)
