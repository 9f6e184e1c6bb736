"""The Serving page's link: every parameter read from its one table, written back the same,
bad values named and dropped; a fit travels as its runs (`runs=`), never as its results."""

import pytest

from app.dashboard.lib.params import shown, write_link
from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.serving.callbacks import outputs
from app.dashboard.pages.serving.params import PARAMS, ServingArgs
from app.dashboard.pages.serving.state import args_from_controls, link_of, parse_args
from engine.serving.scenario import MAX_CONCURRENCY
from tests.dashboard.pages.serving.test_serving_fit import runs_token


def view_of(query: str, lang: str = "en") -> View:
    pairs = tuple(tuple(p.split("=", 1)) for p in query.split("&") if p)
    hw = tuple(v for k, v in pairs if k == "hw")
    lab = tuple((k, v) for k, v in pairs if k not in ("hw", "tab"))
    return View(tab="serving", hardware=tuple(hw[0].split(",")) if hw else (), lab_args=lab, query=query, lang=lang)


DONE_WHEN = "model=meta-llama/Llama-3.1-70B&hw=h200-sxm&backend=trtllm&prec=fp8&tp=4&isl=1024&osl=1024"


def test_the_issue_link_reads_whole():
    a, notices = parse_args(view_of(DONE_WHEN))
    assert notices == []
    assert a.model == "meta-llama/Llama-3.1-70B" and a.hardware == ("h200-sxm",)
    assert (a.backend, a.precision, a.tensor_parallel, a.input_tokens, a.output_tokens) == (
        "trtllm",
        "fp8",
        4,
        1024,
        1024,
    )


def test_bad_values_are_named_and_the_default_kept():
    a, notices = parse_args(view_of("model=nope/nope&tp=0&conc=abc&backend=tgi&memutil=2&runs=AAAA&zzz=1"))
    text = " ".join(notices)
    for name in ("model=nope/nope", "tp=0", "conc=abc", "backend=tgi", "memutil=2", "runs=AAAA", "zzz=1"):
        assert name in text
    assert a == ServingArgs()


def test_zh_notices_are_in_chinese():
    _, notices = parse_args(view_of("runs=xyz", lang="zh"))
    assert "忽略" in notices[0] and "不是本页写出的实测数据" in notices[0]


def test_the_link_writes_what_it_read():
    q = "model=qwen3-235b-a22b&backend=vllm&prec=fp8&tp=4&adp=2&ep=8&isl=2048&osl=512&conc=32&memutil=0.85&price=2.5"
    a, notices = parse_args(view_of(q))
    assert notices == []
    assert dict(write_link(PARAMS, a)) == dict(p.split("=") for p in q.split("&"))


def test_expert_parallel_must_divide_the_instance_and_is_dropped_on_a_dense_model():
    a, notices = parse_args(view_of("model=qwen3-235b-a22b&tp=4&ep=3"))
    assert a.expert_parallel == 1 and any("ep=3" in n for n in notices)
    a, _ = parse_args(view_of("model=llama-3.1-70b&tp=4&ep=4"))
    assert a.expert_parallel == 1


def test_a_link_stating_a_fits_results_is_refused_by_name():
    """Issue 34 §4: `fit=`/`fiterr=` once made the page say "Fitted to your 10000 runs ...
    1000000.0% → 0.0%", numbers it never computed."""
    q = DONE_WHEN + "&fit=20,50,50,500&fiterr=10000,1000000,0,1000000,0&fithw=h200-sxm"
    a, notices = parse_args(view_of(q))
    assert a == parse_args(view_of(DONE_WHEN))[0] and a.runs is None
    assert len(notices) == 3 and all("carries the runs themselves" in n for n in notices)


def test_the_runs_travel_in_the_link_and_read_back_whole():
    token = runs_token()
    a, notices = parse_args(view_of(DONE_WHEN + "&runs=" + token))
    assert notices == [] and a.runs == token
    assert dict(write_link(PARAMS, a))["runs"] == token


