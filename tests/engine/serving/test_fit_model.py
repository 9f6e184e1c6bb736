"""The fit's model (scripts/fit_features.py): its memo of calibrated steps answers as a fresh
evaluation does, and the steps read only the parameters the memo is keyed on."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))

import fit_features as ff  # noqa: E402
import fit_serving as fs  # noqa: E402
from fit_serving import initial_theta  # noqa: E402

from engine.serving.mapping import DISAGG_CSV, TRAINING_CSV  # noqa: E402


@pytest.fixture(scope="module")
def mapped():
    return ff.mapped_rows([TRAINING_CSV, DISAGG_CSV])[0]


@pytest.fixture(scope="module")
def few(mapped):
    """Forty aggregated and ten disaggregated measured runs, as the fit sees them."""
    agg = [m for m in mapped if m[0].disagg is None][:40]
    dis = [m for m in mapped if m[0].disagg is not None][:10]
    f = ff.features(agg + dis)
    assert set(f["kind"]) == {0, 1}
    return f


def _column(name: str, group: int = 0) -> int:
    return group * ff.NP + ff.PARAMETER_NAMES.index(name)


def test_the_steps_read_no_ttft_parameter(few):
    idx = np.flatnonzero(few["kind"] == 0)
    p = ff.row_parameters(initial_theta(), few, idx)
    only_steps = {k: v for k, v in p.items() if k in ff.STEP_PARAMETERS}
    rows = few["local"][idx]
    for which in ("tpot", "prefill", "chunk"):
        assert np.array_equal(ff._step(few["agg"], which, rows, only_steps), ff._step(few["agg"], which, rows, p))


# (parameter, group): 0 the global term, 1-3 a backend's, 4-5 a family's
MOVES = [("ttft_prefill_factor", 0), ("kv_transfer_latency_s", 0), ("bandwidth_efficiency", 0), ("step_overhead_s", 2)]


@pytest.mark.parametrize("moved", MOVES)
def test_a_remembered_step_answers_as_a_fresh_one(few, moved):
    idx = np.arange(len(few["rows"]))
    theta = initial_theta()
    before = ff.predict(theta, few, idx)
    theta[_column(*moved)] += 0.3
    warm = ff.predict(theta, few, idx)
    ff._STEP_MEMO.clear()
    cold = ff.predict(theta, few, idx)
    assert all(np.array_equal(w, c) for w, c in zip(warm, cold, strict=True))
    changed = [not np.array_equal(b, w) for b, w in zip(before, warm, strict=True)]
    assert changed[1], "every move here changes some TTFT"
    assert changed[0] == (moved[0] in ff.STEP_PARAMETERS), "TPOT moves with a step parameter only"


def test_a_tpot_fit_skips_the_aggregated_ttft(few):
    idx = np.arange(len(few["rows"]))
    tpot, ttft = ff.predict(initial_theta(), few, idx, ttft=False)
    assert np.isnan(ttft[few["kind"] == 0]).all() and np.isfinite(ttft[few["kind"] == 1]).all()
    assert np.array_equal(tpot, ff.predict(initial_theta(), few, idx)[0])


def test_an_inner_score_reads_only_its_own_rows(few):
    """Rows outside `train` (the group a nested fold predicts) are never read: their measurements
    made NaN, the score is the same finite number."""
    labels = np.array([r.hardware for r in few["rows"]])
    train = labels != sorted(set(labels))[0]
    score = fs.inner_score(few, labels, train, 1000.0)
    blind = dict(few, measured_tpot=np.where(train, few["measured_tpot"], np.nan))
    blind["measured_ttft"] = np.where(train, few["measured_ttft"], np.nan)
    assert np.isfinite(score) and fs.inner_score(blind, labels, train, 1000.0) == score


def test_a_nested_fold_never_lets_the_group_it_predicts_choose_its_ridge(few):
    """The ridge that predicts a group is chosen by the other groups alone: the group's measured
    TPOT made NaN (a score that read it would be NaN at every ridge), the same ridge is chosen."""
    key = lambda r: r.hardware  # noqa: E731
    grid = (10.0, 10000.0)
    _, chosen = fs.nested_held_out(few, key, grid=grid)
    assert len(chosen) >= 3 and set(chosen.values()) <= set(grid)
    for group in (g for g, ridge in chosen.items() if ridge != grid[0]):
        nan = np.where([key(r) == group for r in few["rows"]], np.nan, 1.0)
        _, blind = fs.nested_held_out(dict(few, measured_tpot=few["measured_tpot"] * nan), key, grid=grid)
        assert blind[group] == chosen[group]


def test_a_disaggregated_ttft_far_off_pulls_less_the_further_it_is(few):
    """The disaggregated TTFT's loss redescends (Cauchy): a run 30x off the estimate pulls the
    fit less than one 3x off, so runs that record seconds no column explains cannot drag the
    fixed cost away from the rest. The aggregated TTFT and the TPOT keep soft-L1, whose pull
    never fades."""
    est = np.ones(4)
    meas = np.array([1.5, 3.0, 30.0, 300.0])

    def pull(residual_of):  # d loss / d log(meas): the residual times its slope
        h = 1e-6
        r0, r1 = residual_of(est, meas), residual_of(est, meas * np.exp(h))
        return np.abs((r1 * r1 - r0 * r0) / h)

    cauchy, soft_l1 = pull(fs._cauchy), pull(fs._pseudo)
    assert cauchy[2] < cauchy[1] and cauchy[3] < cauchy[2]
    assert soft_l1[3] >= soft_l1[2] * 0.99 and soft_l1[2] >= soft_l1[1] * 0.99


def test_only_the_disaggregated_ttft_takes_the_cauchy_loss(few):
    idx = np.arange(len(few["rows"]))
    theta = initial_theta()
    tpot, ttft = ff.predict(theta, few, idx)
    dis = few["kind"] == 1
    got = fs._row_residuals(theta, few, idx, "ttft")
    assert np.array_equal(got[dis], fs._cauchy(ttft[dis], few["measured_ttft"][dis]))
    assert np.array_equal(got[~dis], fs._pseudo(ttft[~dis], few["measured_ttft"][~dis]))
    assert np.array_equal(fs._row_residuals(theta, few, idx, "tpot"), fs._pseudo(tpot, few["measured_tpot"]))


def test_the_check_holds_parameters_to_two_percent_and_the_rest_exactly():
    """The fit's --check: parameters within CHECK_RELATIVE (BLAS kernels round differently by
    CPU), the data's and the method's fields exactly, the ranges and statistics by shape."""
    import copy

    import yaml

    from engine.serving.calibration import CALIBRATION_PATH

    shipped = yaml.safe_load(CALIBRATION_PATH.read_text(encoding="utf-8"))
    assert fs.check(shipped, copy.deepcopy(shipped)) == []
    fresh = copy.deepcopy(shipped)
    fresh["global"]["prefill_queue_factor"] *= 1.01  # as far as two CPUs were seen to differ
    fresh["ranges"]["new_model/disaggregated"]["ttft"][0] *= 2.2  # a held-out figure: not compared
    assert fs.check(shipped, fresh) == []
    fresh["backend_factors"]["sglang"]["compute_efficiency"] *= 1.03
    fresh["fitted_on"]["rows"] += 1
    del fresh["ranges"]["pairing/aggregated"]
    found = fs.check(shipped, fresh)
    assert found[0] == "fitted_on: differs"
    assert found[1].startswith("backend_factors/sglang/compute_efficiency: ")
    gone = list(fs._leaves(shipped["ranges"]["pairing/aggregated"], None, ""))  # its quantiles and counts
    assert "ranges/pairing/aggregated/rows: in one of the two only" in found and len(found) == 2 + len(gone)


def test_a_held_out_group_is_predicted_by_a_fit_that_never_saw_it(few):
    """Each fold is a fresh fit on the other groups, from the initial parameters: its predictions
    are those of fit(f, train) alone, whatever the whole fit found. A fold started from the whole
    fit's optimum kept part of what the held-out group taught it."""
    key = lambda r: r.hardware  # noqa: E731
    labels = np.array([key(r) for r in few["rows"]])
    _, tpot, ttft = fs.held_out(few, key)
    group = sorted(set(labels))[0]
    test, train = np.flatnonzero(labels == group), np.flatnonzero(labels != group)
    fresh = fs.fit(few, train)
    want = ff.predict(fresh, few, test, factors=fs.model_factors(fresh, few, train))
    assert np.array_equal(tpot[test], want[0]) and np.array_equal(ttft[test], want[1])


