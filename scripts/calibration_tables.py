"""Print the serving calibration's tables for docs/serving-estimate.md, read from the shipped
file (engine/calibration/serving.yaml), so the documentation's numbers are the engine's:

    python scripts/calibration_tables.py            # parameters, models' TTFT factors, error by fold, ranges
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.serving.calibration import PARAMETER_NAMES, PARAMETERS, load_calibration  # noqa: E402

PAIRS = [(None, "hopper"), (None, "blackwell")] + [
    (b, f) for b in ("trtllm", "vllm", "sglang") for f in ("hopper", "blackwell")
]
CARD_OF_FAMILY = {"hopper": "h200-sxm", "blackwell": "b200"}
FOLD_NAMES = {
    "in_sample": "in sample (for comparison)",
    "held_out_(model, GPU, backend) pairing": "each (model, GPU, backend) pairing held out",
    "held_out_GPU": "each GPU held out",
    "held_out_model family": "each model family held out",
}


def _value(name: str, v: float) -> str:
    if name.endswith("_s"):
        if v >= 1:
            return f"{v:.3g} s"
        return f"{v * 1e3:.3g} ms" if v >= 1e-3 else f"{v * 1e6:.3g} µs"
    return f"{v:.3g}"


def parameter_table() -> str:
    cal = load_calibration()
    head = " | ".join(f"{b or 'any'} / {f}" for b, f in PAIRS)
    lines = [f"| parameter | meaning | limits | {head} |", "|---|---|---|" + "---:|" * len(PAIRS)]
    for name in PARAMETER_NAMES:
        meaning, low, high = PARAMETERS[name]
        cells = [_value(name, cal.parameters(b, CARD_OF_FAMILY[f])[0][name]) for b, f in PAIRS]
        lines.append(f"| `{name}` | {meaning} | {_value(name, low)}–{_value(name, high)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def error_table() -> str:
    stats = load_calibration().data["fit_statistics"]
    lines = [
        "| fit | agg. TPOT median | agg. TPOT p90 | agg. TTFT median | disagg. TPOT median (workers recorded) "
        "| disagg. TPOT p90 (workers recorded) | disagg. TTFT median |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for key, label in FOLD_NAMES.items():
        a, d = stats[key]["aggregated"], stats[key]["disaggregated"]
        cells = (a["tpot"]["median_abs_error"], a["tpot"]["p90_abs_error"], a["ttft"]["median_abs_error"])
        cells += (d["tpot"]["median_abs_error"], d["tpot"]["p90_abs_error"], d["ttft"]["median_abs_error"])
        lines.append(f"| {label} | " + " | ".join(f"{c:.1%}" for c in cells) + " |")
    rows = stats["in_sample"]
    unknown = rows["disaggregated_workers_not_recorded"]["tpot"]
    lines.append(
        f"\n({rows['aggregated']['tpot']['rows']:,} aggregated and {rows['disaggregated']['ttft']['rows']:,} "
        f"disaggregated runs fitted; the disaggregated TPOT on the {rows['disaggregated']['tpot']['rows']:,} that "
        f"record their worker counts. The other {unknown['rows']:,}, answered as one prefill and one decode worker, "
        f"miss their TPOT by a median of {unknown['median_abs_error']:.1%} in sample.)"
    )
    return "\n".join(lines)


def range_table() -> str:
    ranges = load_calibration().data["ranges"]
    head = "| kind of scenario / mode | runs | TPOT measured / estimate, p10–p90 | TTFT p10–p90 |"
    lines = [head, "|---|---:|---|---|"]
    for key, r in ranges.items():
        lines.append(
            f"| {key} | {r['rows']:,} | {r['tpot'][0]:.2f}–{r['tpot'][1]:.2f} | {r['ttft'][0]:.2f}–{r['ttft'][1]:.2f} |"
        )
    return "\n".join(lines)


def model_factor_table() -> str:
    """Each fitted model's factor on its aggregated TTFT estimate (Calibration.ttft_model_factor)."""
    factors = load_calibration().data.get("ttft_model_factors", {})
    lines = ["| model | aggregated TTFT factor |", "|---|---:|"]
    lines += [f"| {model} | {factor:.3g} |" for model, factor in sorted(factors.items())]
    return "\n".join(lines)


def main() -> int:
    print(f"calibration {load_calibration().id}\n")
    for table in (parameter_table(), model_factor_table(), error_table(), range_table()):
        print(table, end="\n\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
