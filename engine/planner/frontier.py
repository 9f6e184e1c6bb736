"""What the search returns: who meets the target, the Pareto frontier, the best, the verdict."""

from __future__ import annotations

import numpy as np


def meets(cols: dict, ttft_s: float | None, tpot_s: float | None, pessimistic: bool) -> np.ndarray:
    """Candidates whose TTFT and TPOT meet the targets: at the estimate, or at the range's
    pessimistic (upper) end. An absent target is always met."""
    ttft = cols["ttft_high_s" if pessimistic else "ttft_s"]
    tpot = cols["tpot_high_s" if pessimistic else "tpot_s"]
    ok = np.ones(len(tpot), dtype=bool)
    if ttft_s is not None:
        ok &= ttft <= ttft_s
    if tpot_s is not None:
        ok &= tpot <= tpot_s
    return ok


def pareto(per_gpu: np.ndarray, per_user: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Rows on the frontier of output tokens/s/GPU against tokens/s/user (both larger is
    better): none of the others is at least as good on both and better on one. Sorted by
    tokens/s/user, fastest user first."""
    if not len(rows):
        return rows
    order = rows[np.lexsort((-per_gpu[rows], -per_user[rows]))]
    best = np.maximum.accumulate(per_gpu[order])
    keep = np.ones(len(order), dtype=bool)
    keep[1:] = per_gpu[order][1:] > best[:-1]
    return order[keep]


def usd_per_million_tokens(cols: dict, prices: dict[str, float]) -> np.ndarray:
    """price per GPU-hour / (output tokens/s per GPU x 3600) x 1e6; NaN where unpriced."""
    price = np.full(len(cols["hardware"]), np.nan)
    for hw_id, usd in prices.items():  # a few accelerators, thousands of rows: a mask each
        price[cols["hardware"] == hw_id] = usd
    return price / (cols["tokens_per_s_per_gpu"] * 3600.0) * 1e6


def ranking(cols: dict, ok: np.ndarray, by_cost: bool) -> np.ndarray:
    """Rows meeting the target, best first: least $/Mtok when every candidate is priced, else
    most output tokens/s/GPU (ties: faster for the user)."""
    rows = np.flatnonzero(ok)
    if by_cost:
        return rows[np.lexsort((-cols["tokens_per_s_per_gpu"][rows], cols["usd_per_million_tokens"][rows]))]
    return rows[np.lexsort((-(1.0 / cols["tpot_s"][rows]), -cols["tokens_per_s_per_gpu"][rows]))]


def first_of_each(deployment: np.ndarray, ranked: np.ndarray, n: int) -> np.ndarray:
    """The first n deployments of `ranked` (rows, best first), each by its first row: its
    best-ranked concurrency. A prefix of the ranking holds them, so a growing prefix is read
    rather than every row (a target moved on a 45,000-row search: 0.1 ms, not 3)."""
    size = 256
    while True:
        head = ranked[:size]
        _, first = np.unique(deployment[head], return_index=True)  # first rows of a prefix are first overall
        if len(first) >= n or size >= len(ranked):
            return head[np.sort(first)][:n]
        size *= 8


def nearest_target(cols: dict, ttft_s: float | None, tpot_s: float | None, pessimistic: bool) -> dict:
    """When nothing meets the target: the tightest TPOT met at the asked TTFT, and the tightest
    TTFT met at the asked TPOT (what would have to change)."""
    ttft = cols["ttft_high_s" if pessimistic else "ttft_s"]
    tpot = cols["tpot_high_s" if pessimistic else "tpot_s"]
    out: dict = {"tpot_s_at_asked_ttft": None, "ttft_s_at_asked_tpot": None}
    if not len(tpot):
        return out
    at_ttft = np.ones(len(tpot), dtype=bool) if ttft_s is None else ttft <= ttft_s
    at_tpot = np.ones(len(tpot), dtype=bool) if tpot_s is None else tpot <= tpot_s
    if at_ttft.any():
        out["tpot_s_at_asked_ttft"] = float(tpot[at_ttft].min())
    if at_tpot.any():
        out["ttft_s_at_asked_tpot"] = float(ttft[at_tpot].min())
    out["tpot_s_best"] = float(tpot.min())
    out["ttft_s_best"] = float(ttft.min())
    return out
