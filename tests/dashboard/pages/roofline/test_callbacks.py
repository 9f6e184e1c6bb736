"""The roofline page's callbacks, called as plain functions with plain values (no Dash
request): each takes keyword inputs and returns a dict of its outputs."""

import re
from urllib.parse import parse_qsl

import pytest
from dash import no_update

from app.dashboard.lib.i18n import t
from app.dashboard.lib.params import shown
from app.dashboard.pages.roofline.callbacks import (
    add_what_if,
    link_data,
    model_choices,
    pin_scenario,
    sort_ops,
    update_panels,
    update_roofline,
)
from app.dashboard.pages.roofline.layout import flags
from app.dashboard.pages.roofline.params import PARAMS
from app.dashboard.pages.roofline.state import view_from_search
from app.dashboard.pages.roofline.uploads import load_custom
from app.dashboard.pages.roofline.views import ops_panel

LINK = "hw=h100-sxm5,rtx-4090&model=qwen3-8b&batch=128&ctx=8192&prec=fp8&theme=dark&lang=zh"


def controls_of(query: str) -> dict:
    """What the page's controls hold for a link: the table's first values, the stores."""
    view = view_from_search(query)
    sizes = {"batch": view.batch, "ctx": view.context}
    return shown(PARAMS, view) | {"settled.data": sizes, "view-flags.data": flags(view), "custom-model.data": {}}


def test_a_structural_change_sends_the_figure_and_its_grid():
    out = update_roofline(controls=controls_of(LINK), trigger="precision")
    assert {t["uid"] for t in out["figure"]["data"]} >= {"point--h100-sxm5--decode", "point--rtx-4090--decode"}
    assert out["grid"]["batches"] and out["grid"]["contexts"]
    assert out["scenario"].startswith("qwen3-8b · 权重 fp8") and "批 128" in out["scenario"]  # the line over the chart
    assert "hollow" in {item.children[0].className.split("key-")[-1] for item in out["key"]}  # the symbol key


def estimates_of(figure: dict) -> dict:
    return {("data", i): t for i, t in enumerate(figure["data"]) if t["uid"].startswith("estimate--")}


def test_a_rest_on_the_grid_patches_the_serving_estimates_alone():
    """The browser drew the stop from the grid but for the serving estimate's points (drawn for
    one stop: `meta.stop`): at rest, those alone come back, at the indices the browser's figure
    has them (its `drawn` store), as the whole figure at that stop has them."""
    drawn = update_roofline(controls=controls_of(LINK), trigger="precision")["drawn"]  # conc=64 by default
    at_rest = LINK.replace("ctx=8192", "ctx=16384")
    settled = update_roofline(controls=controls_of(at_rest), drawn=drawn, trigger="settled")
    whole = update_roofline(controls=controls_of(at_rest), trigger="precision")["figure"]
    assert len(estimates_of(whole)) == 2 and all(
        t["meta"]["stop"] == [128, 16384] for t in estimates_of(whole).values()
    )
    patch = settled["figure"].to_plotly_json()
    assert {tuple(op["location"]): op["params"]["value"] for op in patch["operations"]} == estimates_of(whole)
    assert {op["operation"] for op in patch["operations"]} == {"Assign"}
    assert settled["grid"] is settled["key"] is settled["drawn"] is no_update
    assert "上下文 16,384" in settled["scenario"]
    # no serving estimate: nothing to redraw
    plain = update_roofline(controls=controls_of(LINK + "&conc=0"), trigger="precision")["drawn"]
    assert plain["at_stop"] == {}
    quiet = update_roofline(controls=controls_of(at_rest + "&conc=0"), drawn=plain, trigger="settled")
    assert quiet["figure"] is no_update and quiet["grid"] is no_update


