"""The planner against reality on groups it was not fitted to: `llm-roofline validate plan`
with each group's calibration refitted without that group's runs (leave one group out).

    python scripts/plan_held_out.py          # both shipped splits; 100 refits, about 5 minutes on two cores

A group is what engine.planner.validate scores: the runs sharing a model, GPU, backend, mode
and input/output lengths, over at least two layouts. For each, the fit of
scripts/fit_serving.py is rerun (from the initial parameters, as its grouped folds are) on every
other run of both splits, and the group is scored by engine.planner.validate.validate_plan
with that calibration: the same pick, target, success and regret as the in-sample command.
The ranges (the pessimistic pick's TPOT) are the shipped file's, which already come from
held-out folds. Prints the in-sample and the held-out success and median regret, by mode.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fit_features import BACKENDS, FAMILIES, NP, mapped_rows  # noqa: E402
from fit_serving import _factors, fit, fit_with_batches, model_factors  # noqa: E402

from engine.errors import EngineInputError  # noqa: E402
from engine.planner.validate import MIN_LAYOUTS, _layout, validate_plan  # noqa: E402
from engine.serving.calibration import PARAMETER_NAMES, Calibration, load_calibration  # noqa: E402
from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV, read_rows, row_scenario  # noqa: E402


def group_key(m) -> tuple:
    """engine.planner.validate's group of a mapped run."""
    mode = "aggregated" if m.disagg is None else "disaggregated"
    return (m.model, m.hardware, m.backend, mode, m.scenario.input_tokens, m.scenario.output_tokens)


def groups_of(paths: list[Path]) -> dict[tuple, list[dict]]:
    """Each scorable group's CSV rows (two layouts at least), as validate_plan reads them."""
    rows: dict[tuple, list[dict]] = defaultdict(list)
    layouts: dict[tuple, set] = defaultdict(set)
    for path in paths:
        for row in read_rows(path):
            try:
                m = row_scenario(row)
            except EngineInputError:
                continue
            if not m.tpot_describable:  # validate_plan leaves it out (its deployment or MTP unknown to the estimate)
                continue
            rows[group_key(m)].append(row)
            layouts[group_key(m)].add(str(_layout(m)))
    return {k: v for k, v in rows.items() if len(layouts[k]) >= MIN_LAYOUTS}


def calibration_of(theta: np.ndarray, shipped: Calibration, name: str, factors: dict) -> Calibration:
    """The shipped calibration with the fitted values of theta and the models' TTFT factors
    fitted with them (ranges and families kept)."""
    data = dict(shipped.data)
    data["ttft_model_factors"] = factors
    data["global"] = {p: float(np.exp(theta[j])) for j, p in enumerate(PARAMETER_NAMES)}
    data["backend_factors"] = _factors(theta, NP, BACKENDS)
    data["family_factors"] = _factors(theta, NP * (1 + len(BACKENDS)), tuple(FAMILIES))
    return Calibration(name, data)


def score(groups: dict[tuple, list[dict]], calibration_for) -> dict[str, dict[str, list]]:
    """Per mode and pick rule, each group's (success, regret)."""
    out: dict[str, dict[str, list]] = defaultdict(lambda: {"estimate": [], "pessimistic": []})
    for key, rows in groups.items():
        report = validate_plan(rows, calibration_for(key))
        for rule in ("estimate", "pessimistic"):
            r = report[f"by_{rule}"]
            out[key[3]][rule].append((r["success_rate"], r["median_regret"]))
    return out


def summary(scored: dict[str, dict[str, list]]) -> list[str]:
    lines = []
    for mode, rules in sorted(scored.items()):
        for rule, results in rules.items():
            success = np.mean([s for s, _ in results])
            regret = np.median([r for _, r in results])
            lines.append(f"  {mode:<14} by the {rule:<11}: {len(results):>3} groups, pick meets the target in "
                         f"{success:.1%}, median regret {regret:.1%}")  # fmt: skip
    return lines


def main() -> int:
    paths = [Path(TRAINING_CSV), Path(DISAGG_CSV)]
    shipped = load_calibration()
    groups = groups_of(paths)
    mapped, _ = mapped_rows(paths)
    _, f = fit_with_batches(mapped)
    labels = np.array([str(group_key(m)) for m in f["rows"]])
    print(f"{len(groups)} groups; calibration {shipped.id}")
    print("in sample (the shipped calibration):")
    print("\n".join(summary(score(groups, lambda key: shipped))))

    def without(key: tuple) -> Calibration:
        train = np.flatnonzero(labels != str(key))
        fold = fit(f, train)
        name = f"{shipped.id} without {key[0]} {key[1]}"
        return calibration_of(fold, shipped, name, model_factors(fold, f, train))

    print("each group held out (its calibration refitted without its runs):")
    print("\n".join(summary(score(groups, without))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
