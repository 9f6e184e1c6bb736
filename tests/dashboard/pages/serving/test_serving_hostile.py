"""Hostile links on the Serving page: every parameter given markup, surrogates, huge and
negative numbers, and combinations the engine refuses; the page names what it ignored and
every accelerator answers or says why, never an exception."""

import pytest

from app.dashboard.pages.roofline.state import View
from app.dashboard.pages.serving.compute import compute
from app.dashboard.pages.serving.params import PARAMS
from app.dashboard.pages.serving.state import parse_args
from engine.errors import EngineInputError

HOSTILE = ("<script>alert(1)</script>", "\ud800", "-1", "0", "1e309", "nan", "99999999999", "1,2,3", "", " ", "%00")


@pytest.mark.parametrize("name", [p.name for p in PARAMS])
def test_every_parameter_refuses_hostile_values_by_name(name):
    for value in HOSTILE:
        args, notices = parse_args(View(tab="serving", lab_args=((name, value),), query=f"{name}=x"))
        assert all(isinstance(n, str) for n in notices)
        for acc in compute(args):
            assert acc.error is None or isinstance(acc.error, (str, EngineInputError))  # said via its code


@pytest.mark.parametrize(
    "query",
    [
        (("tp", "72"), ("adp", "72")),  # 5,184 GPUs: more than one instance holds
        (("tp", "3"),),  # does not divide Llama-3.1-70B's 64 heads
        (("model", "deepseek-ai/DeepSeek-R1"), ("tp", "1"), ("prec", "bf16")),  # does not fit one card
        (("model", "Qwen/Qwen3-235B-A22B"), ("tp", "8"), ("ep", "8")),
        (("conc", "65536"), ("isl", "1048576")),
    ],
)
def test_refused_combinations_answer_per_accelerator(query):
    args, _ = parse_args(View(tab="serving", lab_args=query, query="hw=h200-sxm"))
    for acc in compute(args):
        assert (acc.error is None) == (acc.chosen is not None)
