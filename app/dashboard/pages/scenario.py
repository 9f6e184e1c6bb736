"""The product's one default scenario, and the same quantity under each page's name.

Every page opens on Llama-3.1-70B in fp8 on one H200, tensor-parallel 4, 1,024 tokens in and
1,024 out, 64 requests in flight under TensorRT-LLM: the serving page's calibrated scenario (the
shipped measured runs cover it), which the roofline page opens on too (a static batch of 64).
The training lab keeps its own measured teaching run (MFU needs a measured step; fp8 is no
training dtype of its engine): it opens on that, and takes a model only from a link.
"""

from __future__ import annotations

MODEL = "llama-3.1-70b"
HARDWARE = ("h200-sxm",)
PRECISION = "fp8"
TENSOR_PARALLEL = 4
INPUT_TOKENS = 1024
OUTPUT_TOKENS = 1024
CONCURRENCY = 64
BACKEND = "trtllm"


def kv_dtype_for(weight_dtype: str) -> str:
    """The KV cache's dtype when a link names none: bf16 under 16-bit weights, fp8 below (the
    shipped serving runs' mapping, published/serving/README.md; the serving page's rule, which
    tests/dashboard/test_one_scenario.py holds the two to)."""
    return "bf16" if weight_dtype in ("bf16", "fp16") else "fp8"


# The same quantity under each page's link name: a tab switch hands the page's current value
# over, both ways (pages/links.py). (roofline name, lab name) per lab.
SAME_QUANTITY: dict[str, tuple[tuple[str, str], ...]] = {
    "serving": (
        ("ctx", "isl"),  # the roofline's context is the prompt: input tokens
        ("out", "osl"),
        ("conc", "conc"),
        ("tp", "tp"),
        ("memutil", "memutil"),
        ("price", "price"),
        ("backend", "backend"),
    ),
}
