"""The training lab without a browser: the link's parameters (hostile ones too), and the numbers
on the page against the engine's and POST /api/v1/training's for a 7B model's run."""

import re
from urllib.parse import urlencode

import pytest
from starlette.testclient import TestClient

from app.dashboard.lib.i18n import STRINGS
from app.dashboard.lib.params import shown
from app.dashboard.pages.links import linked_hardware
from app.dashboard.pages.roofline.state import view_from_search
from app.dashboard.pages.training import callbacks as training_callbacks
from app.dashboard.pages.training import layout as training_layout
from app.dashboard.pages.training import params as training_params
from app.dashboard.pages.training import state as training_state
from app.dashboard.pages.training.figures import pct
from app.main import create_app
from app.units import duration, si
from app.units import memory as memory_words
from tests.api.test_training_api import SEED as REQUEST  # a 7B model on 8 x H100 SXM5 (PaLM appendix B counting)

LINK = {
    "tab": "training",
    "hw": "h100-sxm5",
    "model": "teaching",
    "n": "7",
    "layers": "32",
    "heads": "32",
    "hdim": "128",
    "gpus": "8",
    "seq": "4096",
    "tokens": "262144",
    "step_s": "3.64",
    "opt": "adamw",
    "zero": "0",
    "recompute": "none",
}


@pytest.fixture(scope="module")
def api():
    return TestClient(create_app(with_dashboard=False))


def api_result(api, **changes) -> dict:
    response = api.post("/api/v1/training", json=REQUEST | changes)
    assert response.status_code == 200, response.text
    return response.json()


def render(**changes):
    return training_layout.page(view_from_search(urlencode(LINK | changes)))


def find(component, cid):
    """The component with this id in a Dash tree."""
    if getattr(component, "id", None) == cid:
        return component
    children = getattr(component, "children", None)
    for child in children if isinstance(children, (list, tuple)) else [children]:
        if child is not None and not isinstance(child, (str, int, float)):
            hit = find(child, cid)
            if hit is not None:
                return hit
    return None


def text(component) -> str:
    if component is None:
        return ""
    if isinstance(component, (str, int, float)):
        return str(component)
    children = getattr(component, "children", None)
    parts = children if isinstance(children, (list, tuple)) else [children]
    return " ".join(text(c) for c in parts if c is not None)


# ---- the link ----------------------------------------------------------------------------------
def test_no_parameters_is_a_7b_model_with_full_recomputation():
    args, notices = training_state.parse_args((), ("h100-sxm5",))
    assert args == training_params.TrainArgs() and notices == []
    assert (args.params_b, args.gpus, args.seq, args.tokens, args.measured, args.recompute) == (
        7.0,
        8,
        4096,
        262144,
        3.64,
        "full",
    )


def test_the_link_gives_the_api_request():
    view = view_from_search(urlencode(LINK))
    args, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert notices == []
    assert training_state.model_spec(args) == REQUEST["model"]
    fields = training_state.setup_fields(args)
    for key in ("gpus", "sequence_length", "tokens_per_step", "step_time_s", "optimizer", "zero_stage", "recompute"):
        assert fields[key] == REQUEST[key], key
    assert fields["tokens_per_s"] is None and fields["micro_batch_size"] is None
    assert fields["bus_bandwidth_bytes_per_s"] is None


def test_the_first_accelerator_of_hw_and_every_knob():
    view = view_from_search(
        "tab=training&hw=b200,h100-sxm5&model=llama-3-8b&tok_s=72000&opt=sgd_momentum&zero=3&recompute=selective"
        "&dtype=fp16&busbw=50&mb=2"
    )
    args, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert notices == []
    assert (args.hardware, args.model, args.measure, args.measured) == ("b200", "llama-3-8b", "rate", 72000.0)
    assert (args.optimizer, args.zero, args.recompute, args.dtype) == ("sgd_momentum", 3, "selective", "fp16")
    assert training_state.setup_fields(args)["bus_bandwidth_bytes_per_s"] == 50e9
    assert training_state.setup_fields(args)["micro_batch_size"] == 2
    assert training_state.model_spec(args) == "llama-3-8b"


