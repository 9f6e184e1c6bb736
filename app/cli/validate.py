"""`llm-roofline validate serving --data FILE.csv`: the serving estimate scored against measured runs."""

from __future__ import annotations

import argparse
import sys

from engine.planner.validate import validate_plan
from engine.serving.mapping import MAX_FILE_BYTES, MAX_ROWS, TRAINING_CSV, stream_rows
from engine.serving.validate import MAX_LISTED, validate_rows

from ..units import plural
from .common import print_json


def register(sub) -> None:  # noqa: ANN001  (argparse's private subparsers action)
    v = sub.add_parser("validate", help="score the serving estimate against measured runs")
    vs = v.add_subparsers(dest="what", required=True)
    vv = vs.add_parser(
        "serving",
        help="median and p90 error of TPOT and TTFT: overall, by backend, GPU, model",
        description="Score the serving estimate and the bound against measured runs. Each row that cannot be "
        "mapped or answered is named on stderr (line, field, why) and skipped; the exit status is then 2, "
        "as it is when the file is refused.",
    )
    vv.add_argument(
        "--data",
        default=str(TRAINING_CSV),
        help=f"CSV with aiconfigurator's columns: a regular file of at most {MAX_FILE_BYTES // 2**20} MiB and "
        f"{MAX_ROWS:,} lines after the header, read as a stream",
    )
    vv.add_argument("--json", action="store_true", help="print the report as JSON")
    vv.set_defaults(func=_validate)
    vp = vs.add_parser(
        "plan",
        help="would the planner's pick have met the target? success rate and median regret on measured runs",
        description="Group the runs that share a model, GPU, backend, mode and lengths across two layouts or more, "
        "set the target at each group's median measured TPOT, pick the run the estimate ranks first among those it "
        "predicts to meet it (at the estimate, or at its range's pessimistic end), and score the pick on its "
        "measured TPOT and tokens/s/GPU.",
    )
    vp.add_argument("--data", default=str(TRAINING_CSV), help=vv._option_string_actions["--data"].help)
    vp.add_argument("--json", action="store_true", help="print the report as JSON")
    vp.set_defaults(func=_validate_plan)


def _validate_plan(args: argparse.Namespace) -> int:
    report = validate_plan(stream_rows(args.data), on_skip=_say_skipped)
    if args.json:
        print_json(report)
        return 0
    print(f"{report['groups']} groups; calibration {report['calibration']}")
    if report["rows_not_described"]:
        print(
            f"{report['rows_not_described']:,} disaggregated runs left out: worker counts neither recorded nor their "
            "recipe's, or a recipe that leaves its decoding (MTP or not) unknown"
        )
    for name in ("estimate", "pessimistic"):
        r = report[f"by_{name}"]
        print(f"by the {name}: the pick meets the target in {_pct(r['success_rate'])} of groups, median regret "
              f"{_pct(r['median_regret'])}")  # fmt: skip
    return 0


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _say_skipped(entry: dict) -> None:
    named = f" ({entry['id']})" if entry["id"] else ""
    print(f"llm-roofline: line {entry['line']}{named}: {entry['reason']}; row skipped", file=sys.stderr)


def _validate(args: argparse.Namespace) -> int:
    report = validate_rows(stream_rows(args.data), on_skip=_say_skipped)
    status = 0
    if report["unanswered_count"]:
        skipped = report["unanswered_count"]
        print(f"llm-roofline: error: --data: {plural(skipped, 'row')} skipped (named above)", file=sys.stderr)
        status = 2
    if args.json:
        print_json(report)
        return status
    print(f"{report['answered']} of {report['rows']} rows answered; calibration {report['calibration']}")
    head = f"{'':<34}{'rows':>6}{'TPOT med':>10}{'TPOT p90':>10}{'TTFT med':>10}{'TTFT p90':>10}"
    print(head + f"{'in range':>10}{'range x':>9}{'bound TPOT med':>16}{'bound>meas':>11}")
    sections = [("overall", {"aggregated": report["overall"]})] if report["overall"] else []
    sections += [(k, report[k]) for k in ("by_backend", "by_gpu", "by_model")]
    d = report["disaggregated"]
    if d:
        parts = {f"  {k}": v for group in ("by_gpu", "by_workers") for k, v in d[group].items()}
        sections.append(("disaggregated", {"disaggregated": d} | parts))
    for title, table in sections:
        if title != "overall":
            print(title.replace("_", " ") + ":")
        for name, s in table.items():
            print(
                f"{name[:34]:<34}{s['rows']:>6}{_pct(s['tpot_median_abs_error']):>10}{_pct(s['tpot_p90_abs_error']):>10}"
                f"{_pct(s['ttft_median_abs_error']):>10}{_pct(s['ttft_p90_abs_error']):>10}"
                f"{_pct(s['tpot_in_range']):>10}{s['tpot_range_ratio_median']:>9.2f}"
                f"{_pct(s['bound']['tpot_median_abs_error']):>16}"
                f"{s['bound']['tpot_above_measured']:>11}"
            )
    for key in ("tpot", "ttft"):
        listed = report[f"bound_above_measured_{key}"]
        for f in listed:
            print(f"warning: {f['id']}: {f['warning']}")
        more = report[f"bound_above_measured_{key}_count"] - len(listed)
        if more:
            print(
                f"warning: and {plural(more, 'more run')} below the {key.upper()} bound "
                f"(the first {MAX_LISTED:,} are listed)"
            )
    return status
