"""Hostile links, generated: any mix of the dashboard's parameters with any values parses to a
valid view with notices (never an exception), renders, and its canonical link reads back to the
same view. Also the callbacks' input boundary (view_from_controls) with values no control sends."""

from dataclasses import fields
from urllib.parse import urlencode

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.dashboard.pages.roofline.controls_state import view_from_controls, view_inputs
from app.dashboard.pages.roofline.state import to_query, view_from_search
from app.dashboard.shell import page

NAMES = ["hw", "model", "cfg", "batch", "ctx", "kv", "prec", "kvprec", "fa", "tp", "roofs", "bweff", "fleff", "step",
         "out", "price", "memutil", "published", "lang", "theme", "embed", "controls", "present", "xhw", "pin",
         "tab", "zzz"]  # fmt: skip
GOOD = {
    "hw": ["h100-sxm5", "b200,mi300x", "rtx-4090,h200-sxm,l4"],
    "model": ["llama-3-8b", "deepseek-v3", "gpt-oss-20b", "mixtral-8x7b"],
    "batch": ["1", "64", "65536"],
    "ctx": ["128", "4096", "1048576"],
    "kv": ["1", "8", "32"],
    "prec": ["bf16", "int4", "fp8", "fp4"],
    "tp": ["1", "2", "8"],
    "roofs": ["measured", "hierarchy", "measured,hierarchy"],
    "xhw": ["fast:3.35:1979:80", "v:2:500::50"],
    "pin": ["model=llama-3-8b&batch=8&prec=int4", "batch=1"],
    "tab": ["roofline", "ops", "training", "serving"],
}
values = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["", "0", "-1", "1e400", "nan", "inf", "<script>", "%00", "a:b:c", "::::", ",,,", "1" * 40]),
    st.integers(-(2**70), 2**70).map(str),
)
queries = st.lists(
    st.sampled_from(NAMES).flatmap(lambda n: st.tuples(st.just(n), st.sampled_from(GOOD.get(n, [""])) | values)),
    max_size=8,
)
# The canonical link is the view to share: without the embedding (a wiki iframe's embed=1 and
# controls=0 are not part of the view; "Open full view" and exports use this link).
EMBEDDING = {"embed", "controls"}
COMPARED = [f.name for f in fields(view_from_search("")) if f.compare and f.name not in EMBEDDING]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries)
def test_any_link_parses_renders_and_reads_back(pairs):
    view = view_from_search(urlencode(pairs))
    page(view)  # the first render computes every panel: it must not raise
    again = view_from_search(to_query(view))
    assert {f: getattr(again, f) for f in COMPARED} == {f: getattr(view, f) for f in COMPARED}
    assert not again.notices, again.notices  # the canonical link is clean
    assert not again.embed and again.controls


junk = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.floats(), st.text(max_size=20),
    st.lists(st.text(max_size=12), max_size=10), st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3),
)  # fmt: skip


CONTROL_KEYS = sorted(view_inputs())


@settings(max_examples=60, deadline=None)
@given(st.lists(junk, min_size=len(CONTROL_KEYS), max_size=len(CONTROL_KEYS)))
def test_the_callback_boundary_takes_anything(values):
    view = view_from_controls(dict(zip(CONTROL_KEYS, values, strict=True)))
    assert view.batch >= 1 and view.context >= 1 and len(view.hardware) + len(view.what_if) <= 8
    assert view_from_search(to_query(view)).notices == ()  # whatever it was sent, its link is clean