@pytest.mark.parametrize(
    "name, value",
    [
        ("gpus", "-1"),
        ("gpus", "0"),
        ("gpus", "1e3"),
        ("gpus", " 8"),
        ("gpus", "9" * 40),
        ("seq", "4096.5"),
        ("tokens", ""),
        ("step_s", "nan"),
        ("step_s", "inf"),
        ("step_s", "-3.64"),
        ("step_s", "1e400"),
        ("step_s", "0"),
        ("tok_s", "0x10"),
        ("zero", "4"),
        ("zero", "True"),
        ("opt", "lion"),
        ("recompute", "partial"),
        ("dtype", "fp8"),
        ("model", "../../etc/passwd"),
        ("model", "<script>alert(1)</script>"),
        ("n", "0"),
        ("layers", "１２"),  # full-width digits: str.isdigit says yes, the parser must not
        ("busbw", "-1"),
        ("mb", "0"),
        ("surprise", "1"),
        ("x" * 500, "y" * 5000),
    ],
)
def test_a_hostile_value_is_ignored_with_a_notice(name, value):
    view = view_from_search(urlencode({"tab": "training", name: value}))
    args, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert args == training_params.TrainArgs()
    assert len(notices) == 1 and "Ignored URL parameter" in notices[0], notices
    assert len(notices[0]) < 300
    page = training_layout.page(view)  # renders with the notice, never raises
    assert notices[0] in text(find(page, "notices"))


def test_many_bad_parameters_give_a_bounded_list():
    view = view_from_search("tab=training&" + "&".join(f"p{i}=1" for i in range(300)))
    _, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert len(notices) == training_state.MAX_NOTICES + 1
    assert "292 more" in notices[-1]


def test_step_and_tokens_per_second_both_keeps_the_step():
    view = view_from_search("tab=training&step_s=2&tok_s=1000")
    args, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert (args.measure, args.measured) == ("step", 2.0)
    assert len(notices) == 1 and "tok_s" in notices[0]


def test_notices_in_chinese():
    view = view_from_search("tab=training&lang=zh&zero=9")
    _, notices = training_state.parse_args(view.lab_args, linked_hardware(view), "zh")
    assert notices == ["已忽略 URL 参数 zero=9：应为以下之一：0, 1, 2, 3"]


def test_a_large_step_in_tokens_is_read_whole():
    # 2**40 tokens is 13 digits: the table's integer reads as many digits as its limit has
    tokens = 8 * 4096 * (1 << 25)
    view = view_from_search(f"tab=training&tokens={tokens}")
    args, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert notices == [] and args.tokens == tokens


# ---- the table -----------------------------------------------------------------------------------------
def test_the_table_limits_are_the_engines():
    from engine import training as engine

    by_name = training_params.BY_NAME
    assert (by_name["gpus"].kind.high, by_name["seq"].kind.high) == (engine.MAX_GPUS, engine.MAX_SEQUENCE)
    assert by_name["tokens"].kind.high == engine.MAX_TOKENS_PER_STEP
    assert (by_name["layers"].kind.high, by_name["heads"].kind.high) == (engine.MAX_LAYERS, engine.MAX_HEADS)
    assert by_name["hdim"].kind.high == engine.MAX_HEAD_DIM and by_name["n"].kind.high * 1e9 == engine.MAX_PARAMS
    assert (by_name["step_s"].kind.low, by_name["step_s"].kind.high) == (engine.MIN_STEP_TIME_S, engine.MAX_STEP_TIME_S)
    assert (by_name["tok_s"].kind.low, by_name["tok_s"].kind.high) == (
        engine.MIN_TOKENS_PER_S,
        engine.MAX_TOKENS_PER_S,
    )
    assert by_name["busbw"].kind.high * 1e9 == engine.MAX_BUS_BANDWIDTH_BYTES_PER_S
    assert by_name["mb"].kind.high == engine.MAX_SEQUENCES_PER_GPU


def test_the_shared_rows_are_the_roofline_rows():
    from app.dashboard.pages.roofline.params import BY_NAME as ROOFLINE

    for name in ("hw", "model"):
        mine, theirs = training_params.BY_NAME[name], ROOFLINE[name]
        assert (mine.name, mine.field) == (theirs.name, theirs.field)
    assert "hw" not in training_params.OWN  # the page's chrome writes it


