"""Fit to my runs: a paste is read whole or refused with every bad row named by line and field;
five shipped H200 runs on a what-if card at 0.7x the bandwidth fit a calibration that lowers
the median error on them, and the fitted numbers travel in the link."""

import base64

import pytest

from app.dashboard.lib.params import shown, write_link
from app.dashboard.pages.serving.callbacks import fit_from_text
from app.dashboard.pages.serving.compute import compute, scenario_of
from app.dashboard.pages.serving.measured import matching_runs
from app.dashboard.pages.serving.params import PARAMS, ServingArgs
from app.dashboard.pages.serving.runs import RunsError, decode_upload, parse_runs
from app.dashboard.pages.serving.state import args_from_controls
from engine.hardware import get_accelerator
from engine.serving.mapping import TRAINING_CSV
from engine.what_if import derive_what_if

SLOW = derive_what_if(get_accelerator("h200-sxm"), 1, 0.7)
PAGE = ServingArgs(hardware=(), what_if=(SLOW,))
HEADER = "concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms"


def five_runs() -> str:
    runs = matching_runs(PAGE.model, "h200-sxm", scenario_of(PAGE), True)[:5]
    lines = [f"{r.row.scenario.concurrency},1024,1024,{r.row.ttft_s * 1e3:.3f},{r.row.tpot_s * 1e3:.4f}" for r in runs]
    return "\n".join([HEADER, *lines])


def controls_of(a: ServingArgs) -> dict:
    return shown(PARAMS, a) | {"srv-hw.value": list(a.hardware), "srv-fit.data": {}}


def test_short_form_rows_take_the_page_scenario():
    runs = parse_runs(five_runs(), scenario_of(PAGE))
    assert [r.scenario.concurrency for r in runs] == [4, 8, 16, 32, 64]
    assert all(r.scenario.tensor_parallel == 4 and r.scenario.weight_dtype == "fp8" for r in runs)
    assert runs[0].line == 2


def test_bad_rows_are_named_by_line_and_field_and_nothing_is_imported():
    text = five_runs() + "\n8,abc,1024,-3,9\n16,1024,1024,200,"
    with pytest.raises(RunsError) as caught:
        parse_runs(text, scenario_of(PAGE))
    assert caught.value.problems == [(7, "input_tokens", "int"), (7, "ttft_ms", "ms"), (8, "tpot_ms", "ms")]


@pytest.mark.parametrize("text,what", [("", "empty"), ("a,b\n1,2", "header"), (HEADER + "\n", "empty")])
def test_a_paste_without_runs_says_why(text, what):
    with pytest.raises(RunsError) as caught:
        parse_runs(text, scenario_of(PAGE))
    assert caught.value.problems[0][2] == what


def test_the_shipped_columns_are_read_as_the_shipped_runs_are():
    lines = TRAINING_CSV.read_text(encoding="utf-8").splitlines()
    runs = parse_runs("\n".join(lines[:4]), scenario_of(PAGE))
    assert len(runs) == 3 and runs[0].scenario.backend == "vllm"


def test_an_upload_that_is_not_text_is_refused():
    with pytest.raises(RunsError):
        decode_upload("data:text/csv;base64," + base64.b64encode(b"\xff\xfe\x00").decode())
    assert decode_upload("data:text/csv;base64," + base64.b64encode(b"a,b").decode()) == "a,b"


def test_five_runs_on_a_slow_what_if_fit_lower_error_and_travel_in_the_link():
    store, status = fit_from_text(five_runs(), "h200-sxm-0.7xbw", controls_of(PAGE), "en")
    assert store is not None and store["fithw"] == "h200-sxm-0.7xbw"
    before, after = (float(x) for x in store["fiterr"].split(",")[1:3])
    assert after < before
    assert "Fitted to your 5 runs" in str(status) and "Fitted: the operators' time at the calibrated roofs x" in str(
        status
    )
    # the link's numbers alone redraw the fitted curve: a copied link shows the same fit
    a, problems, _ = args_from_controls(controls_of(PAGE) | {"srv-fit.data": store})
    assert problems == [] and a.fit is not None
    (acc,) = compute(a)
    assert acc.fitted is not None and all("fitted" in p for p in acc.points)
    at_64 = next(p for p in acc.points if p["concurrency"] == 64)
    measured_64 = matching_runs(PAGE.model, "h200-sxm", scenario_of(PAGE), True)[4].row.tpot_s
    assert abs(at_64["fitted"]["tpot_s"] / measured_64 - 1) < abs(at_64["estimate"]["tpot_s"] / measured_64 - 1)
    assert dict(write_link(PARAMS, a))["fit"] == store["fit"]


def test_a_bad_paste_leaves_the_fit_as_it_was():
    store, status = fit_from_text(five_runs() + "\nx,1,1,1,1", None, controls_of(PAGE), "en")
    assert store is None and "line 7, concurrency" in str(status)
