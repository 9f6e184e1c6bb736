"""scripts/ttft_floor.py: how close an estimate on the recorded fields could come to the
disaggregated first token, in sample (each group's bias known) and with a correction learned
on other groups' runs."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))

import ttft_floor as tf  # noqa: E402

from engine.serving.mapping import DISAGG_CSV, read_rows  # noqa: E402


def test_a_groups_bias_divided_out_leaves_only_its_spread():
    # two groups, each off by its own factor with a ±10% spread about it
    log_ratio = np.log([2.0 * 1.1, 2.0 / 1.1, 2.0, 0.5 * 1.1, 0.5 / 1.1, 0.5])
    # misses 120%, 82%, 100%, 45%, 55%, 50%: the median is between 55% and 82%
    assert tf.median_abs_error(log_ratio) == pytest.approx(((1 - 0.5 / 1.1) + (2.0 / 1.1 - 1)) / 2)
    assert tf.group_floor(log_ratio, ["a", "a", "a", "b", "b", "b"]) == pytest.approx(0.1 / 1.1, rel=1e-9)
    assert tf.group_floor(log_ratio, ["all"] * 6) == tf.median_abs_error(log_ratio - np.median(log_ratio))


def test_the_learned_correction_never_reads_a_runs_own_group():
    # group "a"'s runs sit on top of each other; only group "b"'s far ones may answer them
    features = np.array([[0.0], [0.0], [10.0], [11.0]])
    log_ratio = np.array([1.0, 1.0, -1.0, -1.0])
    predicted = tf.nearest_correction(features, log_ratio, ["a", "a", "b", "b"], k=1)
    assert predicted.tolist() == [-1.0, -1.0, 1.0, 1.0]


def test_concurrency_bands_close_at_their_upper_edge():
    assert [tf.concurrency_band(c) for c in (1, 8, 9, 32, 2048, 2049)] == [0, 0, 1, 1, 4, 5]


def test_a_measurement_published_twice_counts_once():
    runs = tf.distinct_runs(DISAGG_CSV)
    keys = {(m.model, m.hardware, m.backend, m.scenario, m.disagg, m.ttft_s, m.tpot_s) for m, _ in runs}
    assert len(keys) == len(runs) < len(read_rows(DISAGG_CSV)) - 20  # 20 refused, and repeats dropped
    floors = tf.floors(runs)
    assert floors[0][:2] == ("shipped estimate", 1)
    # finer groups know more of each run's bias, in sample: the floor only falls
    errors = [e for _, _, e in floors]
    assert errors == sorted(errors, reverse=True) and errors[-1] < errors[0]