@pytest.mark.parametrize(
    "query",
    [
        urlencode(LINK),
        "tab=training&hw=b200&model=llama-3-8b&tok_s=72000&opt=sgd_momentum&zero=3&recompute=selective"
        "&dtype=fp16&busbw=50&mb=2",
        "tab=training&n=0.5&layers=4&heads=8&hdim=64&gpus=1&seq=128&tokens=1024&step_s=0.25",
    ],
)
def test_link_controls_link_round_trip(query):
    """The link -> the controls' first values -> read back -> the same link."""
    view = view_from_search(query)
    args, notices = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert notices == []
    first = shown(training_params.PARAMS, args)
    back, problems, refused = training_state.args_from_controls(first)
    assert (back, problems, refused) == (args, [], [])
    pairs = training_state.link_pairs(back)
    given = [(k, v) for k, v in view.lab_args if k in training_params.OWN]
    assert [p for p in pairs if p[0] in dict(given)] == given, pairs  # what the link said, as it said it
    assert training_state.parse_args(tuple(pairs), linked_hardware(view)) == (args, [])


# ---- the controls go through the same table ---------------------------------------------------------------
def controls(**changes):
    values = {
        "train-hw": "h100-sxm5",
        "train-model": "teaching",
        "train-n": 7,
        "train-layers": 32,
        "train-heads": 32,
        "train-hdim": 128,
        "train-gpus": 8,
        "train-seq": 4096,
        "train-tokens": 262144,
        "train-measure": "step",
        "train-measured": 3.64,
        "train-opt": "adamw",
        "train-zero": 0,
        "train-recompute": "none",
        "train-dtype": "bf16",
        "train-busbw": None,
        "train-mb": None,
        "train-gpn": 8,
    } | changes
    return {f"{cid}.value": value for cid, value in values.items()}


def test_the_callback_reads_every_control_of_the_table():
    keys = set(controls())
    assert {f"{c}.{p}" for row in training_params.PARAMS for c, p in row.controls} == keys


def test_controls_and_link_agree():
    view = view_from_search(urlencode(LINK))
    from_link, _ = training_state.parse_args(view.lab_args, linked_hardware(view))
    from_controls, problems, refused = training_state.args_from_controls(controls())
    assert problems == [] and refused == [] and from_controls == from_link
    figure = training_callbacks.outputs(from_controls, [], "en", "light", False)[3]
    assert figure == training_callbacks.outputs(from_link, [], "en", "light", False)[3]


@pytest.mark.parametrize(
    "changes",
    [
        {"train-zero": "4"},
        {"train-zero": True},
        {"train-hw": "h999"},
        {"train-hw": ["h100-sxm5"]},
        {"train-model": 7},
        {"train-opt": None},
        {"train-measure": "rate", "train-measured": float("nan")},
        {"train-measure": "rate", "train-measured": None},
        {"train-measure": "minutes"},
        {"train-measure": ["step"]},
        {"train-measure": {"step": 1}},
    ],
)
def test_a_hostile_choice_is_an_error_message(changes):
    args, problems, _ = training_state.args_from_controls(controls(**changes))
    assert problems
    hidden, error, util, figure, mem_text, comm = training_callbacks.outputs(args, problems, "en", "light", False)
    assert error and util == [] and comm == [] and figure["data"] == []
    assert all("None" not in p and "URL" not in p for p in problems), problems


@pytest.mark.parametrize(
    "changes, name, still",
    [
        ({"train-gpus": None}, "gpus", "8"),
        ({"train-gpus": -1}, "gpus", "8"),
        ({"train-gpus": 2.5}, "gpus", "8"),
        ({"train-gpus": True}, "gpus", "8"),
        ({"train-gpus": {"a": 1}}, "gpus", "8"),
        ({"train-layers": 0}, "layers", "32"),
        ({"train-tokens": "12x"}, "tokens", "262,144"),
        ({"train-measured": float("nan")}, "step_s", "3.64"),
        ({"train-measured": float("inf")}, "step_s", "3.64"),
        ({"train-measured": 0}, "step_s", "3.64"),
        ({"train-mb": 0}, "mb", "none (unset)"),
        ({"train-busbw": -1}, "busbw", "none (unset)"),
    ],
)
def test_a_refused_box_is_told_in_its_own_words_and_the_default_shown(changes, name, still):
    args, problems, refused = training_state.args_from_controls(controls(**changes))
    assert problems == [] and len(refused) == 1, (problems, refused)
    label = STRINGS[f"lab_train_{name}"]["en"]
    assert refused[0].startswith(f"{label} must be "), refused
    assert re.search(f"still show(ing|s) {re.escape(still)}\\.$", refused[0]), refused
    typed = changes[f"train-{'measured' if name == 'step_s' else name}"]
    assert ("(you typed" in refused[0]) == (typed is not None), refused  # the browser sends nothing it cannot use
    assert "None" not in refused[0] and "URL" not in refused[0] and f"{name}=" not in refused[0]
    hidden, error, util, figure, mem_text, comm = training_callbacks.outputs(args, [], "en", "light", False, refused)
    assert text(error[0]) == refused[0] and util and figure["data"]  # the panels show the default's numbers