def test_a_rest_sends_the_whole_figure_where_the_browser_may_hold_another():
    """A figure drawn for another view (a change whose answer a rest superseded), a hostile store,
    or traces drawn for one stop that differ at the new one (an estimate dropped, here the
    RTX 4090's): whole."""
    drawn = update_roofline(controls=controls_of(LINK), trigger="precision")["drawn"]
    at_rest = controls_of(LINK.replace("ctx=8192", "ctx=16384"))
    other = update_roofline(controls=controls_of(LINK.replace("h100-sxm5,", "")), trigger="precision")["drawn"]
    index = drawn["at_stop"]["estimate--h100-sxm5--decode"]
    hostile = (None, "x", {}, {"key": drawn["key"], "at_stop": {"estimate--h100-sxm5--decode": str(index)}})
    for held in (other, *hostile, {**drawn, "at_stop": {"estimate--h100-sxm5--decode": index}}):
        out = update_roofline(controls=at_rest, drawn=held, trigger="settled")
        assert isinstance(out["figure"], dict) and out["figure"]["data"], held
        # and names, for the next rest, where this figure has its estimates
        assert {out["figure"]["data"][i]["uid"] for i in out["drawn"]["at_stop"].values()} == set(drawn["at_stop"])


def test_the_panels_and_the_link_template_come_back_together():
    out = update_panels(hardware_id=None, phase="decode", controls=controls_of(LINK), sort={}, trigger="model")
    assert out["link"]["push"] is True  # a model change is a history entry
    template = dict(parse_qsl(out["link"]["template"]))
    assert (template["batch"], template["ctx"], template["model"]) == ("{batch}", "{ctx}", "qwen3-8b")
    assert out["panels"]["insight"] and out["ops_rows"] and out["ops"]
    # at rest too: Dash drops a request superseded by the rest's, with the link of a change
    # made meanwhile (Dark ticked just after a typed context stayed theme=light in the link)
    rested = update_panels(hardware_id=None, phase="decode", controls=controls_of(LINK), sort={}, trigger="settled")
    assert rested["link"]["template"] == out["link"]["template"] and rested["link"]["push"] is False
    switched = update_panels(hardware_id="rtx-4090", phase="prefill", controls=controls_of(LINK), trigger="ops-phase")
    assert switched["link"] is no_update and all(v is no_update for v in switched["panels"].values())


def test_a_model_brings_its_heads_tp_and_native_precision():
    out = model_choices(model="deepseek-v3", custom={}, tp=8, precision="bf16", flags={"lang": "zh"}, trigger="model")
    assert out["kv_disabled"] is True and out["precision"] == "fp8" and "fp8" in out["notice"]


def test_what_if_cards_are_added_refused_and_limited():
    ok = add_what_if(
        1, 0, " fast:3.35:1979:80 ", "h100-sxm5", 2, 1, [], ["h100-sxm5"], {"lang": "en"}, trigger="whatif-add"
    )
    assert ok["value"] == ["fast:3.35:1979:80"] and ok["error"] == ""
    bad = add_what_if(1, 0, "x:abc:1", "h100-sxm5", 2, 1, [], ["h100-sxm5"], {"lang": "zh"}, trigger="whatif-add")
    assert bad["value"] is no_update and "不是 [0.001, 1000] 之间的数" in bad["error"]
    derived = add_what_if(0, 1, "", "h100-sxm5", 2, 1, [], ["h100-sxm5"], {"lang": "en"}, trigger="whatif-derive")
    assert derived["value"][0].startswith("h100-sxm5-2xflops:")  # a catalogue card, its FLOP/s doubled
    # a factor out of range is quoted as typed, with its box's name (it read "0.0 is not a factor")
    wrong = add_what_if(0, 1, "", "h100-sxm5", -5, 1, [], ["h100-sxm5"], {"lang": "en"}, trigger="whatif-derive")
    assert wrong["value"] is no_update and wrong["error"].endswith("-5 is not a factor in [0.01, 100]")
    assert wrong["error"].startswith(t("what_if_flops", "en"))
    empty = add_what_if(0, 1, "", "h100-sxm5", 2, None, [], ["h100-sxm5"], {"lang": "en"}, trigger="whatif-derive")
    assert empty["value"][0].startswith("h100-sxm5-2xflops:")  # an empty box: that side unchanged