def test_a_disaggregated_range_from_too_few_groups_covers_the_aggregated_one(mapped):
    """Held out by model family, disaggregated runs of one or two families have a range (here all
    0.75x) that says nothing of how a new family strays: it is widened to the aggregated range,
    measured on every family. A mode with enough groups keeps its own."""
    by_family = {}
    for m in mapped:
        by_family.setdefault((ff.model_family(m[0].model), m[0].disagg is None), []).append(m)
    varied = ff.features([m for rows in by_family.values() for m in rows[:6]])
    kind = varied["kind"]
    spread = np.linspace(0.7, 1.4, len(kind))
    estimate = varied["measured_tpot"] * np.where(kind == 1, 1 / 0.75, spread)
    ttft = varied["measured_ttft"] * np.where(kind == 1, 1.0, spread)
    got = fs.ranges(varied, {"new_model": (estimate, ttft)})
    agg, dis = got["new_model/aggregated"], got["new_model/disaggregated"]
    assert dis["groups"] < fs.MIN_RANGE_GROUPS <= agg["groups"]
    assert dis["widened_to_aggregated"] and not agg["widened_to_aggregated"]
    assert dis["tpot"] == fs._hull([0.75, 0.75], agg["tpot"]) and dis["ttft"] == agg["ttft"]
    assert agg["tpot"][0] < 0.75 * 1.4 and agg["tpot"][1] > 1.0


