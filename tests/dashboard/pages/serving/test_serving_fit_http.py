"""The fit callback over HTTP, as the browser sends it (`/_dash-update-component`), with the
issue's bad pastes and generated ones: every answer is a 200 that says something in the fit's
status (a named problem) or carries the runs into the link, never a 500 (issue 34 §3)."""

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.dashboard.pages.serving.test_serving_fit import HEADER as SHORT
from tests.dashboard.pages.serving.test_serving_fit import SHIPPED_HEADER as SHIPPED
from tests.engine.test_fuzz import cell, json_values
from tests.production.test_hostile_round3 import fire, layout

ROW = "meta-llama/Llama-3.1-70B,h200_sxm,trtllm,fp8,1024,1024,64,{tp},{ep},528.7,13.66"
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(Settings()), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def tree(client):
    return layout(client, "tab=serving")


def fit(client, tree, text: object, target: object = "h200-sxm") -> dict:
    """The fit callback's answer (fire() asserts the 200)."""
    overrides = {("srv-runs", "value"): text, ("srv-fit-target", "value"): target, ("srv-fit-run", "n_clicks"): 1}
    return fire(client, tree, "srv-fit.data", overrides)


def said(response: dict) -> str:
    return str(response.get("srv-fit-status", {}).get("children", ""))


@pytest.mark.parametrize(
    "text, words",
    [
        (SHORT + "\n4,1024,1024,230," + "9" * 140_000, "131,072"),  # csv.Error
        (SHIPPED + "\n" + ROW.format(tp="inf", ep=1), "tp_size"),  # OverflowError in the mapping
        (SHIPPED + "\n" + ROW.format(tp=4, ep="1e400"), "moe_ep_size"),
        (SHORT + "\n4,1024,1024,230,0.1\n8,1024,1024,257,0.1\n16,1024,1024,282,0.1", "faster than the bound"),
        (SHORT + "\n4,1024,1024,230,8", "1 run left to fit"),
    ],
)
def test_the_issues_pastes_are_named_in_the_fit_status(client, tree, text, words):
    response = fit(client, tree, text)
    assert "srv-fit" not in response and words in said(response)


@pytest.mark.parametrize("target", [["h200-sxm"], {"id": "h200-sxm"}, 3, None, "<b>x</b>"])
def test_a_target_of_any_type_fits_on_the_pages_first_accelerator(client, tree, target):
    text = SHORT + "\n4,1024,1024,230.4,7.98\n8,1024,1024,257.3,8.24\n16,1024,1024,281.9,8.93"
    response = fit(client, tree, text, target)
    assert response["srv-fit"]["data"]["runs"] and said(response) == "[]"


short_rows = st.lists(st.lists(cell, min_size=5, max_size=6).map(",".join), max_size=6)
shipped_rows = st.lists(
    st.builds(lambda tp, ep: ROW.format(tp=tp, ep=ep), cell.filter(lambda c: "," not in c), cell), max_size=4
)
pastes = st.one_of(
    short_rows.map(lambda rows: "\n".join([SHORT, *rows])),
    shipped_rows.map(lambda rows: "\n".join([SHIPPED, *rows])),
    st.text(alphabet=string.printable + "\x00\"'\u2028é", max_size=300),
    json_values,
)


@FUZZ
@given(text=pastes, target=st.one_of(st.sampled_from(["h200-sxm", "b200", ""]), json_values))
def test_generated_pastes_always_get_a_200_and_a_word(client, tree, text, target):
    response = fit(client, tree, text, target)
    assert said(response) != "[]" or response.get("srv-fit", {}).get("data", {}).get("runs")
