"""Tabs are links (tab=): shared parameters stay with the page, a lab's own go to that lab."""

from urllib.parse import parse_qsl

from app.dashboard.layout import page
from app.dashboard.tabs import tab_href
from app.dashboard.url_state import to_query, view_from_search


def test_a_lab_gets_its_own_parameters_and_a_bad_tab_is_named():
    view = view_from_search("tab=ops&op=gemm&m=4096&hw=h100-sxm5&lang=zh&bogus=1")
    assert view.tab == "ops" and view.hardware == ("h100-sxm5",) and view.lang == "zh"
    assert view.lab_args == (("op", "gemm"), ("m", "4096"), ("bogus", "1")) and not view.notices
    assert dict(parse_qsl(to_query(view))) == {
        "tab": "ops", "hw": "h100-sxm5", "op": "gemm", "m": "4096", "bogus": "1", "lang": "zh", "theme": "light",
    }  # fmt: skip
    wrong = view_from_search("tab=nope&m=3")
    assert wrong.tab == "roofline"
    assert [(n, w) for n, _, w in wrong.notices] == [
        ("tab", "one of roofline, ops, training"),
        ("m", "unknown parameter"),
    ]


def test_tab_links_keep_accelerators_what_ifs_language_and_theme():
    roofline = view_from_search("hw=h100-sxm5,b200&xhw=fast:3.35:1979:80&lang=zh&theme=dark&batch=64")
    assert parse_qsl(tab_href(roofline, "ops")[1:]) == [
        ("tab", "ops"), ("hw", "h100-sxm5,b200"), ("lang", "zh"), ("theme", "dark"), ("xhw", "fast:3.35:1979:80"),
    ]  # fmt: skip
    lab = view_from_search("tab=ops&hw=h100-sxm5&xhw=a:1:1&xhw=b:2:2")
    assert [v for k, v in parse_qsl(tab_href(lab, "roofline")[1:]) if k == "xhw"] == ["a:1:1", "b:2:2"]


def test_every_tab_renders_with_its_tab_bar():
    for tab in ("roofline", "ops", "training"):
        text = str(page(view_from_search(f"tab={tab}&hw=h100-sxm5")))
        assert "tab-roofline" in text and "tab-ops" in text and "tab-training" in text
