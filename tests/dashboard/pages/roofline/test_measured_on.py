"""An imported profile is read against the accelerator it was measured on ("Measured on"
beside the import), not always the first: the service places it under that card's roofs, the
figure and the slider grid draw it on that card, the choice follows the accelerators chosen,
and a file that names its GPU preselects it."""

import base64
from pathlib import Path

import pytest
from dash import no_update

from app.dashboard.pages.roofline.controls_state import measurement_spec
from app.dashboard.pages.roofline.figures import roofline_figure
from app.dashboard.pages.roofline.marks import grid_payload
from app.dashboard.pages.roofline.uploads import load_measurements
from app.service import dashboard_data, dashboard_grid
from engine.analysis import Scenario

HW = ["h100-sxm5", "h200-sxm"]
FIXED = "name,flops,bytes,time_s,unit\ngemm,1e12,1e9,2e-3,tensor\nadd,2e7,1.2e8,1e-4,vector\n"
TORCH = (Path(__file__).resolve().parents[3] / "fixtures" / "measurements" / "torch_table.txt").read_text()
SCENARIO = Scenario(batch_size=32, context_length=4096)


def upload(text: str) -> str:
    return "data:text/csv;base64," + base64.b64encode(text.encode()).decode()


def uids(fig: dict) -> set[str]:
    return {t["uid"] for t in fig["data"]}


@pytest.mark.parametrize("on", ["h100-sxm5", "h200-sxm"])
def test_points_are_placed_under_the_chosen_cards_roofs(on):
    data = dashboard_data("llama-3-8b", HW, SCENARIO, None, {"format": "csv", "content": FIXED, "on": on})
    assert data["measured_on"] == on
    result = next(r for r in data["analysis"]["results"] if r["hardware_id"] == on)
    gemm = next(p for p in data["measured_points"] if p["name"] == "gemm")
    # 1e12 FLOP over 1e9 bytes (1,000 FLOP/byte) is under the tensor roof of the card it ran on
    assert gemm["attainable_flops_per_s"] == pytest.approx(result["tensor_flops_per_s"])
    fig = roofline_figure(data["analysis"]["results"], data["trajectories"], measured_points=data["measured_points"],
                          measured_on=data["measured_on"])  # fmt: skip
    other = next(h for h in HW if h != on)
    assert f"measured--{on}--imported" in uids(fig) and f"measured--{other}--imported" not in uids(fig)
    imported = next(t for t in fig["data"] if t["uid"] == f"measured--{on}--imported")
    assert f"on {result['hardware_name']}" in imported["hovertext"][0].replace("<br>", " ")


def test_a_card_not_drawn_means_the_first():
    data = dashboard_data("llama-3-8b", HW, SCENARIO, None, {"format": "csv", "content": FIXED, "on": "mi300x"})
    assert data["measured_on"] == "h100-sxm5"


def test_rows_that_borrow_the_models_counts_move_on_the_chosen_card():
    spec = {"format": "torch_table", "content": TORCH, "steps": 40, "on": "h200-sxm"}
    grid = dashboard_grid("llama-3-8b", HW, SCENARIO, None, spec)
    assert grid["measured_on"] == "h200-sxm"
    payload = grid_payload(grid, HW, "en")
    moving = [u for u in payload["uids"] if u.startswith("measured--")]
    assert moving and all(u.startswith("measured--h200-sxm--") for u in moving)


def test_the_link_state_keeps_the_choice_and_refuses_junk():
    assert measurement_spec({"format": "csv", "content": FIXED, "on": "h200-sxm"})["on"] == "h200-sxm"
    assert "on" not in measurement_spec({"format": "csv", "content": FIXED, "on": ["x"]})
    assert "on" not in measurement_spec({"format": "csv", "content": FIXED, "on": "x" * 65})


OPTIONS = [{"label": "H100 SXM5 80GB", "value": "h100-sxm5"}, {"label": "H200 SXM 141GB", "value": "h200-sxm"}]


def _load(trigger, upload_=None, on="h100-sxm5", hardware=HW, current=None, lang="en"):
    return load_measurements(
        upload_, 1, on, hardware, [], "csv", current or {}, {"lang": lang}, previous=OPTIONS, trigger=trigger
    )


def test_a_file_that_names_its_gpu_preselects_it():
    named = FIXED.replace("unit\n", "unit,hardware\n").replace("tensor\n", "tensor,h200-sxm\n")
    named = named.replace("vector\n", "vector,h200-sxm\n")
    out = _load("measurements-upload", upload(named))
    assert out["measurements"]["on"] == "h200-sxm" and out["on"] == "h200-sxm"
    assert "The file names H200 SXM 141GB" in out["status"]
    # named by its product name, in Chinese
    by_name = named.replace(",h200-sxm\n", ",H200 SXM 141GB\n")
    out = _load("measurements-upload", upload(by_name), lang="zh")
    assert out["measurements"]["on"] == "h200-sxm" and "H200 SXM 141GB" in out["status"]
    # a GPU that is not drawn: the choice stays, and the status says why
    elsewhere = named.replace(",h200-sxm\n", ",b200\n")
    out = _load("measurements-upload", upload(elsewhere), on="h200-sxm")
    assert out["measurements"]["on"] == "h200-sxm" and out["on"] is no_update and "names b200" in out["status"]


def test_the_choice_follows_the_accelerators_and_moves_the_profile():
    loaded = {"format": "csv", "content": FIXED, "steps": 1, "on": "h200-sxm"}
    out = _load("hardware", on="h200-sxm", hardware=["h100-sxm5"], current=loaded)
    assert [o["value"] for o in out["on_options"]] == ["h100-sxm5"]
    assert out["on"] == "h100-sxm5" and out["measurements"]["on"] == "h100-sxm5"
    kept = _load("hardware", on="h200-sxm", hardware=["b200", "h200-sxm"], current=loaded)
    assert kept["on"] is no_update and kept["measurements"] is no_update
    assert [o["label"] for o in kept["on_options"]] == ["B200 (HGX B200, per GPU)", "H200 SXM 141GB"]
    # the first accelerator, the default, stays the first when the accelerators are reordered
    default = {**loaded, "on": "h100-sxm5"}
    first = _load("hardware", on="h100-sxm5", hardware=["mi300x", "h100-sxm5"], current=default)
    assert first["on"] == "mi300x" and first["measurements"]["on"] == "mi300x"
    chosen = _load("measurements-on", on="h100-sxm5", current=loaded)
    assert chosen["measurements"]["on"] == "h100-sxm5"
    nothing = _load("measurements-on", on="h100-sxm5", current={})
    assert nothing["measurements"] is no_update  # no profile yet: the choice waits for one