def test_a_new_gpus_range_spans_every_gpus_offset_where_a_pairings_pools_the_runs(mapped):
    """Runs of a GPU stray together. Two GPUs of one run each, 0.5x and 2x, and one of twenty
    runs, all 1x: pooled, their p10-p90 is 1x-1x and says nothing of the strays; a new GPU's
    range spans every GPU's median (GROUP_SPREAD_KINDS), a pairing's keeps the pooled one."""
    by_gpu = {}
    for m in mapped:
        if m[0].disagg is None:
            by_gpu.setdefault(m[0].hardware, []).append(m)
    gpus = sorted(by_gpu, key=lambda hw: -len(by_gpu[hw]))[:3]  # the aggregated runs are on three
    f = ff.features(by_gpu[gpus[0]][:20] + [by_gpu[gpus[1]][0], by_gpu[gpus[2]][0]])
    offset = {gpus[1]: 0.5, gpus[2]: 2.0}
    ratio = np.array([offset.get(r.hardware, 1.0) for r in f["rows"]])
    held = (f["measured_tpot"] / ratio, f["measured_ttft"] / ratio)
    got = fs.ranges(f, {"new_gpu": held, "pairing": held})
    new_gpu, pairing = got["new_gpu/aggregated"], got["pairing/aggregated"]
    assert new_gpu["spans_groups"] and not pairing["spans_groups"]
    assert new_gpu["tpot"] == new_gpu["ttft"] == [0.5, 2.0]
    assert pairing["tpot"] == pairing["ttft"] == [1.0, 1.0]


def test_a_fit_without_a_fitted_disaggregated_tpot_keeps_the_decode_factor_at_one(few):
    """disagg_decode_factor is informed only by disaggregated runs whose TPOT is fitted: a fit
    without one keeps it at 1, an aggregated step, not at whatever it started from."""
    j = ff.PARAMETER_NAMES.index("disagg_decode_factor")
    theta = initial_theta() + 0.1
    everything = np.arange(len(few["rows"]))
    assert few["tpot_fitted"][few["kind"] == 1].any()
    assert np.array_equal(fs._informed(theta, few, everything), theta)
    aggregated_only = fs._informed(theta, few, np.flatnonzero(few["kind"] == 0))
    assert np.all(aggregated_only[j :: ff.NP] == 0.0)  # log 1 in every term: an aggregated step
    others = np.ones(len(theta), dtype=bool)
    others[j :: ff.NP] = False
    assert np.array_equal(aggregated_only[others], theta[others])


def test_a_run_counts_as_seen_only_when_another_campaign_measured_its_model_and_gpu():
    """The campaign fold's partitions (README): a run's model and GPU must both appear, together,
    in a run of another campaign; the same campaign's runs do not count."""
    from types import SimpleNamespace as Run

    rows = [
        Run(model="a", hardware="h100"),
        Run(model="a", hardware="h100"),  # the same campaign: not another
        Run(model="a", hardware="b200"),  # model a elsewhere, but on another GPU
        Run(model="a", hardware="h100"),
    ]
    campaign = np.array(["x", "x", "y", "z"])
    assert fs._seen_elsewhere(rows, campaign, "model", "hardware").tolist() == [True, True, False, True]
    assert fs._seen_elsewhere(rows, campaign, "model").tolist() == [True, True, True, True]
    assert fs._seen_elsewhere(rows[:2], campaign[:2], "model").tolist() == [False, False]
