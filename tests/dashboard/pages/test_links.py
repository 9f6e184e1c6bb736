"""Tabs are links (tab=): the chrome and the shared parameters travel, a lab's own go to that
lab, and the roofline's own travel through the labs, so a round trip ends where it began."""

from urllib.parse import parse_qsl

from app.dashboard.lib.i18n import reason
from app.dashboard.pages.ops.layout import page as ops_page
from app.dashboard.pages.roofline.callbacks import link_data
from app.dashboard.pages.roofline.state import to_query, view_from_search
from app.dashboard.pages.training.layout import page as training_page
from app.dashboard.shell import page

START = "hw=h100-sxm5&xhw=fast:3.35:1979:80&model=qwen3-8b&batch=128&ctx=8192&prec=fp8&theme=dark&lang=zh"


def _store(tree, store_id: str):
    """The data of the dcc.Store with this id in a rendered page."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if getattr(node, "id", None) == store_id and hasattr(node, "data"):
            return node.data
        children = getattr(node, "children", None)
        stack.extend(children if isinstance(children, list) else [children] if children is not None else [])
    raise AssertionError(store_id)


def test_a_lab_gets_its_own_parameters_and_a_bad_tab_is_named():
    view = view_from_search("tab=ops&op=gemm&m=4096&hw=h100-sxm5&lang=zh&bogus=1")
    assert view.tab == "ops" and view.hardware == ("h100-sxm5",) and view.lang == "zh"
    assert view.lab_args == (("op", "gemm"), ("m", "4096"), ("bogus", "1")) and not view.notices
    wrong = view_from_search("tab=nope&m=3")
    assert wrong.tab == "roofline"
    assert [(n, reason(w, "en")) for n, _, w in wrong.notices] == [
        ("tab", "one of roofline, ops, training, serving, plan"),
        ("m", "unknown parameter"),
    ]


def test_tab_links_carry_the_shared_parameters_and_the_roofline_s_own():
    links = link_data(view_from_search(START))["tabs"]
    ops = dict(parse_qsl(links["ops"][1:]))
    assert ops["tab"] == "ops" and ops["model"] == "qwen3-8b" and ops["prec"] == "fp8"
    assert (ops["hw"], ops["xhw"], ops["lang"], ops["theme"]) == ("h100-sxm5", "fast:3.35:1979:80", "zh", "dark")
    assert (ops["batch"], ops["ctx"]) == ("128", "8192")


def test_a_round_trip_through_both_labs_ends_on_the_view_it_left():
    start = view_from_search(START)
    ops_link = link_data(start)["tabs"]["ops"]
    ops_view = view_from_search(ops_link)
    ops_data = _store(ops_page(ops_view), "lab-link")
    # the op lab's decode projections follow the chosen model
    assert dict(parse_qsl(ops_data["template"]))["model"] == "qwen3-8b"
    training_view = view_from_search(ops_data["tabs"]["training"])
    training_data = _store(training_page(training_view), "train-link")
    assert dict(parse_qsl(training_data["template"]))["model"] == "qwen3-8b"
    back = view_from_search(training_data["tabs"]["roofline"])
    assert to_query(back) == to_query(start) and not back.notices


def test_every_tab_renders_with_its_tab_bar():
    for tab in ("roofline", "ops", "training", "serving"):
        text = str(page(view_from_search(f"tab={tab}&hw=h100-sxm5")))
        assert "tab-roofline" in text and "tab-ops" in text and "tab-training" in text and "tab-serving" in text
