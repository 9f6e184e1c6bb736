"""Hugging Face repo ids as model names: every id of the public measured serving set resolves to
the preset of its architecture; a quantised release to its base; anything else is refused with
the nearest known names."""

import pytest

from engine.errors import UnknownIdError
from engine.model_catalog import (
    UnknownModelError,
    get_model,
    load_model,
    model_ids,
    model_names,
    native_precision,
    preset_id_or_none,
    preset_record,
    preset_records,
    resolve_model_id,
)

# (Hugging Face repo id, preset): the models of ai-dynamo/aiconfigurator's measured serving runs
MEASURED_SET = [
    ("meta-llama/Llama-3.1-8B", "llama-3.1-8b"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"),
    ("nvidia/Llama-3.1-8B-Instruct-FP8", "llama-3.1-8b"),
    ("meta-llama/Llama-3.1-70B", "llama-3.1-70b"),
    ("Qwen/Qwen3-32B", "qwen3-32b"),
    ("Qwen/Qwen3-32B-FP8", "qwen3-32b"),
    ("Qwen/Qwen3-32B-FP8-Static-PerTensor", "qwen3-32b"),
    ("nvidia/Qwen3-32B-NVFP4", "qwen3-32b"),
    ("nvidia/Qwen3-32B-FP4", "qwen3-32b"),
    ("Qwen/Qwen3-235B-A22B", "qwen3-235b-a22b"),
    ("Qwen/Qwen3-235B-A22B-FP8", "qwen3-235b-a22b"),
    ("deepseek-ai/DeepSeek-R1", "deepseek-r1"),
    ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
    ("nvidia/DeepSeek-R1-NVFP4", "deepseek-r1"),
    ("nvidia/DeepSeek-V3.1-NVFP4", "deepseek-v3"),
    ("moonshotai/Kimi-K2.5", "kimi-k2.5"),
    ("MiniMaxAI/MiniMax-M2.5", "minimax-m2.5"),
    ("openai/gpt-oss-120b", "gpt-oss-120b"),
    ("Qwen/Qwen3.5-397B-A17B", "qwen3.5-397b-a17b"),
    ("zhipuai/GLM-5", "glm-5"),
    ("zai-org/GLM-5", "glm-5"),
    ("nvidia/GLM-5-NVFP4", "glm-5"),
]


@pytest.mark.parametrize("hf_id, preset", MEASURED_SET)
def test_measured_set_ids_resolve(hf_id, preset):
    assert resolve_model_id(hf_id) == preset
    model = get_model(hf_id)
    assert model.id == preset and model is get_model(preset)  # one parsed model per preset
    assert load_model(hf_id) is model
    assert preset_record(hf_id)["id"] == preset


@pytest.mark.parametrize("spelling", ["qwen/qwen3-32b", "QWEN/QWEN3-32B", "Qwen3-32B"])
def test_case_insensitive(spelling):
    """Repo ids and preset ids alike; a bare repo name is not a preset id, so only the cased
    preset id spelling 'Qwen3-32B' (= 'qwen3-32b') resolves without an owner."""
    assert resolve_model_id(spelling) == "qwen3-32b"


@pytest.mark.parametrize(
    "lookalike",
    [
        "llama-3-8b\n",
        " Qwen/Qwen3-32B ",
        "\tllama-3-8b",
        "meta-llama/Llama-3.1-70B-FP8-FP8-FP8-FP8",
        "Qwen/Qwen3-32B-FP8-FP8",
        "nvidia/DeepSeek-R1-NVFP4-NVFP4",
        "Qwen/Qwen3-32B-FP8-Static-Static",
    ],
)
def test_nothing_is_stripped_and_a_quantisation_suffix_matches_once(lookalike):
    """Issue 34: `llama-3-8b\\n` and `...-70B-FP8-FP8-FP8-FP8` resolved to models. A name is
    matched as sent (case aside), and one quantisation suffix is dropped, not a run of them;
    the refusal names the nearest known names and shows a control character escaped."""
    with pytest.raises(UnknownModelError) as refused:
        resolve_model_id(lookalike)
    assert refused.value.nearest and "\n" not in str(refused.value) and "\t" not in str(refused.value)


@pytest.mark.parametrize(
    "release, preset",
    [
        ("Qwen/Qwen3-32B-FP8-Static-PerTensor", "qwen3-32b"),
        ("Qwen/Qwen3-32B-FP8-Dynamic", "qwen3-32b"),
        ("Qwen/Qwen3-32B-AWQ", "qwen3-32b"),
        ("Qwen/Qwen3-32B-GPTQ-Int4", "qwen3-32b"),
        ("RedHatAI/Qwen3-32B-quantized.w4a16", "qwen3-32b"),
    ],
)
def test_one_quantisation_suffix_still_resolves_to_its_base(release, preset):
    assert resolve_model_id(release) == preset


def test_quantised_release_maps_to_base_architecture():
    fp8, base = get_model("Qwen/Qwen3-235B-A22B-FP8"), get_model("Qwen/Qwen3-235B-A22B")
    assert fp8.num_params == base.num_params == 235093634560
    assert resolve_model_id("deepseek-ai/DeepSeek-R1-0528") == "deepseek-r1"


def test_unknown_id_names_the_nearest():
    with pytest.raises(UnknownModelError) as info:
        resolve_model_id("Qwen/Qwen3-33B")
    err = info.value
    assert isinstance(err, UnknownIdError) and err.field == "model"
    assert err.nearest[0] == "Qwen/Qwen3-32B"
    assert "nearest known: Qwen/Qwen3-32B" in str(err)
    assert set(err.known) == set(model_ids())


@pytest.mark.parametrize("name", ["nvidia/DeepSeek-R1", "gpt-5", "", "x" * 500, "someone/Qwen3-32B-FP8-extra"])
def test_unknown_names_refused_with_suggestions(name):
    """A re-publisher's copy without a quantisation suffix is not guessed; every refusal names
    up to five known names (never none)."""
    with pytest.raises(UnknownModelError) as info:
        get_model(name)
    assert 1 <= len(info.value.nearest) <= 5 and len(str(info.value)) < 600


def test_non_string_name_is_refused():
    with pytest.raises(UnknownIdError):
        resolve_model_id(12)


def test_names_are_unique_across_presets():
    """No Hugging Face id is claimed by two presets (the index would pick one silently)."""
    seen: dict[str, str] = {}
    for pid in model_ids():
        for name in [pid, *model_names(pid)]:
            assert seen.setdefault(name.lower(), pid) == pid, name


def test_native_precision_by_hf_id():
    assert native_precision("deepseek-ai/DeepSeek-R1") == "fp8"
    assert native_precision("moonshotai/Kimi-K2.5") == "int4"
    assert native_precision("Qwen/Qwen3-32B") is None
    assert native_precision("nope/nope") is None


def test_every_preset_lists_its_repo():
    for pid, record in preset_records().items():
        assert model_names(pid), pid
        assert resolve_model_id(record["hf_repo"].split()[0]) == pid


def test_preset_id_or_none():
    assert preset_id_or_none("nvidia/DeepSeek-R1-NVFP4") == "deepseek-r1"
    assert preset_id_or_none("no/such-model") is None and preset_id_or_none(None) is None
