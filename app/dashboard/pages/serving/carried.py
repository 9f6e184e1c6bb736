"""The user's runs as they travel in the link (`runs=`), packed as the roofline's `cfg=` is
(lib/packed.py): the page keeps no state, and a link carries the runs themselves, never a fit's
results, so the page that opens it computes the fit and its errors again (fit.py) and shows
nothing it did not compute.

A token holds:
- `on`: the scenario the runs were fitted on, as the page's own link parameters (model,
  accelerator, backend, precision, layout, lengths, memory utilisation);
- `cols` and `rows`: each run's scenario fields that differ from that scenario's (the short
  form's concurrency and lengths; a shipped row's layout too), its TTFT and TPOT in ms to
  SIGNIFICANT digits, and its line in the paste when the lines are not simply 2, 3, 4, ...

Reading refuses anything else by name (Invalid): a token too long, not packed, of an unknown
field, of a value the engine refuses. The writer checks its token with this reader.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from functools import lru_cache

from app.dashboard.lib.packed import NotPacked, pack, unpack
from app.dashboard.lib.params import Invalid, read_link
from app.dashboard.pages.roofline.params import valid_what_ifs
from app.dashboard.pages.serving.params import PARAMS, ServingArgs
from app.dashboard.pages.serving.runs import MAX_MS, MAX_RUNS, UserRun
from app.dashboard.pages.serving.state import consistent, scenario_of
from engine.errors import EngineInputError
from engine.hardware import catalogue
from engine.serving.scenario import ServingScenario

# 6,000 characters (as `cfg=`) hold 500 typical runs (~10 characters a run once packed) and keep the
# whole link far below what a server reads in one request line (uvicorn's h11: 16 KiB).
MAX_TOKEN_CHARS = 6000
MAX_TOKEN_BYTES = 256 * 1024  # what a token may inflate to
SIGNIFICANT = 4  # a time's digits in the link: 0.05% at worst, below any run's noise
SCENARIO_PARAMS = ("model", "backend", "prec", "tp", "adp", "ep", "isl", "osl", "memutil")
RUN_FIELDS = tuple(f.name for f in fields(ServingScenario) if f.name != "memory_utilization")


@dataclass(frozen=True)
class Carried:
    """A token read: the scenario the runs belong to and the runs."""

    on: tuple[tuple[str, str], ...]  # link pairs: SCENARIO_PARAMS, then hw= or xhw=
    args: ServingArgs  # those pairs read, one accelerator (the runs')
    spec: str  # that accelerator: a catalogue id or a what-if short form
    runs: tuple[UserRun, ...]


def scenario_pairs(a: ServingArgs, spec: str) -> tuple[tuple[str, str], ...]:
    """The page's scenario as the link writes it, with the accelerator the runs are of."""
    written = {p.name: p.kind.write(p.value(a)) for p in PARAMS if p.name in SCENARIO_PARAMS}
    return (*((k, written[k]) for k in SCENARIO_PARAMS), ("xhw" if ":" in spec else "hw", spec))


def _time(seconds: float) -> float:
    return float(f"{seconds * 1e3:.{SIGNIFICANT}g}")


def encode_runs(on: tuple[tuple[str, str], ...], base: ServingScenario, runs: list[UserRun]) -> str:
    """The token of these runs fitted on `on` (whose scenario is `base`)."""
    differ = [f for f in RUN_FIELDS if any(getattr(r.scenario, f) != getattr(base, f) for r in runs)]
    lines = [r.line for r in runs] != list(range(2, len(runs) + 2))
    cols = [*differ, "ttft_ms", "tpot_ms", *(["line"] * lines)]
    rows = [
        [getattr(r.scenario, f) for f in differ] + [_time(r.ttft_s), _time(r.tpot_s)] + ([r.line] if lines else [])
        for r in runs
    ]
    return pack({"on": [list(p) for p in on], "cols": cols, "rows": rows})


def _scenario(on: object) -> tuple[tuple[tuple[str, str], ...], ServingArgs, str]:
    if not isinstance(on, list) or not all(isinstance(p, list) and len(p) == 2 for p in on):
        raise Invalid("runs_not_ours")
    pairs = tuple((str(k), str(v)) for k, v in on)
    given = dict(pairs)
    if set(given) - {*SCENARIO_PARAMS, "hw", "xhw"} or len(given) != len(pairs):
        raise Invalid("runs_not_ours")
    refused: list = []
    changes = read_link([p for p in PARAMS if p.name in SCENARIO_PARAMS], given, lambda *x: refused.append(x))
    spec = given.get("hw") or given.get("xhw") or ""
    if "xhw" in given:
        known = valid_what_ifs([spec], lambda *x: refused.append(x))
    else:
        known = (spec,) if spec in catalogue() else ()
    if refused or len(changes) != len(SCENARIO_PARAMS) or not known or ("hw" in given) == ("xhw" in given):
        raise Invalid("runs_not_ours")
    hardware = {"hardware": (), "what_if": known} if "xhw" in given else {"hardware": known}
    args = replace(ServingArgs(), **changes, **hardware)
    consistent(args, lambda *x: refused.append(x))  # expert parallelism that divides the GPUs, say
    if refused:
        raise Invalid("runs_not_ours")
    return pairs, args, known[0]


def _run(cols: list[str], row: object, base: ServingScenario, index: int) -> UserRun:
    if not isinstance(row, list) or len(row) != len(cols):
        raise Invalid("runs_not_ours")
    values = dict(zip(cols, row, strict=True))
    ttft, tpot, line = values.pop("ttft_ms"), values.pop("tpot_ms"), values.pop("line", index + 2)
    for ms in (ttft, tpot):
        if isinstance(ms, bool) or not isinstance(ms, (int, float)) or not (0 < ms <= MAX_MS and math.isfinite(ms)):
            raise Invalid("runs_not_ours")
    if isinstance(line, bool) or not isinstance(line, int) or not 1 <= line <= 10**7:
        raise Invalid("runs_not_ours")
    try:
        scenario = replace(base, **values)  # the engine checks every field (EngineInputError)
    except (EngineInputError, TypeError):
        raise Invalid("runs_not_ours") from None
    return UserRun(line, scenario, ttft / 1e3, tpot / 1e3)


@lru_cache(maxsize=16)
def decode_runs(token: str) -> Carried:
    """A token read and checked (Invalid names why not): a link is read again on every
    callback, the fit once (fit.py)."""
    if not isinstance(token, str) or len(token) > MAX_TOKEN_CHARS:
        raise Invalid("runs_too_long", max=f"{MAX_TOKEN_CHARS:,}")
    try:
        data = unpack(token, MAX_TOKEN_BYTES)
    except NotPacked:
        raise Invalid("runs_not_ours") from None
    if not isinstance(data, dict) or set(data) != {"on", "cols", "rows"}:
        raise Invalid("runs_not_ours")
    pairs, args, spec = _scenario(data["on"])
    cols, rows = data["cols"], data["rows"]
    allowed = {*RUN_FIELDS, "ttft_ms", "tpot_ms", "line"}
    if not isinstance(cols, list) or not all(isinstance(c, str) and c in allowed for c in cols):
        raise Invalid("runs_not_ours")
    if len(set(cols)) != len(cols) or not {"ttft_ms", "tpot_ms"} <= set(cols):
        raise Invalid("runs_not_ours")
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_RUNS:
        raise Invalid("runs_not_ours")
    base = scenario_of(args)
    return Carried(pairs, args, spec, tuple(_run(cols, row, base, i) for i, row in enumerate(rows)))
