"""Fit to my runs: a paste is read whole or refused with every bad row named by line and field;
the runs travel in the link (`runs=`) with the scenario they were fitted on, and the page fits
them again from the link; a run faster than the bound is named and left out, a fit needs three
runs, and a fit belongs to its scenario (applied, extrapolated across lengths, or not applied)."""

import base64
import random
from dataclasses import replace

import pytest

from app.dashboard.lib.packed import pack, unpack
from app.dashboard.lib.params import shown
from app.dashboard.pages.roofline.state import view_from_search
from app.dashboard.pages.serving.callbacks import fit_from_text, fit_my_runs, outputs
from app.dashboard.pages.serving.carried import MAX_TOKEN_CHARS, decode_runs
from app.dashboard.pages.serving.compute import compute
from app.dashboard.pages.serving.fit import carried_fit, scenario_link, standing
from app.dashboard.pages.serving.fit_view import fit_state
from app.dashboard.pages.serving.measured import matching_runs
from app.dashboard.pages.serving.params import PARAMS, ServingArgs
from app.dashboard.pages.serving.runs import RunsError, decode_upload, parse_runs
from app.dashboard.pages.serving.state import args_from_controls, parse_args, scenario_of
from engine.hardware import get_accelerator
from engine.serving.mapping import TRAINING_CSV
from engine.what_if import derive_what_if

SLOW = derive_what_if(get_accelerator("h200-sxm"), 1, 0.7)
PAGE = ServingArgs(hardware=(), what_if=(SLOW,))
H200 = ServingArgs()  # Llama-3.1-70B FP8, TP 4, TensorRT-LLM, 1,024/1,024 on one H200
HEADER = "concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms"


def five_runs() -> str:
    runs = matching_runs(PAGE.model, "h200-sxm", scenario_of(PAGE), True)[:5]
    lines = [f"{r.row.scenario.concurrency},1024,1024,{r.row.ttft_s * 1e3:.3f},{r.row.tpot_s * 1e3:.4f}" for r in runs]
    return "\n".join([HEADER, *lines])


def controls_of(a: ServingArgs) -> dict:
    return shown(PARAMS, a) | {"srv-hw.value": list(a.hardware), "srv-fit.data": {"runs": a.runs} if a.runs else {}}


def runs_token(a: ServingArgs = H200, text: str | None = None, target: str = "h200-sxm") -> str:
    store, status = fit_from_text(text or five_runs(), target, controls_of(a), "en")
    assert store is not None, status
    return store["runs"]


def text_of(children) -> str:
    return str(children)


def test_short_form_rows_take_the_page_scenario():
    runs = parse_runs(five_runs(), scenario_of(PAGE), PAGE.model, None)
    assert [r.scenario.concurrency for r in runs] == [4, 8, 16, 32, 64]
    assert all(r.scenario.tensor_parallel == 4 and r.scenario.weight_dtype == "fp8" for r in runs)
    assert runs[0].line == 2


def test_bad_rows_are_named_by_line_and_field_and_nothing_is_imported():
    text = five_runs() + "\n8,abc,1024,-3,9\n16,1024,1024,200,"
    with pytest.raises(RunsError) as caught:
        parse_runs(text, scenario_of(PAGE), PAGE.model, None)
    assert caught.value.problems == [(7, "input_tokens", "int"), (7, "ttft_ms", "ms"), (8, "tpot_ms", "ms")]


@pytest.mark.parametrize("text,what", [("", "empty"), ("a,b\n1,2", "header"), (HEADER + "\n", "empty")])
def test_a_paste_without_runs_says_why(text, what):
    with pytest.raises(RunsError) as caught:
        parse_runs(text, scenario_of(PAGE), PAGE.model, None)
    assert caught.value.problems[0][2] == what


