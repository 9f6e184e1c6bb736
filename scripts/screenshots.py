"""Renew the README's screenshots (docs/screenshot*.png) from a live server in Debian's Chromium.

    .venv/bin/python scripts/screenshots.py

Each shot is a link (the URL is the state) at a stated window size; the page is given time to
draw its figures. No network beyond the loopback server (the same resolver rules as the tests).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_server import live_server  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "docs"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]
# the README's views name their scenario: Llama-3-8B in bf16 at TP 1 (the product's default is
# Llama-3.1-70B fp8 at TP 4 on one H200: screenshot-default.png)
EIGHT_B = "model=llama-3-8b&prec=bf16&tp=1"
SHOTS = (  # (file, query, width, height, full page)
    ("screenshot-default.png", "", 1400, 900, True),
    ("screenshot.png", f"hw=h100-sxm5,h200-sxm,rtx-4090&batch=32&ctx=4096&{EIGHT_B}", 1600, 1000, False),
    (
        "screenshot-dark.png",
        f"hw=h100-sxm5,h200-sxm,rtx-4090&batch=32&ctx=4096&{EIGHT_B}&theme=dark",
        1600,
        1000,
        False,
    ),
    ("screenshot-embed.png", f"hw=h100-sxm5,b200&batch=64&ctx=8192&{EIGHT_B}&embed=1", 800, 500, False),
    ("screenshot-present.png", f"hw=h100-sxm5,b200,mi300x&batch=64&ctx=8192&{EIGHT_B}&present=1", 1920, 1080, False),
    ("screenshot-zh-phone.png", "lang=zh&theme=dark", 390, 844, False),
    (
        "screenshot-compare.png",
        f"hw=h100-sxm5,b200&{EIGHT_B}&prec=int4&xhw=h100-sxm5-2xflops:3.352:1978.8:80"
        "&pin=model%3Dllama-3-8b%26batch%3D32%26ctx%3D4096%26prec%3Dbf16%26tp%3D1",
        1600,
        1000,
        False,
    ),
    ("screenshot-op-lab.png", "tab=ops&op=teaching&model=llama-2-7b&hw=h100-sxm5,rtx-4090", 1600, 1000, False),
    ("screenshot-training.png", "tab=training&hw=h100-sxm5", 1600, 1000, False),
)


def main() -> int:
    with live_server() as (_proc, base), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for name, query, width, height, full in SHOTS:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{base}/?{query}")
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30000)
            page.wait_for_timeout(2500)  # every panel's figure drawn
            page.screenshot(path=str(DOCS / name), full_page=full)
            page.close()
            print("wrote", DOCS / name)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