def test_pin_then_unpin_and_a_sorted_ops_table():
    pinned = pin_scenario(pin=1, unpin=0, controls=controls_of(LINK), trigger="pin-scenario")
    assert "model=qwen3-8b" in pinned["pin"] and pinned["hidden"] is False
    assert pin_scenario(pin=1, unpin=1, controls={}, trigger="unpin-scenario") == {
        "pin": "",
        "hidden": True,
        "status": "",
    }
    rows = ops_panel(view_from_search(LINK))[0]
    out = sort_ops(clicks={}, rows=rows, sort={}, flags={"lang": "en"}, trigger="ops-sort-time_us")
    assert out["sort"] == {"key": "time_us", "desc": True}
    first = max(rows, key=lambda r: r["time_us"])["op"]
    assert out["body"][0][0] == first  # the first row's first cell


def test_a_custom_config_is_checked_and_linked():
    config = '{"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,'
    config += ' "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}'
    out = load_custom(apply=1, upload=None, pasted=config, flags={"lang": "en"}, trigger="custom-apply")
    assert out["custom"]["token"] and "Custom model loaded" in str(out["error"])
    bad = load_custom(apply=1, upload=None, pasted="{", flags={"lang": "en"}, trigger="custom-apply")
    assert bad["custom"] is no_update and "not valid JSON" in str(bad["error"])


def test_the_tab_links_carry_the_view():
    tabs = link_data(view_from_search(LINK))["tabs"]
    assert all("model=qwen3-8b" in tabs[t] and "theme=dark" in tabs[t] for t in ("ops", "training"))


def test_a_context_past_the_models_window_is_noticed_in_the_pages_language():
    """Llama-2-7B's window is 4,096 tokens: a context of 8,192 was drawn without a word."""
    from app.dashboard.pages.roofline.views import panels

    def notices(query: str) -> list[str]:
        return [li.children for li in panels(view_from_search(query))["efficiency-notice"]]

    past = notices("hw=h100-sxm5&model=llama-2-7b&ctx=8192")
    assert any("Context 8,192 tokens is past llama-2-7b's context window of 4,096" in n for n in past), past
    zh = notices("hw=h100-sxm5&model=llama-2-7b&ctx=8192&lang=zh")
    assert any("超出了 llama-2-7b 的上下文窗口 4,096" in n for n in zh)
    assert not any("context window" in n for n in notices("hw=h100-sxm5&model=llama-2-7b&ctx=4096"))


def test_a_what_if_card_at_tp_4_shows_every_card_at_tp_1_and_says_why():
    """A what-if card lists no GPU-to-GPU link: added at the default TP 4, the engine's error
    blanked every panel, the real cards' too."""
    query = "hw=h100-sxm5&xhw=fast:3.352:1978.8:80&tp=4"
    out = update_roofline(controls=controls_of(query), trigger="whatif-add")
    assert {"point--h100-sxm5--decode", "point--fast--decode"} <= {t["uid"] for t in out["figure"]["data"]}
    from app.dashboard.pages.roofline.views import panels

    notices = [li.children for li in panels(view_from_search(query))["efficiency-notice"]]
    said = "TP 4 needs a GPU-to-GPU link for its all-reduce, and fast (what-if) lists none: the page shows TP 1."
    assert said in notices
    assert view_from_search("hw=h100-sxm5&tp=4").tensor_parallel == 4  # every card linked: as asked