def test_the_shipped_columns_are_read_as_the_shipped_runs_are_and_must_be_of_the_deployment():
    lines = TRAINING_CSV.read_text(encoding="utf-8").splitlines()
    runs = parse_runs("\n".join(lines[:4]), scenario_of(PAGE), "kimi-k2.5", None)
    assert len(runs) == 3 and runs[0].scenario.backend == "vllm"
    with pytest.raises(RunsError) as caught:  # Kimi-K2.5 rows for a Llama-3.1-70B fit
        parse_runs("\n".join(lines[:3]), scenario_of(PAGE), PAGE.model, None)
    assert caught.value.problems == [(2, "model_path", "other_model"), (3, "model_path", "other_model")]
    with pytest.raises(RunsError) as caught:  # B200 rows said to be measured on an H200
        parse_runs("\n".join(lines[:2]), scenario_of(PAGE), "kimi-k2.5", "h200-sxm")
    assert caught.value.problems == [(2, "system", "other_system")]


SHIPPED_HEADER = (
    "model_path,system,backend,gemm_quant_mode,isl,osl,batch_size,tp_size,moe_ep_size,silicon_ttft_ms,silicon_tpot_ms"
)


@pytest.mark.parametrize(
    "row,field",
    [
        ("meta-llama/Llama-3.1-70B,h200_sxm,trtllm,fp8,1024,1024,64,inf,1,500,13", "tp_size"),
        ("meta-llama/Llama-3.1-70B,h200_sxm,trtllm,fp8,1024,1024,64,4,1e400,500,13", "moe_ep_size"),
        ("meta-llama/Llama-3.1-70B,h200_sxm,trtllm,fp8,1024,1024,64,nan,1,500,13", "tp_size"),
        ("meta-llama/Llama-3.1-70B,h200_sxm,trtllm,fp8,1024,1024,64,2.5,1,500,13", "tp_size"),
    ],
)
def test_an_infinite_or_broken_layout_is_named_not_raised(row, field):
    """Issue 34 §3: `tp_size=inf` and `moe_ep_size=1e400` were an OverflowError (a 500)."""
    with pytest.raises(RunsError) as caught:
        parse_runs(f"{SHIPPED_HEADER}\n{row}", scenario_of(H200), H200.model, "h200-sxm")
    assert caught.value.problems == [(2, field, "degree")]


def test_a_shipped_row_without_a_column_the_mapping_needs_is_named():
    header = SHIPPED_HEADER.replace("model_path,", "")
    row = "h200_sxm,trtllm,fp8,1024,1024,64,4,1,500,13"
    with pytest.raises(RunsError) as caught:
        parse_runs(f"{header}\n{row}", scenario_of(H200), H200.model, "h200-sxm")
    ((line, field, why),) = caught.value.problems
    assert (line, field) == (2, "model_path")
    assert why.code == "map_column"  # the mapping's own error, said from its code


def test_a_field_longer_than_the_csv_reader_takes_is_named():
    """Issue 34 §3: one field over 131,072 characters (under the 200,000 limit) was a csv.Error."""
    with pytest.raises(RunsError) as caught:
        parse_runs(HEADER + "\n4,1024,1024,230," + "9" * 140_000, scenario_of(H200), H200.model, None)
    assert caught.value.problems == [(2, None, "csv")]
    store, status = fit_from_text(HEADER + '\n"' + "x" * 140_000, "h200-sxm", controls_of(H200), "en")
    assert store is None and "131,072" in text_of(status)


def test_the_target_sent_as_a_list_or_an_object_is_the_first_accelerator():
    """Issue 34 §3: `srv-fit-target` as a list or an object was a TypeError (unhashable)."""
    for target in (["h200-sxm"], {"a": 1}, 7, None):
        store, _ = fit_from_text(five_runs(), target, controls_of(H200), "en")
        assert store is not None and dict(decode_runs(store["runs"]).on)["hw"] == "h200-sxm"


def test_an_upload_that_is_not_text_is_refused():
    with pytest.raises(RunsError):
        decode_upload("data:text/csv;base64," + base64.b64encode(b"\xff\xfe\x00").decode())
    assert decode_upload("data:text/csv;base64," + base64.b64encode(b"a,b").decode()) == "a,b"


