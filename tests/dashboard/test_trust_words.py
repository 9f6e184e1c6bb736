"""Words built from numbers: "1 sequence" (never "1 sequences"), memory footprints in GiB and the
training lab's bf16/fp16 toggle saying why it moves nothing on an H100."""

from app.dashboard.pages.roofline.insight import insight_sentences
from app.dashboard.pages.training.figures import memory_text, utilisation_panel
from app.service import dashboard_data
from engine.analysis import Scenario
from engine.hardware import get_accelerator
from engine.training import run_training


def _text(component) -> str:
    if isinstance(component, str):
        return component
    if isinstance(component, (list, tuple)):
        return " ".join(_text(c) for c in component)
    children = getattr(component, "children", None)
    return "" if children is None else _text(children)


def test_one_sequence_is_singular_in_the_overflow_sentence():
    data = dashboard_data("llama-3-8b", ["h100-sxm5"], Scenario(batch_size=1, context_length=1 << 20))
    text = " ".join(insight_sentences(data["analysis"], data["trajectory_end"], data["kv_wall_intensity"], "en"))
    assert "the KV cache of 1 sequence of 1,048,576 tokens" in text and "1 sequences" not in text


def _run(**setup) -> dict:
    base = {"gpus": 8, "sequence_length": 4096, "tokens_per_step": 8 * 4096, "step_time_s": 1.0}
    return run_training("llama-2-7b", get_accelerator("h100-sxm5"), **(base | setup))


def test_one_sequence_per_gpu_and_one_accumulation_step_are_singular():
    text = _text(utilisation_panel(_run(), "NVIDIA", "H100 SXM5 80GB", "en"))
    assert "1 sequence of 4,096 tokens per step" in text and "(1 accumulation step)" in text
    assert "1 sequences" not in text and "1 accumulation steps" not in text
    zh = _text(utilisation_panel(_run(), "NVIDIA", "H100 SXM5 80GB", "zh"))
    assert "1 条 4,096 token" in zh and "累积 1 步" in zh


def test_training_memory_reads_gib():
    text = _text(memory_text(_run(), "H100 SXM5 80GB", "en"))
    assert "80 GiB" in text and " GB" not in text.replace("GiB", "")


def test_bf16_fp16_toggle_says_why_nothing_moves_on_h100():
    text = _text(utilisation_panel(_run(dtype="fp16"), "NVIDIA", "H100 SXM5 80GB", "en"))
    assert "share one dense peak on H100 SXM5 80GB (989 TFLOP/s)" in text