@pytest.mark.parametrize("token", ["", "x" * 6001, "AAAA", "%00", "eJzLSM3JyQcABiwCFQ"])
def test_runs_the_page_did_not_write_are_named_and_dropped(token):
    a, notices = parse_args(view_of(DONE_WHEN + "&runs=" + token))
    assert a.runs is None and len(notices) == 1 and "runs=" in notices[0]


def test_controls_round_trip_through_the_table():
    a, _ = parse_args(view_of(DONE_WHEN + "&conc=96&price=3&runs=" + runs_token()))
    controls = shown(PARAMS, a) | {"srv-hw.value": list(a.hardware), "srv-fit.data": {"runs": a.runs}}
    back, problems, refused = args_from_controls(controls)
    assert problems == [] and refused == [] and back == a


def test_a_refused_box_keeps_the_default_and_says_so_in_its_own_words():
    a, _ = parse_args(view_of(DONE_WHEN))
    controls = shown(PARAMS, a) | {"srv-hw.value": ["h200-sxm"], "srv-conc.value": -3}
    back, problems, refused = args_from_controls(controls)
    default = ServingArgs().concurrency
    assert back.concurrency == default and problems == []
    assert refused == [
        f"Concurrency (requests in flight) must be 1–{MAX_CONCURRENCY:,} (you typed -3); still showing {default}."
    ]
    # the browser sends a number outside the box's min and max as null: nothing to quote
    _, problems, refused = args_from_controls(controls | {"srv-conc.value": 8, "srv-memutil.value": None}, "zh")
    assert problems == [] and len(refused) == 1 and "显存利用率" in refused[0] and "0.9" in refused[0]
    assert "you typed" not in refused[0]
    # the price box has no min or max: a browser would send -5 as no value, which unsets the price
    # without a word; sent, it is refused in the box's words and the page computes without a price
    priced = controls | {"srv-conc.value": 8, "srv-price.value": 2.5}
    assert args_from_controls(priced)[0].gpu_hour_price == 2.5
    back, _, refused = args_from_controls(priced | {"srv-price.value": -5})
    assert back.gpu_hour_price is None and len(refused) == 1 and "(you typed -5)" in refused[0]


def test_a_choice_no_control_offers_blocks_the_numbers():
    a, _ = parse_args(view_of(DONE_WHEN))
    _, problems, _ = args_from_controls(shown(PARAMS, a) | {"srv-hw.value": []})
    assert problems
    _, problems, refused = args_from_controls(shown(PARAMS, a) | {"srv-hw.value": ["h200-sxm"], "srv-prec.value": 7})
    assert refused == [] and len(problems) == 1 and "nothing is computed" in problems[0]


def test_a_refused_box_stands_above_numbers_computed_with_the_value_it_names():
    a, _ = parse_args(view_of(DONE_WHEN))
    controls = shown(PARAMS, a) | {"srv-hw.value": ["h200-sxm"], "srv-conc.value": 0}
    back, problems, refused = args_from_controls(controls)
    error, top, bottom, tables, words, caption, _ = outputs(back, problems, "en", "light", False, refused)
    assert [p.children for p in error] == refused and "(you typed 0)" in refused[0]
    # the sentence names its box, which the page then marks invalid (08-serving.js)
    assert [getattr(p, "data-box") for p in error] == ["srv-conc"]
    assert top["data"] and bottom["data"] and tables


def test_the_page_link_carries_its_own_parameters_and_the_tabs():
    a, _ = parse_args(view_of(DONE_WHEN))
    link = link_of(view_of(DONE_WHEN), a)
    assert "model=meta-llama%2FLlama-3.1-70B" in link["template"] and "hw=h200-sxm" in link["template"]
    assert link["notify"] is False and "roofline" in link["tabs"]


def test_the_other_tabs_get_the_preset_a_hugging_face_id_resolves_to():
    a, _ = parse_args(view_of(DONE_WHEN))
    link = link_of(view_of(DONE_WHEN), a)
    assert "model=llama-3.1-70b" in link["tabs"]["roofline"] and "model=llama-3.1-70b" in link["tabs"]["ops"]
    assert "model=meta-llama%2FLlama-3.1-70B" in link["template"]