def test_five_runs_on_a_slow_what_if_fit_lower_errors_and_the_link_fits_them_again():
    page = replace(PAGE, runs=None)
    store, status = fit_from_text(five_runs(), "h200-sxm-0.7xbw", controls_of(page), "en")
    assert store is not None and status == []
    carried = decode_runs(store["runs"])
    assert dict(carried.on)["xhw"] == SLOW and len(carried.runs) == 5
    report = carried_fit(store["runs"]).report
    assert report.runs == 5 and report.tpot_error_after < report.tpot_error_before
    assert report.ttft_error_after <= report.ttft_error_before
    # the link's runs alone redraw the fitted curve: a copied link shows the same fit
    a, problems, _ = args_from_controls(controls_of(page) | {"srv-fit.data": store})
    assert problems == [] and a.runs == store["runs"]
    (acc,) = compute(a)
    assert acc.fit_kind == "here" and acc.fitted is not None and all("fitted" in p for p in acc.points)
    at_64 = next(p for p in acc.points if p["concurrency"] == 64)
    measured_64 = matching_runs(PAGE.model, "h200-sxm", scenario_of(PAGE), True)[4].row.tpot_s
    assert abs(at_64["fitted"]["tpot_s"] / measured_64 - 1) < abs(at_64["estimate"]["tpot_s"] / measured_64 - 1)
    # the user's runs are on the page, each at its own concurrency
    assert [r.run.scenario.concurrency for r in acc.yours] == [4, 8, 16, 32, 64]


def test_a_fit_never_crosses_the_bound():
    a = replace(H200, runs=runs_token())
    for acc in compute(a):
        for p in acc.points:
            assert p["fitted"]["tpot_s"] >= p["bound"]["tpot_s"] and p["fitted"]["ttft_s"] >= p["bound"]["ttft_s"]


def test_three_runs_faster_than_the_bound_are_named_and_refuse_the_fit():
    """Issue 29 §1: three runs at TPOT 0.1 ms were fitted, and the fit crossed the bound."""
    text = HEADER + "\n4,1024,1024,230,0.1\n8,1024,1024,257,0.1\n16,1024,1024,282,0.1"
    store, status = fit_from_text(text, "h200-sxm", controls_of(H200), "en")
    said = text_of(status)
    assert store is None and "A fit needs at least 3 runs" in said and "0 runs left to fit" in said
    assert "line 2 (concurrency 4), tpot_ms: 0.1 ms is" in said and "faster than the bound's" in said


def test_a_run_faster_than_the_bound_is_left_out_and_named_on_the_page():
    token = runs_token(text=five_runs() + "\n128,1024,1024,700,0.5")
    fit = carried_fit(token)
    assert fit.report.runs == 5 and [(b.index, b.field) for b in fit.report.excluded] == [(5, "tpot")]
    said = text_of(fit_state(replace(H200, runs=token), "en", "light"))
    assert "Fitted to your 5 runs" in said and "line 7 (concurrency 128), tpot_ms: 0.5 ms is" in said
    (acc,) = compute(replace(H200, runs=token))
    assert [r.faster_than_bound for r in acc.yours][-1] == ("tpot",)


@pytest.mark.parametrize("count,said", [(1, "1 run left to fit"), (2, "2 runs left to fit")])
def test_fewer_runs_than_a_fit_needs_say_so_in_the_singular_and_plural(count, said):
    text = "\n".join(five_runs().splitlines()[: count + 1])
    store, status = fit_from_text(text, "h200-sxm", controls_of(H200), "en")
    assert store is None and said in text_of(status) and "at least 3 runs" in text_of(status)
    _, status = fit_from_text(text, "h200-sxm", controls_of(H200), "zh")
    assert f"{count} 次实测" in text_of(status)


def test_a_fit_belongs_to_its_scenario():
    """Issue 29 §1: a fit at TP 4 / TensorRT-LLM / 1,024 tokens stayed on at TP 8, vLLM, 8,192
    tokens and on DeepSeek-R1, with "Fitted to your 7 runs" and no qualification."""
    token = runs_token()
    here = replace(H200, runs=token)
    assert standing(here, carried_fit(token)).kind == "here"
    longer = replace(here, input_tokens=8192)
    where = standing(longer, carried_fit(token))
    assert (where.kind, where.differ) == ("extrapolated", ("isl",))
    (acc,) = compute(longer)
    assert acc.fit_kind == "extrapolated" and acc.fitted is not None and acc.yours == ()
    assert "extrapolated here" in text_of(fit_state(longer, "en", "light"))
    for other, differ in (
        (replace(here, tensor_parallel=8, backend="vllm"), ("backend", "tp")),
        (replace(here, model="deepseek-ai/DeepSeek-R1", tensor_parallel=8), ("model", "tp")),
        (replace(here, hardware=("b200",)), ("hw",)),
    ):
        assert standing(other, carried_fit(token)).differ == differ
        assert all(acc.fitted is None and acc.yours == () for acc in compute(other))
        said = text_of(fit_state(other, "en", "light"))
        assert "belongs to another scenario" in said and "not applied" in said
        assert "Open the scenario this fit belongs to" in said and "runs=" + token in said