def test_a_typed_zero_in_chinese():
    _, _, refused = training_state.args_from_controls(controls(**{"train-layers": 0}), lang="zh")
    assert refused == ["L，层数 须为 1–100,000（你输入了 0）；仍显示 32。"]
    _, _, refused = training_state.args_from_controls(controls(**{"train-layers": 0}))
    assert refused == ["L, layers must be 1–100,000 (you typed 0); still showing 32."]


def test_an_empty_optional_box_is_unset_without_a_word():
    args, problems, refused = training_state.args_from_controls(controls(**{"train-mb": "", "train-busbw": None}))
    assert (args.micro_batch, args.busbw_gbs, problems, refused) == (None, None, [], [])


def test_the_callback_returns_the_panels_and_the_link():
    flags = {"lang": "en", "theme": "light", "hw": ["h100-sxm5", "b200"], "carry": [["batch", "128"]]}
    out = training_callbacks.update_training(controls=controls(**{"train-zero": 1}), flags=flags)
    assert out["error"] == [] and out["util"]
    template = out["link"]["template"]
    assert "zero=1" in template and "hw=h100-sxm5,b200" in template and "batch=128" in template
    assert out["link"]["notify"] is False  # the address bar follows; the page is not drawn again


def test_a_preset_hides_the_teaching_form_and_ignores_its_boxes():
    changes = {"train-model": "llama-3-8b", "train-n": None, "train-layers": 0}
    args, problems, refused = training_state.args_from_controls(controls(**changes))
    assert problems == [] and refused == [] and args.model == "llama-3-8b"
    assert training_callbacks.outputs(args, [], "en", "light", False)[0] is True


# ---- the numbers on the page are the API's -----------------------------------------------------------
def test_utilisation_table_shows_the_api_numbers(api):
    body = api_result(api)
    table = text(find(render(), "train-util-table"))
    assert "38.2%" in table and "44.1%" in table and "19.1%" in table
    for key in ("mfu", "mfu_with_attention", "hfu", "mfu_sparse_peak"):
        row = text(find(render(), f"train-util-{key.replace('_', '-')}"))
        assert pct(body[key]) in row, (key, row)
    assert "misleading" in text(find(render(), "train-util-mfu-sparse-peak"))
    # nothing recomputed: HFU = MFU, and the spread runs from the sparse figure to MFU with attention
    assert text(find(render(), "train-spread")).startswith("One run, 4 numbers from 19.1% to 44.1%")


def test_full_recomputation_spreads_from_19_to_51_percent(api):
    body = api_result(api, recompute="full")
    assert pct(body["hfu"]) == "51.0%"
    page = render(recompute="full")
    assert "51.0%" in text(find(page, "train-util-hfu"))
    assert "8N" in text(find(page, "train-util-hfu"))
    assert text(find(page, "train-spread")).startswith("One run, 4 numbers from 19.1% to 51.0%")


def test_memory_bars_are_the_api_bill_per_gpu(api):
    body = api_result(api)
    figure = find(render(), "train-memory-graph").figure
    bars = {trace["uid"]: trace["x"] for trace in figure["data"]}
    memory, gib = body["memory"], 2**30  # the bars read GiB, as nvidia-smi and an "80GB" card
    assert bars["train-memory-weights"][0] == memory["weights_bytes"] / gib and memory["weights_bytes"] == 14e9
    assert bars["train-memory-gradients"][0] == memory["gradients_bytes"] / gib and memory["gradients_bytes"] == 14e9
    assert bars["train-memory-optimizer"][0] == memory["optimizer_bytes"] / gib and memory["optimizer_bytes"] == 84e9
    assert bars["train-memory-activations"][0] == memory["activation_bytes"] / gib
    (capacity,) = figure["layout"]["shapes"]
    assert capacity["x0"] == capacity["x1"] == memory["capacity_bytes"] / gib == 80
    # it does not fit: a second bar for the engine's smallest change, whose parts add up to its bill
    fix = body["smallest_fix"]
    assert sum(x[1] for x in bars.values()) == pytest.approx(fix["total_bytes"] / gib, rel=1e-12)
    words = text(find(render(), "train-memory-text"))
    # 112e9 B of model states = 104 GiB
    assert "Does not fit: the model states alone (104 GiB per GPU, the optimizer state the largest part)" in words
    assert "ZeRO-1, selective recomputation, micro-batch 2 (4 accumulation steps)" in words
    assert memory_words(fix["total_bytes"]) in words


