"""How close any estimate built on the recorded fields could come to the disaggregated runs'
first token (issue 31's TTFT aim, README "Error on runs it never saw"): an oracle no fit can be.

    python scripts/ttft_floor.py                  # the disaggregated split, about 4 s
    python scripts/ttft_floor.py --neighbours 20  # the learned correction from 20 runs each

Each distinct run (rows measured once and published twice count once) is answered as
`llm-roofline validate serving` answers it, with the shipped calibration, in sample. Then each
run's estimate is divided by the median miss of its own group in the very data scored, for
finer and finer groups. The first line is the shipped estimate; each next one what the estimate
would reach if it knew, in sample, every group's bias:

- by (model, GPU, backend): a factor per serving stack;
- and by the prompt and output lengths;
- and by a concurrency band (1-8, 9-32, 33-128, 129-512, 513-2048, more).

A correction learned on other runs can do no better than the same correction fitted on the runs
it is scored on. The last lines learn one, as flexibly as the rows allow, and score it on runs
it never saw: each run's miss predicted by its K nearest runs of the other groups (distance-
weighted, on standardised recorded fields: the estimate's TTFT and TPOT, concurrency, lengths,
workers and ranks a side, backend, GPU generation), held out by the fit's grouped folds. What
else moves these first tokens (a recipe's settings, the benchmark's warm-up and request count)
is not in the rows.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fit_serving import FOLDS  # noqa: E402

from engine.errors import EngineInputError  # noqa: E402
from engine.serving.calibration import load_calibration  # noqa: E402
from engine.serving.mapping import DISAGG_CSV, read_rows  # noqa: E402
from engine.serving.validate import answer_row  # noqa: E402

CONCURRENCY_BANDS = (8, 32, 128, 512, 2048)
NEIGHBOURS = 5


def deployment(m) -> tuple:
    """A measured deployment: its stack, both sides' layouts and its lengths (not its concurrency)."""
    lengths = (m.scenario.input_tokens, m.scenario.output_tokens)
    return (m.model, m.hardware, m.backend, m.disagg.prefill, m.disagg.decode, *lengths)


# A new deployment of a fitted stack ("other configurations of the same models"), then the fit's
# grouped folds: the kinds of runs the held-out set holds.
HELD_OUT_FOLDS = {"deployment (layouts on a stack, every concurrency)": deployment, **FOLDS}


def median_abs_error(log_ratio: np.ndarray) -> float:
    """Median |measured / estimate - 1| of log(measured / estimate)."""
    return float(np.median(np.abs(np.expm1(log_ratio))))


def group_floor(log_ratio: np.ndarray, groups: list) -> float:
    """median_abs_error once each group's median log ratio is divided out of its runs."""
    keys = np.array([str(g) for g in groups])
    corrected = log_ratio.astype(float).copy()
    for key in np.unique(keys):
        on = keys == key
        corrected[on] -= np.median(log_ratio[on])
    return median_abs_error(corrected)


def concurrency_band(concurrency: int) -> int:
    return int(np.searchsorted(CONCURRENCY_BANDS, concurrency))


def recorded_fields(m, answer: dict) -> list[float]:
    """What a learner may know of a run before it is measured: the estimate and the row's fields."""
    d, est = m.disagg, answer["estimate"]
    logs = (est["ttft_s"], est["tpot_s"], m.scenario.concurrency, m.scenario.input_tokens, m.scenario.output_tokens)
    sides = (d.prefill.workers, d.prefill.gpus, d.decode.workers, d.decode.gpus)
    return [*np.log(logs), *np.log(sides), float(m.backend == "sglang"), float(m.hardware.startswith(("b", "gb")))]


def nearest_correction(features: np.ndarray, log_ratio: np.ndarray, groups: list, k: int = NEIGHBOURS) -> np.ndarray:
    """Each run's log miss predicted from its k nearest runs outside its own group (inverse-
    distance weights on standardised features): a correction learned, then scored held out."""
    z = (features - features.mean(axis=0)) / np.maximum(features.std(axis=0), 1e-12)
    keys = np.array([str(g) for g in groups])
    predicted = np.zeros(len(log_ratio))
    for i in range(len(log_ratio)):
        others = np.flatnonzero(keys != keys[i])
        distance = np.linalg.norm(z[others] - z[i], axis=1)
        near = np.argsort(distance)[:k]
        weight = 1.0 / np.maximum(distance[near], 1e-9)
        predicted[i] = np.sum(weight * log_ratio[others[near]]) / np.sum(weight)
    return predicted


def distinct_runs(path: Path) -> list:
    """(mapped run, answer) of each run measured once: a row whose scenario, deployment and
    measured times repeat an earlier row's (the same measurement in two source files) is left out."""
    cal, seen, out = load_calibration(), set(), []
    for row in read_rows(path):
        try:
            m, answer = answer_row(dict(row), cal)
        except EngineInputError:
            continue
        key = (m.model, m.hardware, m.backend, m.scenario, m.disagg, m.ttft_s, m.tpot_s)
        if key not in seen:
            seen.add(key)
            out.append((m, answer))
    return out


def floors(runs: list) -> list[tuple[str, int, float]]:
    """(grouping, groups, median TTFT error) for the shipped estimate and each oracle grouping."""
    ratio = np.log([m.ttft_s / a["estimate"]["ttft_s"] for m, a in runs])
    stack = [(m.model, m.hardware, m.backend) for m, _ in runs]
    shape = [(*stack[i], m.scenario.input_tokens, m.scenario.output_tokens) for i, (m, _) in enumerate(runs)]
    band = [(*shape[i], concurrency_band(m.scenario.concurrency)) for i, (m, _) in enumerate(runs)]
    out = [("shipped estimate", 1, median_abs_error(ratio))]
    for name, groups in (("(model, GPU, backend)", stack), ("+ lengths", shape), ("+ concurrency band", band)):
        out.append((f"oracle factor per {name}", len(set(groups)), group_floor(ratio, groups)))
    return out


def held_out_corrections(runs: list, k: int = NEIGHBOURS) -> list[tuple[str, int, float, float]]:
    """(fold, groups, shipped estimate's median TTFT error, with the learned correction) per fold."""
    ratio = np.log([m.ttft_s / a["estimate"]["ttft_s"] for m, a in runs])
    features = np.array([recorded_fields(m, a) for m, a in runs])
    out = []
    for name, key in HELD_OUT_FOLDS.items():
        groups = [key(m) for m, _ in runs]
        corrected = ratio - nearest_correction(features, ratio, groups, k)
        out.append((name, len(set(map(str, groups))), median_abs_error(ratio), median_abs_error(corrected)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--neighbours", type=int, default=NEIGHBOURS, help="runs the learned correction reads")
    k = ap.parse_args(argv).neighbours
    if k < 1:
        ap.error("--neighbours: at least 1")
    runs = distinct_runs(DISAGG_CSV)
    print(f"{len(runs)} distinct disaggregated runs answered, in sample")
    print(f"{'':48} {'groups':>6} {'TTFT median error':>18}")
    for name, groups, error in floors(runs):
        print(f"{name:48} {groups:>6} {100 * error:>17.1f}%")
    print(f"\n{k} nearest runs of other groups as a correction, held out by")
    print(f"{'':48} {'groups':>6} {'shipped, in sample':>18} {'corrected':>10}")
    for name, groups, shipped, corrected in held_out_corrections(runs, k):
        print(f"{name:48} {groups:>6} {100 * shipped:>17.1f}% {100 * corrected:>9.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