@pytest.mark.parametrize(
    "lang,said",
    [("en", "the measured decode step, 2.5 ms, is faster than the bound, "), ("zh", "实测的 decode 步 2.5 ms 比上界")],
)
def test_a_measured_step_faster_than_the_bound_is_said_in_ms_and_percent_in_the_pages_language(lang, said):
    """It read "measured decode step 0.0025 s is faster than the bound 0.00374 s: MBU 1.49 > 100%",
    in English on the Chinese page too."""
    from app.dashboard.pages.roofline.views import panels

    view = view_from_search(f"hw=h100-sxm5&model=llama-3-8b&tp=1&step=2.5&lang={lang}")
    notices = [li.children for li in panels(view)["efficiency-notice"]]
    assert any(said in n and "%) " not in n and " s " not in n for n in notices), notices
    assert any(re.search(r"MBU 1\d\d% > 100%", n) for n in notices), notices


def test_the_pin_sentence_compares_decode_tokens_per_s_as_the_table_does():
    """Pinned at batch 64 and moved to int4 and batch 32, decode read "runs 1.99x as fast" (the
    step's time) beside a table whose tokens/s moved 1.00x."""
    from app.dashboard.pages.roofline.insight import pin_sentence
    from app.service import dashboard_data
    from engine.analysis import Scenario

    def decode(**scenario) -> dict:
        return dashboard_data("llama-3-8b", ["h100-sxm5"], Scenario(**scenario))["analysis"]["results"][0]

    a = decode(batch_size=64, context_length=4096, weight_dtype="fp8", compute_dtype="fp8")
    b = decode(batch_size=32, context_length=4096, weight_dtype="int4", compute_dtype="bf16")
    said = pin_sentence(["batch 64 → 32"], a, b, "en")
    ratio = b["decode"]["tokens_per_s"] / a["decode"]["tokens_per_s"]
    assert abs(ratio - 1) < 0.005 and "decode does not move" in said, said  # its tokens/s: 1.00x
    steps = a["decode"]["time_s"] / b["decode"]["time_s"]
    assert abs(steps - ratio) > 0.3 and f"{steps:.2f}x" not in said


def test_a_batch_of_one_is_a_single_request():
    """It read "A static batch of 1 requests"."""
    from app.dashboard.pages.roofline.request_card import request_panel
    from app.dashboard.pages.roofline.views import view_data

    view = view_from_search("hw=h100-sxm5&model=llama-3-8b&batch=1&tp=1")
    first = request_panel(view, view_data(view)["analysis"]["results"])[0].children
    assert first.startswith("A single request, 1,024 tokens in and 1,024 out") and "1 requests" not in first


def test_the_ops_table_says_where_the_rest_of_the_step_went():
    """At TP 4 the rows' shares add to about 68%: the all-reduce, 32% of the step, had no row
    and no word."""
    rows, title, _, _ = ops_panel(view_from_search("hw=h100-sxm5&model=llama-3-8b&tp=4"))
    listed = sum(r["share"] for r in rows)
    rest = re.search(r"the rest of the step, [0-9.]+ .?s \((\d+)%\), is the TP 4 all-reduce", title)
    assert rest and abs(listed + int(rest.group(1)) / 100 - 1) < 0.01, title
    assert "all-reduce" not in ops_panel(view_from_search("hw=h100-sxm5&model=llama-3-8b&tp=1"))[1]


def test_the_serving_estimate_ring_is_not_a_hollow_point():
    """The key says a hollow point does not fit; the estimate's ring under each decode point of
    a scenario that fits was a hollow circle too. It has a dot in it now."""
    out = update_roofline(controls=controls_of("hw=h100-sxm5,h200-sxm&model=llama-3-8b&tp=1"), trigger="model")
    rings = [t for t in out["figure"]["data"] if t["uid"].startswith("estimate--")]
    assert len(rings) == 2 and {t["marker"]["symbol"] for t in rings} == {"circle-open-dot"}
    kinds = {item.children[0].className.split("key-")[-1] for item in out["key"]}
    assert "hollow" in kinds