def test_the_scenario_link_of_a_fit_opens_that_scenario_with_the_fit():
    token = runs_token()
    link = scenario_link(carried_fit(token), token, "en", "light")
    a, notices = parse_args(view_from_search(link))
    assert notices == [] and standing(a, carried_fit(token)).kind == "here"


def test_the_page_never_writes_a_link_its_reader_refuses():
    """Issue 34 §4: the page wrote `fiterr` above 1e6% (TPOT 0.001 ms), then refused it on reload."""
    rows = [f"{c},1024,1024,{500 + c},{9 + c / 10}" for c in range(1, 501)]
    token = runs_token(text="\n".join([HEADER, *rows]))
    assert len(token) <= MAX_TOKEN_CHARS and decode_runs(token).runs[499].scenario.concurrency == 500
    rng = random.Random(29)  # noqa: S311 -- runs that do not compress, the same every time
    wild = [f"{rng.randint(1, 60000)},{rng.randint(1, 99999)},1024,{rng.uniform(1e3, 9e3)},50" for _ in range(500)]
    store, status = fit_from_text("\n".join([HEADER, *wild]), "h200-sxm", controls_of(H200), "en")
    assert store is None and f"over the {MAX_TOKEN_CHARS:,} a link can carry" in text_of(status)


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d | {"on": d["on"][:-1]},  # no accelerator
        lambda d: d | {"on": [*d["on"][:-1], ["hw", "h999"]]},
        lambda d: d | {"cols": [*d["cols"], "memory_utilization"]},
        lambda d: d | {"rows": [[*r[:-1], float("inf")] for r in d["rows"]]},
        lambda d: d | {"rows": [[*r[:-1], -1] for r in d["rows"]]},
        lambda d: d | {"rows": [["x", *r[1:]] for r in d["rows"]]},
        lambda d: d | {"rows": [[True, *r[1:]] for r in d["rows"]]},
        lambda d: d | {"rows": []},
        lambda d: d | {"rows": d["rows"] * 101},
        lambda d: d | {"extra": 1},
    ],
)
def test_a_token_the_page_did_not_write_is_refused_by_its_reader(change):
    from app.dashboard.lib.params import Invalid

    data = unpack(runs_token(), 10**6)
    with pytest.raises(Invalid):
        decode_runs(pack(change(data)))


def test_a_link_whose_runs_cannot_be_fitted_says_so_and_shows_no_fit():
    data = unpack(runs_token(), 10**6)
    data["rows"] = [[*r[:-1], 0.05] for r in data["rows"]]  # every TPOT 0.05 ms: faster than the bound
    token = pack(data)
    a = replace(H200, runs=token)
    assert all(acc.fitted is None for acc in compute(a))
    said = text_of(fit_state(a, "en", "light"))
    assert "A fit needs at least 3 runs" in said and "0 runs left to fit" in said


def test_the_page_draws_and_lists_the_users_runs():
    a = replace(H200, runs=runs_token())
    top = outputs(a, [], "en", "light", False)[1]
    yours = next(t for t in top["data"] if t["uid"] == "serving--h200-sxm--yours")
    assert yours["customdata"] == [4, 8, 16, 32, 64] and "yours" in yours["name"]
    bottom = outputs(a, [], "en", "light", False)[2]
    assert {"latency--h200-sxm--tpot-yours", "latency--h200-sxm--ttft-yours"} <= {t["uid"] for t in bottom["data"]}
    tables = text_of(outputs(a, [], "en", "light", False)[3])
    assert "yours (concurrency 64)" in tables and "estimate fitted to your runs" in tables


def test_clear_empties_the_store():
    cleared = fit_my_runs(0, 1, None, "", None, controls_of(H200), {}, trigger="srv-fit-clear")
    assert cleared == {"fit": {}, "status": []}
