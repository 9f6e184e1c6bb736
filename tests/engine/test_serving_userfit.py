"""The fit to a user's own runs: it recovers the numbers that made the runs, never leaves its
limits, and lowers the error on the runs it was given."""

from dataclasses import replace

import pytest

from engine.serving_userfit import LIMITS, RunParts, UserFit, fit_user_runs


def _runs(truth: UserFit, operators=(4e-3, 6e-3, 9e-3, 14e-3, 20e-3)) -> list[RunParts]:
    runs = []
    for i, ops in enumerate(operators):
        comm, prefill, queue = 1e-3, 0.05 + 0.01 * i, float(i)
        # the shipped estimate: scale 1, overhead 0.2 ms, prefill x 1, 10 wait steps
        est_tpot = ops + comm + 2e-4
        est_ttft = prefill + (10 + queue) * est_tpot
        tpot = truth.tpot_s(ops, comm)
        ttft = truth.ttft_s(est_ttft - queue * est_tpot, queue, tpot, est_tpot)
        runs.append(RunParts(tpot, ttft, ops, comm, 2e-4, prefill, queue, est_tpot, est_ttft))
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


def test_one_run_fits_the_scale_alone_and_keeps_the_shipped_overhead():
    truth = UserFit(tpot_scale=2.0, step_overhead_s=2e-4, ttft_scale=1.0, wait_steps=10.0)
    report = fit_user_runs(_runs(truth, operators=(5e-3,)))
    assert report.fit.step_overhead_s == 2e-4
    assert report.fit.tpot_scale == pytest.approx(2.0, rel=1e-9)


def test_every_fitted_number_stays_within_its_limits():
    truth = UserFit(tpot_scale=500.0, step_overhead_s=1.0, ttft_scale=1e4, wait_steps=1e5)
    fit = fit_user_runs(_runs(truth)).fit
    for name, (low, high) in LIMITS.items():
        assert low <= getattr(fit, name) <= high, name


def test_no_runs_is_refused():
    with pytest.raises(ValueError):
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
