"""The roofline's parameter table (pages/roofline/params.py): one declaration per parameter,
from which the link is read and written, the controls get their first values and are read
back; the limits are the engine's."""

from dataclasses import replace

from app.dashboard.lib.params import shown
from app.dashboard.pages.roofline.controls_state import view_from_controls
from app.dashboard.pages.roofline.params import BY_NAME, PARAMS
from app.dashboard.pages.roofline.state import View, to_query, view_from_search
from app.dashboard.pages.roofline.views import scenario_of
from engine.analysis import MAX_BATCH, MAX_BLOCK, MAX_CONTEXT
from engine.measurement import MAX_MEASURED_STEP_S
from engine.request import MAX_GPU_HOUR_PRICE


def test_each_name_is_declared_once_and_the_limits_are_the_engine_s():
    names = [p.name for p in PARAMS]
    assert len(names) == len(set(names))
    assert BY_NAME["batch"].kind.kind.high == MAX_BATCH and BY_NAME["ctx"].kind.kind.high == MAX_CONTEXT
    assert BY_NAME["block"].kind.high == MAX_BLOCK and BY_NAME["price"].kind.high == MAX_GPU_HOUR_PRICE
    assert BY_NAME["step"].kind.high == MAX_MEASURED_STEP_S * 1e3  # the link's step is in ms


def test_a_parameter_added_by_its_row_alone_travels_link_controls_and_engine():
    view = view_from_search("hw=h100-sxm5&block=256")
    assert view.kv_block == 256 and not view.notices
    assert "block=256" in to_query(view) and "block=" not in to_query(View())  # left out at its default
    assert scenario_of(view).kv_block_size == 256  # handed to the engine as is
    first = shown(PARAMS, view)
    assert first["kv-block.value"] == 256  # the control's first value
    assert view_from_controls({"kv-block.value": 64}).kv_block == 64  # and read back
    assert view_from_controls({"kv-block.value": 0}).kv_block == View().kv_block  # refused: the default
    assert [n for n, _, _ in view_from_search("block=99999").notices] == ["block"]


def test_the_controls_first_values_read_back_to_the_same_view():
    view = view_from_search(
        "hw=h100-sxm5,rtx-4090&model=qwen3-8b&batch=128&ctx=8192&prec=fp8&kvprec=fp8&fa=0&roofs=measured,hierarchy"
        "&bweff=0.8&memutil=0.9&out=256&price=2.5&published=1&theme=dark&present=1&xhw=fast:3.35:1979:80"
    )
    controls = shown(PARAMS, view) | {"settled.data": {"batch": 128, "ctx": 8192}, "view-flags.data": {"lang": "en"}}
    back = view_from_controls(controls)
    compared = [f for f in View.__dataclass_fields__ if f not in ("notices", "query", "kv_heads")]
    assert {f: getattr(back, f) for f in compared} == {f: getattr(view, f) for f in compared}
    assert replace(back, query="") == replace(view_from_search(to_query(back)), query="", notices=())


def test_an_unknown_model_in_any_pages_link_names_the_nearest_known_ones():
    from app.dashboard.lib.i18n import reason
    from app.dashboard.pages.ops.state import parse_args as ops_args
    from app.dashboard.pages.serving.state import parse_args as serving_args
    from app.dashboard.pages.training.state import parse_args as training_args

    ((name, value, why),) = view_from_search("model=llama3-8b").notices
    assert (name, value) == ("model", "llama3-8b")
    assert reason(why, "en").startswith("unknown model; the nearest known: llama-3-8b, llama-3.1-8b, ")
    assert reason(why, "zh").startswith("未知的模型；最接近的已知模型：llama-3-8b, llama-3.1-8b")
    _, notices = training_args((("model", "llama3-8b"),), ("h100-sxm5",))
    assert "the nearest known: llama-3-8b" in notices[0]
    _, ops_notices = ops_args((("model", "llama3-8b"),))
    assert "llama-3-8b" in reason(ops_notices[0][2], "en")
    _, serving_notices = serving_args(view_from_search("tab=serving&model=meta-llama/Llama-3.1-8b-instructt"))
    assert "the nearest known: meta-llama/Llama-3.1-8B-Instruct" in serving_notices[0], serving_notices


def test_every_page_reads_a_hugging_face_id_as_its_preset_and_links_the_preset():
    """The API takes Hugging Face repo ids; so does every page's link: read as the preset they
    resolve to, not refused with themselves as "the nearest known"."""
    from app.dashboard.pages.ops.state import parse_args as ops_args
    from app.dashboard.pages.training.state import parse_args as training_args

    view = view_from_search("hw=b200&model=deepseek-ai/DeepSeek-R1")
    assert view.model == "deepseek-r1" and not view.notices
    assert "model=deepseek-r1" in to_query(view)
    assert view_from_search("model=nvidia/DeepSeek-R1-NVFP4").model == "deepseek-r1"  # a quantised release
    assert view_from_search("model=META-LLAMA/Llama-3.1-8B").model == "llama-3.1-8b"  # any case
    args, notices = training_args((("model", "meta-llama/Llama-3.1-8B"),), ("h100-sxm5",))
    assert args.model == "llama-3.1-8b" and not notices
    args, notices = ops_args((("model", "Qwen/Qwen3-235B-A22B-FP8"),))
    assert args.model == "qwen3-235b-a22b" and not notices
    ((name, value, _),) = view_from_search("model=deepseek-ai/DeepSeek-R2").notices  # still refused
    assert (name, value) == ("model", "deepseek-ai/DeepSeek-R2")
