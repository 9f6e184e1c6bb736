"""How far a better estimate could take the planner's picks (README "The planner against
reality"): engine.planner.validate's groups and rule, with the estimates changed two ways.

    python scripts/plan_ceiling.py          # the aggregated split, about 20 s

1. The pessimistic end at other widths: every run's pessimistic TPOT is its estimate x u, u from
   1 (the estimate itself) to 1.4 (the shipped ranges put it near 1.26). A uniform range moves
   the picks along one line: a wider one misses less and settles for slower runs.
2. An oracle no fit can be: each run's estimate divided by the median error of its own kind
   of run in the very data scored (by model, backend and layout; then by group and layout).
   What the picks reach when every layout's bias is known in sample is a ceiling on what a
   per-layout correction could give runs it has not seen.
3. A perfect estimate (each run's own measured TPOT and rate) with its pessimistic end at
   x u: how narrow a range the pessimistic aim needs even when the estimate has no error.

Prints, per variant, the groups, the share of picks meeting the target and the median regret.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.errors import EngineInputError  # noqa: E402
from engine.planner.validate import MIN_LAYOUTS, _run, pick_outcomes  # noqa: E402
from engine.serving.calibration import load_calibration  # noqa: E402
from engine.serving.mapping import TRAINING_CSV, read_rows  # noqa: E402
from engine.serving.validate import answer_row  # noqa: E402

WIDTHS = (1.0, 1.05, 1.1, 1.15, 1.2, 1.26, 1.3, 1.4)


def runs_by_group() -> dict[tuple, list[dict]]:
    """The aggregated split's runs as engine.planner.validate reads them, by its groups."""
    cal, groups = load_calibration(), defaultdict(list)
    for fields in read_rows(TRAINING_CSV):
        try:
            m, result = answer_row(fields, cal)
        except EngineInputError:
            continue
        key = (m.model, m.hardware, m.backend, m.scenario.input_tokens, m.scenario.output_tokens)
        groups[key].append(_run(m, result) | {"key": key, "model": m.model, "backend": m.backend})
    return {k: runs for k, runs in groups.items() if len({str(r["layout"]) for r in runs}) >= MIN_LAYOUTS}


def score(groups: dict[tuple, list[dict]], name: str) -> tuple[int, float, float]:
    """(groups, share of picks meeting the target, median regret) of the picks by `name`."""
    outcomes = [pick_outcomes(runs)[name] for runs in groups.values()]
    return len(outcomes), float(np.mean([s for s, _ in outcomes])), float(np.median([r for _, r in outcomes]))


def widened(groups: dict, u: float) -> dict:
    return {k: [r | {"pessimistic_tpot_s": r["estimate_tpot_s"] * u} for r in runs] for k, runs in groups.items()}


def corrected(groups: dict, kind: Callable[[dict], tuple]) -> dict:
    """Each run's estimate over the median measured / estimated TPOT of the runs of its kind."""
    errors = defaultdict(list)
    for runs in groups.values():
        for r in runs:
            errors[kind(r)].append(np.log(r["measured_tpot_s"] / r["estimate_tpot_s"]))
    factor = {k: float(np.exp(np.median(v))) for k, v in errors.items()}
    out = {}
    for key, runs in groups.items():
        out[key] = []
        for r in runs:
            f = factor[kind(r)]
            out[key].append(r | {"estimate_tpot_s": r["estimate_tpot_s"] * f,
                                 "pessimistic_tpot_s": r["pessimistic_tpot_s"] * f,
                                 "estimate_per_gpu": r["estimate_per_gpu"] / f})  # fmt: skip
    return out


def main() -> int:
    groups = runs_by_group()
    print("| variant | groups | pick meets the target | median regret |")
    print("|---|---:|---:|---:|")
    for label, name, data in (
        ("shipped, by the estimate", "estimate", groups),
        ("shipped, by the pessimistic end", "pessimistic", groups),
        *((f"pessimistic end at estimate x {u:g}", "pessimistic", widened(groups, u)) for u in WIDTHS),
    ):
        n, success, regret = score(data, name)
        print(f"| {label} | {n} | {success:.1%} | {regret:.1%} |")
    oracles = (
        ("model, backend and layout", lambda r: (r["model"], r["backend"], str(r["layout"]))),
        ("group and layout", lambda r: (r["key"], str(r["layout"]))),
    )
    perfect = {k: [r | {"estimate_tpot_s": r["measured_tpot_s"], "estimate_per_gpu": r["measured_per_gpu"]}
                   for r in runs] for k, runs in groups.items()}  # fmt: skip
    for u in (1.0, 1.05, 1.1, 1.2):
        n, success, regret = score(widened(perfect, u), "pessimistic")
        print(f"| a perfect estimate, its pessimistic end at x {u:g} | {n} | {success:.1%} | {regret:.1%} |")
    for label, kind in oracles:
        data = corrected(groups, kind)
        for name in ("estimate", "pessimistic"):
            n, success, regret = score(data, name)
            print(f"| oracle: each {label}'s own median error removed, by the {name} | {n} | {success:.1%} | "
                  f"{regret:.1%} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
