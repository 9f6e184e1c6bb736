"""The fit to a user's own runs: it recovers the numbers that made the runs, never leaves its
limits, and lowers the error on the runs it was given; a run faster than the bound is named
and left out, a fit needs MIN_RUNS runs, and a fitted number never crosses the bound."""

from dataclasses import replace

import pytest

from engine.serving_userfit import LIMITS, MIN_RUNS, FitRefused, RunParts, UserFit, fit_user_runs, fitted_rates


def _runs(truth: UserFit, operators=(4e-3, 6e-3, 9e-3, 14e-3, 20e-3)) -> list[RunParts]:
    runs = []
    for i, ops in enumerate(operators):
        comm, prefill, queue = 1e-3, 0.05 + 0.01 * i, float(i)
        # the shipped estimate: scale 1, overhead 0.2 ms, prefill x 1, 10 wait steps
        est_tpot = ops + comm + 2e-4
        est_ttft = prefill + (10 + queue) * est_tpot
        tpot = truth.tpot_s(ops, comm)
        ttft = truth.ttft_s(est_ttft - queue * est_tpot, queue, tpot, est_tpot)
        # the bound: the operators at the roofs (half the calibrated time), the link, no overhead
        bound_tpot, bound_ttft = ops / 2 + comm, prefill / 3
        runs.append(RunParts(tpot, ttft, ops, comm, 2e-4, prefill, queue, est_tpot, est_ttft, bound_tpot, bound_ttft))
    return runs


def test_recovers_the_numbers_that_made_the_runs():
    truth = UserFit(tpot_scale=1.6, step_overhead_s=1.5e-3, ttft_scale=2.0, wait_steps=4.0)
    report = fit_user_runs(_runs(truth))
    assert report.fit.tpot_scale == pytest.approx(1.6, rel=1e-9)
    assert report.fit.step_overhead_s == pytest.approx(1.5e-3, rel=1e-9)
    assert report.fit.ttft_scale == pytest.approx(2.0, rel=1e-9)
    assert report.fit.wait_steps == pytest.approx(4.0, rel=1e-9)
    assert report.tpot_error_after < 1e-9 < report.tpot_error_before
    assert report.ttft_error_after < 1e-9 < report.ttft_error_before
    assert report.runs == 5


def test_a_negative_overhead_is_held_at_zero_and_the_scale_refitted():
    # runs made with a negative offset (impossible): the fit keeps the overhead at its limit, 0
    truth = UserFit(tpot_scale=1.2, step_overhead_s=-1e-3, ttft_scale=1.0, wait_steps=3.0)
    report = fit_user_runs(_runs(truth))
    assert report.fit.step_overhead_s == 0.0
    assert 0.9 < report.fit.tpot_scale < 1.2


@pytest.mark.parametrize("count", [1, MIN_RUNS - 1])
def test_fewer_runs_than_a_fit_needs_are_refused(count):
    """Two runs fit two numbers exactly: "error 0%" would say nothing."""
    truth = UserFit(tpot_scale=2.0, step_overhead_s=2e-4, ttft_scale=1.0, wait_steps=10.0)
    with pytest.raises(FitRefused) as caught:
        fit_user_runs(_runs(truth, operators=(5e-3, 8e-3)[:count]))
    assert caught.value.kept == count and caught.value.breaches == ()


def test_a_run_faster_than_the_bound_is_named_and_left_out():
    truth = UserFit(tpot_scale=1.6, step_overhead_s=1.5e-3, ttft_scale=2.0, wait_steps=4.0)
    runs = _runs(truth)
    runs[2] = replace(runs[2], measured_tpot_s=1e-4)  # 0.1 ms: faster than any bound here
    report = fit_user_runs(runs)
    assert report.runs == 4
    ((breach),) = report.excluded
    assert (breach.index, breach.field, breach.measured_s) == (2, "tpot", 1e-4)
    assert breach.faster == pytest.approx(runs[2].bound_tpot_s / 1e-4)
    assert report.fit.tpot_scale == pytest.approx(1.6, rel=1e-9)  # the other runs still fit exactly


def test_three_runs_faster_than_the_bound_refuse_the_fit():
    """The issue's paste: three runs at TPOT 0.1 ms were fitted, and the fit crossed the bound."""
    truth = UserFit(tpot_scale=1.0, step_overhead_s=2e-4, ttft_scale=1.0, wait_steps=10.0)
    runs = [replace(r, measured_tpot_s=1e-4) for r in _runs(truth, operators=(4e-3, 6e-3, 9e-3))]
    with pytest.raises(FitRefused) as caught:
        fit_user_runs(runs)
    assert caught.value.kept == 0 and [b.index for b in caught.value.breaches] == [0, 1, 2]


def test_a_fitted_number_faster_than_the_bound_is_held_at_it_and_says_so():
    result = {
        "running_batch": 8,
        "queued": 0,
        "gpus": 2,
        "bound": {"tpot_s": 5e-3, "ttft_s": 0.02, "output_tokens_per_s_per_gpu": 1e9},
        "estimate": {"tpot_s": 10e-3, "ttft_s": 0.1},
        "breakdown": {
            "tpot": {"estimate": {"total_s": 10e-3, "communication_s": 1e-3, "overhead_s": 1e-3}},
            "ttft": {"estimate": {"prefill_s": 0.05}},
        },
    }
    fast = UserFit(tpot_scale=0.05, step_overhead_s=0.0, ttft_scale=0.05, wait_steps=0.0)
    rates = fitted_rates(result, 0.0, fast, 100)
    assert rates["tpot_s"] == 5e-3 and rates["ttft_s"] == 0.02 and rates["at_bound"] is True
    # 8 clients in a closed loop: 8 x 100 tokens per 0.02 + 99 x 5 ms, over 2 GPUs
    assert rates["output_tokens_per_s_per_gpu"] == pytest.approx(8 * 100 / 0.515 / 2)
    slow = UserFit(tpot_scale=1.0, step_overhead_s=1e-3, ttft_scale=1.0, wait_steps=0.0)
    assert fitted_rates(result, 0.0, slow, 100)["at_bound"] is False


def test_every_fitted_number_stays_within_its_limits():
    truth = UserFit(tpot_scale=500.0, step_overhead_s=1.0, ttft_scale=1e4, wait_steps=1e5)
    fit = fit_user_runs(_runs(truth)).fit
    for name, (low, high) in LIMITS.items():
        assert low <= getattr(fit, name) <= high, name


def test_no_runs_is_refused():
    with pytest.raises(FitRefused):
        fit_user_runs([])


def test_a_fit_never_reports_a_larger_median_error_than_the_shipped_one():
    # TTFT driven by noise the model cannot follow: the shipped TTFT shape is kept if it is better
    truth = UserFit(tpot_scale=1.3, step_overhead_s=5e-4, ttft_scale=1.0, wait_steps=10.0)
    runs = _runs(truth)
    factors = (1.0, 3.0, 0.4, 1.0, 2.5)
    noisy = [replace(r, measured_ttft_s=r.measured_ttft_s * f) for r, f in zip(runs, factors, strict=True)]
    report = fit_user_runs(noisy)
    assert report.tpot_error_after <= report.tpot_error_before
    assert report.ttft_error_after <= report.ttft_error_before
