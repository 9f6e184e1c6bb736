"""`llm-roofline validate serving --data FILE.csv`: the serving estimate scored against measured runs."""

from __future__ import annotations

import argparse
import json

from engine.errors import EngineInputError
from engine.serving.mapping import TRAINING_CSV, read_rows
from engine.serving.validate import validate_rows


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    v = sub.add_parser("validate", help="score the serving estimate against measured runs")
    vs = v.add_subparsers(dest="what", required=True)
    vv = vs.add_parser("serving", help="median and p90 error of TPOT and TTFT: overall, by backend, GPU, model")
    vv.add_argument("--data", default=str(TRAINING_CSV), help="CSV with aiconfigurator's columns")
    vv.add_argument("--json", action="store_true", help="print the report as JSON")
    vv.set_defaults(func=_validate)


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _validate(args: argparse.Namespace) -> int:
    try:
        rows = read_rows(args.data)
    except (OSError, UnicodeDecodeError) as exc:
        raise EngineInputError(
            "--data", f"cannot read {args.data}: {exc}", code="file_open", params={"detail": str(exc)}
        ) from None
    report = validate_rows(rows)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['answered']} of {report['rows']} rows answered; calibration {report['calibration']}")
    head = f"{'':<34}{'rows':>6}{'TPOT med':>10}{'TPOT p90':>10}{'TTFT med':>10}{'TTFT p90':>10}"
    print(head + f"{'in range':>10}{'bound TPOT med':>16}{'bound>meas':>11}")
    sections = [("overall", {"overall": report["overall"]})]
    sections += [(k, report[k]) for k in ("by_backend", "by_gpu", "by_model")]
    for title, table in sections:
        if title != "overall":
            print(title.replace("_", " ") + ":")
        for name, s in table.items():
            print(
                f"{name[:34]:<34}{s['rows']:>6}{_pct(s['tpot_median_abs_error']):>10}{_pct(s['tpot_p90_abs_error']):>10}"
                f"{_pct(s['ttft_median_abs_error']):>10}{_pct(s['ttft_p90_abs_error']):>10}"
                f"{_pct(s['tpot_in_range']):>10}{_pct(s['bound']['tpot_median_abs_error']):>16}"
                f"{s['bound']['tpot_above_measured']:>11}"
            )
    for f in report["bound_above_measured_tpot"]:
        print(f"warning: {f['id']}: {f['warning']}")
    return 0
