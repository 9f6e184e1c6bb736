"""scripts/validate_held_out.py: each run answered as `validate serving` answers it, and the
aims' figures read off those answers. (The folds' refits take minutes each and are run by hand:
README, "Error on runs it never saw".)"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))

import fit_features as ff  # noqa: E402
import validate_held_out as vho  # noqa: E402

from engine.errors import EngineInputError  # noqa: E402
from engine.serving.calibration import load_calibration  # noqa: E402
from engine.serving.mapping import DISAGG_CSV, read_rows  # noqa: E402
from engine.serving.validate import answer_row, validate_rows  # noqa: E402


@pytest.fixture(scope="module")
def disagg_records():
    mapped, _ = ff.mapped_rows([DISAGG_CSV])
    return vho.answered_runs(mapped, load_calibration())


def test_each_run_is_answered_as_validate_answers_it(disagg_records):
    records, refused = disagg_records
    rows = read_rows(DISAGG_CSV)
    assert refused == 20 and len(records) + refused == len(rows)
    cal = load_calibration()
    by_id = {r["id"]: r for r in records}
    assert len(by_id) == len(records)
    for raw in rows[::40]:  # a spanned run (several recipes) among them
        try:
            m, answer = answer_row(raw, cal)
        except EngineInputError:  # the 20 whose recorded layout does not fit
            continue
        record = by_id[m.id]
        assert record["estimate_tpot_s"] == answer["estimate"]["tpot_s"]
        assert record["bound_tpot_s"] == answer["bound"]["tpot_s"]
        assert (record["tpot_low"], record["tpot_high"]) == tuple(answer["estimate"]["tpot_s_range"])


def test_the_summary_is_validates_figures_on_the_same_answers(disagg_records):
    records, refused = disagg_records
    mine = vho.summary(records, refused)
    theirs = validate_rows(read_rows(DISAGG_CSV))["disaggregated"]
    assert mine["answered"] == theirs["answered"] == 657
    assert mine["answered_share"] == pytest.approx(657 / 677)
    for key in ("tpot_median_abs_error", "ttft_median_abs_error", "tpot_in_range", "tpot_range_ratio_median"):
        assert mine[key] == pytest.approx(theirs[key], rel=1e-12)
    assert mine["bound_above_measured_tpot"] == theirs["bound"]["tpot_above_measured"]
    # the described runs' TPOT (recorded or one recipe's, a token a step or named MTP drafts) apart
    assert mine["tpot_median_abs_error_described"] < mine["tpot_median_abs_error"]


def test_a_summary_by_hand():
    def run(measured, estimate, low, high, bound, described=True):
        return {"mode": "disaggregated", "described": described, "workers": "w", "measured_tpot_s": measured,
                "measured_ttft_s": 1.0, "estimate_tpot_s": estimate, "estimate_ttft_s": 1.5, "tpot_low": low,
                "tpot_high": high, "bound_tpot_s": bound}  # fmt: skip

    records = [run(0.010, 0.011, 0.008, 0.012, 0.005), run(0.010, 0.008, 0.006, 0.009, 0.011, described=False)]
    s = vho.summary(records, refused=2)
    assert s["answered_share"] == 0.5
    assert s["tpot_median_abs_error"] == pytest.approx(0.15)  # 10% and 20%
    assert s["tpot_median_abs_error_described"] == pytest.approx(0.1)
    assert s["ttft_median_abs_error"] == pytest.approx(0.5)
    assert s["tpot_in_range"] == 0.5 and s["bound_above_measured_tpot"] == 1
    assert s["tpot_range_ratio_median"] == pytest.approx((1.5 + 1.5) / 2)
    assert vho.summary([], refused=3) == {"answered": 0, "refused": 3}
