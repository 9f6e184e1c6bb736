"""Screenshots of what a person touches first (docs/trust-*.png), from a live server in
Debian's Chromium: eight accelerators in both themes, presentation mode, a phone (the page and
the chart with its symbol key), an 800x500 embed of eight accelerators, the memory
chart with the card's capacity and the usable share, the published runs of one scenario.

    .venv/bin/python scripts/trust_screenshots.py [output folder, default docs/]
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_server import live_server  # noqa: E402

EIGHT = "h100-sxm5,h200-sxm,b200,mi300x,rtx-4090,a100-80gb-sxm,l40s,gaudi-3"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
SHOTS = (  # (file, query, width, height, element to clip to or None)
    ("trust-8-accelerators.png", f"hw={EIGHT}", 1400, 900, None),
    ("trust-8-accelerators-dark.png", f"hw={EIGHT}&theme=dark", 1400, 900, None),
    ("trust-present.png", "hw=h100-sxm5,h200-sxm,mi300x&present=1", 1920, 1080, None),
    ("trust-phone.png", f"hw={EIGHT}", 390, 844, None),
    ("trust-phone-chart.png", f"hw={EIGHT}", 390, 844, ".figure"),  # the chart with its symbol key
    ("trust-embed-8.png", f"embed=1&hw={EIGHT}&model=llama-3-70b&batch=16&prec=bf16&tp=1", 800, 500, None),
    (
        "trust-memory-usable.png",
        "hw=h200-sxm,h100-sxm5&model=llama-3-70b&batch=1&ctx=1024&tp=1&prec=bf16",
        1400,
        900,
        "#memory-graph",
    ),
    (
        "trust-insight-usable.png",
        "hw=h200-sxm&model=llama-3-70b&batch=1&ctx=1024&prec=bf16&tp=1",
        1400,
        900,
        "#insight",
    ),
    ("trust-published.png", "hw=h100-sxm5&model=llama-2-7b&prec=fp8&published=1", 1400, 900, "#reality-panel"),
    ("trust-empty-state.png", "hw=b200,h100-sxm5&model=deepseek-v3&tp=1", 1400, 900, "#interactivity-graph"),
)


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with live_server() as (_, url), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for name, query, width, height, clip in SHOTS:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{url}/?{query}")
            page.wait_for_selector("#roofline-graph .main-svg")
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(800)  # let Plotly finish its last draw before the picture
            target = page.locator(clip) if clip else page
            target.screenshot(path=str(out / name))
            page.close()
            print("wrote", out / name)
        browser.close()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "docs")
