"""Issue 15, profiling triage on screen: imported kernels ranked by recoverable time (not by
gap), each with the first thing to check, as the API's `triage` answers them."""

from pathlib import Path

import httpx2 as httpx
from playwright.sync_api import Page, expect

from app.units import duration

from ..engine.test_triage import PROFILE  # a profile where "biggest gap first" is the wrong order
from .helpers import wait_for_figure, wait_for_uids


def test_imported_kernels_are_ranked_by_recoverable_time(page: Page, base_url, tmp_path: Path):
    page.goto(f"{base_url}/?hw=h100-sxm5")
    wait_for_figure(page)
    expect(page.locator("#triage-panel")).to_be_hidden()
    page.locator(".measurement summary").click()
    profile = tmp_path / "profile.csv"
    profile.write_text(PROFILE)
    page.locator("#measurements-upload input[type=file]").set_input_files(str(profile))
    wait_for_uids(page, present=["measured--h100-sxm5--imported"])
    panel = page.locator("#triage-panel")
    expect(panel).to_be_visible()
    rows = panel.locator("tbody tr")
    expect(rows).to_have_count(3)
    names = [rows.nth(i).locator("td").nth(1).text_content() for i in range(3)]
    assert names == ["gemm_8192", "big_add", "tiny_add"]
    api = httpx.post(
        f"{base_url}/api/v1/measurements",
        json={"format": "csv", "content": PROFILE, "hardware": "h100-sxm5", "model": "llama-3-8b"},
        timeout=30,
    )
    assert api.status_code == 200, api.text
    first = api.json()["triage"][0]
    expect(rows.first).to_contain_text(duration(first["recoverable_time_s"]))
    expect(rows.first).to_contain_text("tensor-core use and the dtype")
    expect(rows.nth(2)).to_contain_text("overhead-bound")
    expect(rows.nth(2)).to_contain_text("CUDA graphs")


def test_the_triage_panel_in_chinese(page: Page, base_url, tmp_path: Path):
    page.goto(f"{base_url}/?hw=h100-sxm5&lang=zh")
    wait_for_figure(page)
    page.locator(".measurement summary").click()
    profile = tmp_path / "profile.csv"
    profile.write_text(PROFILE)
    page.locator("#measurements-upload input[type=file]").set_input_files(str(profile))
    panel = page.locator("#triage-panel")
    expect(panel.locator("h2")).to_have_text("性能剖析分诊")
    expect(panel.locator("tbody tr").first).to_contain_text("是否用上张量核以及数据类型")
    expect(panel.locator("tbody tr").nth(2)).to_contain_text("受启动开销限制")
