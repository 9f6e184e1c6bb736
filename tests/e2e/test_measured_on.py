"""A profile is read against the accelerator it was measured on: "Measured on" beside the import
(labelled, default the first accelerator) moves its points, the notice and the triage panel to
that card; the choice follows the accelerators chosen; a file naming its GPU preselects it."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import GD, wait_for_figure

PROFILE = "name,flops,bytes,time_s,unit\ngemm,1e12,1e9,2e-3,tensor\nadd,2e7,1.2e8,1e-4,vector\n"
NAMED = (
    "name,flops,bytes,time_s,unit,hardware\ngemm,1e12,1e9,2e-3,tensor,h200-sxm\nadd,2e7,1.2e8,1e-4,vector,h200-sxm\n"
)
LABEL = {"en": "Measured on", "zh": "测量所用的加速器"}

IMPORTED_JS = f"""() => {{ const g = {GD};
  return g && g._fullData ? g._fullData.filter(t => /^measured--.*--imported$/.test(t.uid))
    .map(t => [t.uid, String([].concat(t.hovertext || [])[0] || '').replaceAll('<br>', ' ')]) : []; }}"""


def _imported_on(page: Page, hw: str) -> str:
    """Wait until the imported kernels are drawn on `hw` alone; the first one's hover text (its
    lines joined)."""
    page.wait_for_function(
        f"""(hw) => {{ const g = {GD}; if (!g || !g._fullData) return false;
              const on = g._fullData.filter(t => /^measured--.*--imported$/.test(t.uid)).map(t => t.uid);
              return on.length === 1 && on[0] === 'measured--' + hw + '--imported'; }}""",
        arg=hw,
        timeout=20000,
    )
    return page.evaluate(IMPORTED_JS)[0][1]


def _upload(page: Page, tmp_path, text: str) -> None:
    profile = tmp_path / "profile.csv"
    profile.write_text(text)
    page.locator("#measurements-upload input[type=file]").set_input_files(str(profile))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_measured_on_moves_the_profile_to_the_chosen_card(page: Page, base_url, tmp_path, lang):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b&lang={lang}")
    wait_for_figure(page)
    page.locator(".measurement summary").click()
    expect(page.locator("label[for=measurements-on]")).to_have_text(LABEL[lang])
    choice = page.locator("#measurements-on")
    expect(choice).to_contain_text("H100 SXM5 80GB")  # default: the first accelerator
    _upload(page, tmp_path, PROFILE)
    assert "H100 SXM5 80GB" in _imported_on(page, "h100-sxm5")
    choice.click()
    page.get_by_role("option", name="H200 SXM 141GB").click()
    assert "H200 SXM 141GB" in _imported_on(page, "h200-sxm")
    expect(page.locator("#efficiency-notice")).to_contain_text("H200 SXM 141GB")
    expect(page.locator("#triage")).to_contain_text("H200 SXM 141GB")
    if lang == "en":
        expect(page.locator("#efficiency-notice")).to_contain_text(
            "Imported measurements are drawn on H200 SXM 141GB, the accelerator chosen under “Measured on”"
        )


def test_the_choice_follows_the_accelerators_and_a_named_gpu_is_preselected(page: Page, base_url, tmp_path):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{base_url}/?hw=h100-sxm5,h200-sxm&model=llama-3-8b")
    wait_for_figure(page)
    page.locator(".measurement summary").click()
    _upload(page, tmp_path, NAMED)  # the file says it ran on an H200
    _imported_on(page, "h200-sxm")
    expect(page.locator("#measurements-on")).to_contain_text("H200 SXM 141GB")
    expect(page.locator("#measurements-status")).to_contain_text("The file names H200 SXM 141GB")
    # the H200 is taken away: the choice and the points fall back to the first accelerator left
    page.evaluate("() => window.dash_clientside.set_props('hardware', {value: ['h100-sxm5', 'b200']})")
    _imported_on(page, "h100-sxm5")
    expect(page.locator("#measurements-on")).to_contain_text("H100 SXM5 80GB")
    page.locator("#measurements-on").click()
    offered = page.get_by_role("option").filter(has_text=re.compile(r"H100|H200|B200"))  # not the radios'
    expect(offered).to_have_text(["H100 SXM5 80GB", "B200 (HGX B200, per GPU)"])
    page.get_by_role("option", name="B200 (HGX B200, per GPU)").click()
    assert "B200" in _imported_on(page, "b200")