def test_a_run_that_fits_has_one_bar_and_says_so(api):
    body = api_result(api, zero_stage=1, recompute="selective", micro_batch_size=2)
    page = render(zero="1", recompute="selective", mb="2")
    figure = find(page, "train-memory-graph").figure
    assert all(len(trace["x"]) == 1 for trace in figure["data"])
    # the page once called this 80.4 GB "fits" on an 80GB card: it is 74.9 GiB of the card's 80 GiB
    verdict = text(find(page, "train-verdict"))
    assert verdict.startswith(f"Fits: {memory_words(body['memory']['total_bytes'])} per GPU of 80 GiB")
    assert verdict.startswith("Fits: 74.9 GiB per GPU")


def test_allreduce_is_the_api_time_and_share(api):
    body = api_result(api)
    comm = text(find(render(), "train-comm-table"))
    assert duration(body["allreduce_time_s"]) == "54.4 ms" and "54.4 ms" in comm
    assert pct(body["allreduce_share_of_step"]) in comm
    assert si(body["gradient_bytes"], "B") == "14 GB" and "14 GB" in comm
    assert "450 GB/s" in comm


def test_one_gpu_has_no_allreduce_and_seventy_b_overflows():
    page = render(model="llama-2-70b", gpus="1", tokens="4096")
    assert text(find(page, "train-comm")) == "One GPU: no gradient all-reduce."
    assert text(find(page, "train-verdict")).startswith("Does not fit")
    assert "No ZeRO stage, recomputation or micro-batch fits" in text(find(page, "train-fix"))


def test_a_larger_node_joins_more_gpus_by_its_link():
    # the parameter added by its table row alone: 16 GPUs on one 16-GPU scale-up domain need no busbw
    assert "bus_bandwidth_bytes_per_s" in text(find(render(gpus="16", tokens=str(16 * 4096)), "train-error"))
    page = render(gpus="16", tokens=str(16 * 4096), gpn="16")
    assert text(find(page, "train-error")) == "" and "450 GB/s" in text(find(page, "train-comm-table"))
    view = view_from_search(urlencode(LINK | {"gpn": "16"}))
    args, _ = training_state.parse_args(view.lab_args, linked_hardware(view))
    assert training_state.setup_fields(args)["gpus_per_node"] == 16
    assert ("gpn", "16") in training_state.link_pairs(args)
    assert "gpn" not in dict(training_state.link_pairs(training_params.TrainArgs()))  # the default stays out


def test_engine_refusals_are_shown_not_raised():
    page = render(tokens="1000")
    assert "tokens_per_step" in text(find(page, "train-error"))
    page = render(gpus="16", tokens=str(16 * 4096))  # beyond one node: needs a measured busbw
    assert "bus_bandwidth_bytes_per_s" in text(find(page, "train-error"))
    page = render(gpus="1", seq="1", tokens="1000000000")  # 1e9 sequences per GPU: refused up front
    assert "at most 1,048,576 sequences per GPU per step" in text(find(page, "train-error"))


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"lang": "zh"},
        {"lang": "zh", "recompute": "selective", "zero": "3", "mb": "2", "theme": "dark"},
        {"lang": "zh", "model": "llama-2-70b", "gpus": "1", "tokens": "4096"},
        {"hw": "tpu-v5e", "busbw": "100"},
        {"model": "mixtral-8x7b", "step": "10", "opt": "sgd_momentum", "dtype": "fp16"},
        {"step": "0.001"},  # MFU above 100%
    ],
)
def test_every_variant_renders_without_scientific_notation(changes):
    page = render(**changes)
    words = text(page)
    assert not re.search(r"\d[eE][+-]?\d", words), words
    if changes.get("lang") == "zh":
        assert "不同口径下的利用率" in words


def test_impossible_mfu_is_flagged():
    assert "MFU above 100%" in text(find(render(step="0.001"), "train-util"))


def test_every_lab_string_has_both_languages():
    keys = [k for k in STRINGS if k.startswith("lab_train_")]
    assert len(keys) > 50
    for key in keys:
        assert STRINGS[key].get("en") and STRINGS[key].get("zh"), key


