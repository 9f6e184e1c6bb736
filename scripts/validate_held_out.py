"""The serving estimate scored on runs it never saw, answered the way a user's answer is made.

scripts/fit_serving.py --held-out scores the fit's own arrays, and a disaggregated run whose worker
counts no single recipe gives is there one worker per side. Here, for each grouped fold
(fit_serving.FOLDS: a GPU, a model family, a measuring campaign), the whole calibration is refitted
without one group (fit_serving.calibration_of: the parameters, each model's TTFT factor, the ranges
and the MTP acceptance), and that group's runs are answered with it by
engine.serving.validate.answer_mapped, as `llm-roofline validate serving` answers them: a run that
may have been several published recipes spanned over them. It reports, for each mode, the aims a
new run is held to: the share answered, the TPOT and TTFT median absolute error, the share of
measured TPOTs inside the range and its width, and the runs faster than their TPOT bound.

    python scripts/validate_held_out.py [--fold GPU] [--json]

One calibration per group, about 2.5 minutes each: the GPU fold refits 5 times, the campaign fold
4, the model-family fold 8.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fit_features import mapped_rows  # noqa: E402
from fit_serving import FOLDS, calibration_of  # noqa: E402

from engine.errors import EngineInputError  # noqa: E402
from engine.serving.calibration import Calibration  # noqa: E402
from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV  # noqa: E402
from engine.serving.validate import answer_mapped, workers_group  # noqa: E402

PATHS = [TRAINING_CSV, DISAGG_CSV]
HELD_OUT_FOLDS = ("GPU", "campaign", "model family")


def answered_runs(mapped: list, cal: Calibration) -> tuple[list[dict], int]:
    """(one record per run answered, the count of runs the estimate refused)."""
    records, refused = [], 0
    for m, _model, _hw in mapped:
        try:
            answer = answer_mapped(m, cal)
        except EngineInputError:
            refused += 1
            continue
        estimate, bound = answer["estimate"], answer["bound"]
        records.append({
            "id": m.id,
            "mode": "aggregated" if m.disagg is None else "disaggregated",
            "described": m.tpot_describable,
            "workers": workers_group(m) if m.disagg is not None else "",
            "measured_tpot_s": m.tpot_s, "measured_ttft_s": m.ttft_s,
            "estimate_tpot_s": estimate["tpot_s"], "estimate_ttft_s": estimate["ttft_s"],
            "tpot_low": estimate["tpot_s_range"][0], "tpot_high": estimate["tpot_s_range"][1],
            "bound_tpot_s": bound["tpot_s"],
        })  # fmt: skip
    return records, refused


def fold_records(fold: str, mapped: list, skipped: list) -> tuple[list[dict], dict[str, int]]:
    """Every run answered by the calibration fitted without its group; refused runs by mode."""
    key = FOLDS[fold]
    labels = [str(key(m)) for m, _, _ in mapped]
    records, refused = [], {"aggregated": 0, "disaggregated": 0}
    for label in sorted(set(labels)):
        train = [row for row, other in zip(mapped, labels, strict=True) if other != label]
        test = [row for row, other in zip(mapped, labels, strict=True) if other == label]
        cal = Calibration(f"without {label}", calibration_of(train, skipped, PATHS))
        for mode in refused:
            rows = [row for row in test if (row[0].disagg is None) == (mode == "aggregated")]
            got, n = answered_runs(rows, cal)
            records += got
            refused[mode] += n
        print(f"{fold}: {label} answered", file=sys.stderr, flush=True)
    return records, refused


def summary(records: list[dict], refused: int) -> dict:
    """The aims' figures over these records."""
    if not records:
        return {"answered": 0, "refused": refused}

    def col(name: str) -> np.ndarray:
        return np.array([r[name] for r in records])

    tpot_error = np.abs(col("estimate_tpot_s") / col("measured_tpot_s") - 1.0)
    ttft_error = np.abs(col("estimate_ttft_s") / col("measured_ttft_s") - 1.0)
    described = col("described").astype(bool)
    measured = col("measured_tpot_s")
    return {
        "answered": len(records),
        "refused": refused,
        "answered_share": len(records) / (len(records) + refused),
        "tpot_median_abs_error": float(np.median(tpot_error)),
        "tpot_median_abs_error_described": float(np.median(tpot_error[described])) if described.any() else None,
        "ttft_median_abs_error": float(np.median(ttft_error)),
        "tpot_in_range": float(np.mean((col("tpot_low") <= measured) & (measured <= col("tpot_high")))),
        "tpot_range_ratio_median": float(np.median(col("tpot_high") / col("tpot_low"))),
        "bound_above_measured_tpot": int(np.sum(col("bound_tpot_s") > measured)),
    }


def report(fold: str, records: list[dict], refused: dict[str, int]) -> dict:
    out = {}
    for mode in ("aggregated", "disaggregated"):
        own = [r for r in records if r["mode"] == mode]
        out[mode] = summary(own, refused[mode])
        if mode == "disaggregated":
            kinds = sorted({r["workers"] for r in own})
            out[mode]["by_workers"] = {k: summary([r for r in own if r["workers"] == k], 0) for k in kinds}
    return {"fold": fold, **out}


def _pct(x) -> str:
    return "-" if x is None else f"{x * 100:.1f}%"


def print_table(reports: list[dict]) -> None:
    print("| fold | mode | answered | TPOT median | TPOT median (described) | TTFT median | TPOT in range "
          "| range x | bound above TPOT |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in reports:
        for mode in ("aggregated", "disaggregated"):
            s = r[mode]
            if not s["answered"]:
                continue
            print(
                f"| {r['fold']} | {mode} | {s['answered']} of {s['answered'] + s['refused']} "
                f"| {_pct(s['tpot_median_abs_error'])} | {_pct(s['tpot_median_abs_error_described'])} "
                f"| {_pct(s['ttft_median_abs_error'])} | {_pct(s['tpot_in_range'])} "
                f"| {s['tpot_range_ratio_median']:.2f} | {s['bound_above_measured_tpot']} |"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fold", choices=HELD_OUT_FOLDS, action="append", help="a fold (default: all three)")
    parser.add_argument("--json", action="store_true", help="the reports as JSON, by-workers groups included")
    args = parser.parse_args(argv)
    mapped, skipped = mapped_rows(PATHS)
    reports = [report(fold, *fold_records(fold, mapped, skipped)) for fold in args.fold or HELD_OUT_FOLDS]
    if args.json:
        print(json.dumps(reports, indent=1))
    else:
        print_table(reports)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
