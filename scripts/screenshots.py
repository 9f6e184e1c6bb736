"""Renew the README's screenshots (docs/screenshot*.png, docs/serving-*.png, docs/planner-*.png) from a live server in
Debian's Chromium.

    .venv/bin/python scripts/screenshots.py [file name ...]

Each shot is a link (the URL is the state) at a stated window size; the page is given time to
draw its figures. No network beyond the loopback server (the same resolver rules as the tests).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_server import live_server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SERVING = "tab=serving&model=meta-llama/Llama-3.1-70B&hw=h200-sxm&backend=trtllm&prec=fp8&tp=4&isl=1024&osl=1024"
# a disaggregated deployment with shipped measured runs: DeepSeek-R1 NVFP4 on GB200, one DP4/EP4
# prefill worker and one DP32/EP4 decode worker (its recipe's), beside nine aggregated TP4/EP4 instances
SERVING_DISAGG = (
    "tab=serving&model=deepseek-ai/DeepSeek-R1&hw=gb200&backend=trtllm&prec=fp4&tp=4&ep=4&isl=1024&osl=8192"
    "&conc=256&mode=disagg&pworkers=1&ptp=1&pdp=4&pmtp=1&pep=4&dworkers=1&dtp=1&ddp=32&dmtp=8&dep=4"
)

# issue 33's question: DeepSeek-R1 on 8 x H200 or 8 x B200, TPOT <= 50 ms and TTFT <= 2 s
PLAN = "tab=plan&model=deepseek-ai/DeepSeek-R1&hw=h200-sxm,b200&gpus=8&isl=1024&osl=1024&tpot_ms=50&ttft_ms=2000"


def runs_link() -> str:
    """`runs=` for the first five shipped runs of the serving page's default scenario (TensorRT-LLM,
    Llama-3.1-70B FP8 on 4 x H200, published/serving/) pasted in the short form, as its Fit
    button writes it."""
    sys.path.insert(0, str(ROOT))
    from app.dashboard.lib.params import shown
    from app.dashboard.pages.serving.callbacks import fit_from_text
    from app.dashboard.pages.serving.measured import matching_runs
    from app.dashboard.pages.serving.params import PARAMS, ServingArgs
    from app.dashboard.pages.serving.state import scenario_of

    a = ServingArgs()
    runs = matching_runs(a.model, "h200-sxm", scenario_of(a), True)[:5]
    rows = [f"{r.row.scenario.concurrency},1024,1024,{r.row.ttft_s * 1e3:.3f},{r.row.tpot_s * 1e3:.4f}" for r in runs]
    text = "\n".join(["concurrency,input_tokens,output_tokens,ttft_ms,tpot_ms", *rows])
    store, status = fit_from_text(text, "h200-sxm", shown(PARAMS, a) | {"srv-hw.value": list(a.hardware)}, "en")
    if store is None:
        raise SystemExit(f"the runs were not fitted: {status}")
    return "runs=" + store["runs"]


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
    ("serving-1400x900.png", SERVING, 1400, 900, False),
    ("serving-zh-dark.png", SERVING + "&lang=zh&theme=dark", 1400, 900, False),
    ("serving-fit-my-runs.png", SERVING + "&{runs}", 1400, 900, True),
    ("serving-embed-800x500.png", SERVING + "&embed=1&controls=0", 800, 500, False),
    ("serving-present-1920x1080.png", SERVING + "&present=1", 1920, 1080, False),
    ("serving-phone-390x844.png", SERVING.replace("hw=h200-sxm", "hw=h200-sxm,b200") + "&lang=zh", 390, 844, True),
    ("serving-no-fit.png", SERVING.replace("meta-llama/Llama-3.1-70B", "deepseek-ai/DeepSeek-R1"), 1400, 900, False),
    ("serving-disagg-1400x900.png", SERVING_DISAGG, 1400, 900, True),
    ("planner-1400x900.png", PLAN, 1400, 900, False),
    ("planner-present-1920x1080.png", PLAN + "&present=1", 1920, 1080, False),
    ("planner-embed-800x500.png", PLAN + "&embed=1", 800, 500, False),
    ("planner-phone-390x844.png", PLAN, 390, 844, False),
)


def main() -> int:
    only = set(sys.argv[1:])  # file names to renew, or every one
    runs = runs_link()
    with live_server() as (_proc, base), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for name, query, width, height, full in SHOTS:
            if only and name not in only:
                continue
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{base}/?{query.replace('{runs}', runs)}")
            page.wait_for_selector(".js-plotly-plot .main-svg", timeout=30000)
            page.wait_for_timeout(2500)  # every panel's figure drawn
            page.screenshot(path=str(DOCS / name), full_page=full)
            page.close()
            print("wrote", DOCS / name)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
