"""The roofline and panel callbacks of one slider move share a single engine run."""

import threading
import time

import pytest

from app.service import _SingleFlight, dashboard_data
from engine.analysis import Scenario
from engine.errors import EngineInputError


def test_concurrent_callers_share_one_computation():
    cache, calls = _SingleFlight(4), []

    def slow():
        calls.append(1)
        time.sleep(0.05)
        return {"value": 42}

    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.get("k", slow))) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(calls) == 1 and results[0] is results[1]


def test_errors_reach_every_caller_and_are_not_kept():
    cache, calls = _SingleFlight(4), []

    def failing():
        calls.append(1)
        raise EngineInputError("tensor_parallel", "no")

    for _ in range(2):
        with pytest.raises(EngineInputError):
            cache.get("k", failing)
    assert len(calls) == 2


def test_lru_bound():
    from engine.cache import approx_size

    cache = _SingleFlight(4 * approx_size("a"))  # bytes: two entries of a one-letter key and value
    for key in "abc":
        cache.get(key, lambda key=key: key)
    assert list(cache._entries) == ["b", "c"]


def test_dashboard_data_is_shared_for_the_same_view():
    scenario = Scenario(batch_size=17, context_length=1024)
    first = dashboard_data("llama-3-8b", ["h100-sxm5"], scenario)
    assert dashboard_data("llama-3-8b", ["h100-sxm5"], scenario) is first
    assert dashboard_data("llama-3-8b", ["h100-sxm5"], Scenario(batch_size=18, context_length=1024)) is not first