def test_an_older_links_step_is_the_training_step_and_never_the_rooflines():
    """`step=` in a training link written before `step_s=` is seconds of training; the roofline's
    `step=` is a decode step in ms, so a tab switch must not hand it over (it would read 3.64 s
    as 3.64 ms)."""
    page = training_layout.page(view_from_search("tab=training&hw=h100-sxm5&step=3.64"))
    link = find(page, "train-link").data
    assert "step_s=3.64" in link["template"] and "&step=" not in link["template"]
    assert all("step" not in tab_link for tab_link in link["tabs"].values()), link["tabs"]
    args, notices = training_state.parse_args((("step", "3.64"),), ("h100-sxm5",))
    assert (args.measure, args.measured, notices) == ("step", 3.64, [])


# ---- issue 29 §7: a model from another tab, tokens no GPU count divides ---------------------------
def test_a_model_from_a_link_without_a_measurement_is_not_given_the_examples_step():
    """DeepSeek-R1 from a roofline link with the lab's defaults: the example's 3.64 s belongs to
    the 7B teaching run (MFU 205% for R1); the lab asks for R1's own measurement instead, and
    computes once the link carries one."""
    from_roofline = {"tab": "training", "hw": "h100-sxm5", "model": "deepseek-r1"}
    page = training_layout.page(view_from_search(urlencode(from_roofline)))
    error = text(find(page, "train-error"))
    assert "No measured run of deepseek-r1 yet" in error and "3.64 s" in error
    assert text(find(page, "train-util")) == "" and "%" not in text(find(page, "train-util-panel"))
    # what needs no measured step is there: the memory bill, the all-reduce's size (its share: —)
    assert "Does not fit" in text(find(page, "train-memory-text")) or "Fits" in text(find(page, "train-memory-text"))
    assert "—" in text(find(page, "train-comm"))
    assert find(page, "train-measured").value is None  # no number in the box that was never measured
    args, _ = training_state.parse_args(tuple(from_roofline.items()), ("h100-sxm5",))
    assert "step_s" not in dict(training_state.link_pairs(args))  # nor in the link it writes
    measured = training_layout.page(view_from_search(urlencode(from_roofline | {"step_s": "60"})))
    assert text(find(measured, "train-error")) == "" and "%" in text(find(measured, "train-util"))


def test_the_controls_never_give_another_model_the_examples_step():
    """Switching the model on the page and clearing the step box: nothing is computed with the
    teaching run's 3.64 s (its link carries no step), the memory bill and all-reduce are, and
    MFU waits for a measurement; the same with the teaching model keeps the default and says so."""
    base = shown(training_params.PARAMS, training_params.TrainArgs())
    a, problems, refused = training_state.args_from_controls(
        base | {"train-model.value": "deepseek-r1", "train-measured.value": None}
    )
    assert a.measured is None and not problems and not refused
    assert "step_s" not in dict(training_state.link_pairs(a))
    error = training_callbacks.outputs(a, problems, "en", "light", False, tuple(refused))[1]
    assert any("No measured run of deepseek-r1" in p.children for p in error)
    _, problems, refused = training_state.args_from_controls(base | {"train-measured.value": None})
    assert not problems and refused and "3.64" in refused[0]


def test_tokens_no_gpu_count_divides_get_the_nearest_valid_value_offered():
    """8 -> 9 GPUs leaves 262,144 tokens per step no whole number of 4,096-token sequences per
    GPU: the lab says why, names the nearest value that is one (36,864 x 7 = 258,048) and
    links to the same view with it, which computes (on one 16-GPU link: 9 GPUs over 8-GPU nodes
    would need a measured busbw, a refusal of its own)."""
    page = render(gpus="9", gpn="16")
    error = text(find(page, "train-error"))
    assert "multiple of gpus x sequence_length = 36,864" in error  # a count written as one
    assert "258,048 tokens per step (63 sequences, 7 per GPU)" in error
    fix = find(page, "train-tokens-fix")
    assert fix is not None and text(fix) == "Use 258,048"
    query = dict(re.findall(r"([a-z_]+)=([^&]+)", fix.href))
    assert (query["gpus"], query["tokens"], query["gpn"]) == ("9", "258048", "16")
    fixed = training_layout.page(view_from_search(fix.href))
    assert text(find(fixed, "train-error")) == "" and "%" in text(find(fixed, "train-util"))
    assert training_state.nearest_valid_tokens(training_params.TrainArgs(gpus=9, tokens=10)) == 36864
