"""The catalogues (lib/locales/<lang>.json for the shared words, pages/<page>/locales/<lang>.json
for each page's): every file has the same keys and the same fields in every language, no key
lives in two files, and every message code rendered in English and in Chinese, the Chinese with no
English word left in it (units, ids and names aside)."""

import re
import string

import pytest

from app.dashboard.lib.i18n import CATALOGUES, LANGS, LOCALE_DIRS, load_file, reason, t
from app.dashboard.lib.params import Why
from engine.errors import EngineInputError
from engine.what_if import derive_what_if, parse_what_if

from .test_i18n import untranslated

# a value for every field a message may take: Chinese-free and English-free stand-ins
SAMPLE = {"low": "1", "high": "65,536", "allowed": "1, 2, 4, 8", "n": "8", "heads": "32", "name": "fast",
          "text": "", "label": "M", "typed": "0", "shown": "8,192", "v": "32"}  # fmt: skip


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_language_has_the_same_keys_and_fields():
    keys = set(CATALOGUES["en"])
    for lang in LANGS:
        assert set(CATALOGUES[lang]) == keys, lang
    for key in keys:
        assert fields(CATALOGUES["zh"][key]) == fields(CATALOGUES["en"][key]), key


@pytest.mark.parametrize("folder", LOCALE_DIRS, ids=lambda folder: folder.parent.name)
def test_each_page_catalogue_has_the_same_keys_in_every_language(folder):
    english = load_file(folder / "en.json")
    assert english, folder
    for lang in LANGS:
        assert set(load_file(folder / f"{lang}.json")) == set(english), (folder, lang)


def test_every_page_keeps_its_own_catalogue_and_no_key_lives_twice():
    pages = {folder.parent.name for folder in LOCALE_DIRS}
    assert {"lib", "roofline", "ops", "training", "serving"} <= pages
    sizes = sum(len(load_file(folder / "en.json")) for folder in LOCALE_DIRS)
    assert sizes == len(CATALOGUES["en"])  # the merge refuses a repeated key; this checks none was lost


def test_every_message_code_renders_in_both_languages_and_the_chinese_is_chinese():
    codes = [key.removeprefix("why_") for key in CATALOGUES["en"] if key.startswith("why_")]
    assert len(codes) >= 15
    for code in codes:
        # every field filled: a stand-in number where SAMPLE has none, so no brace is left unrendered
        why = Why(code, {k: SAMPLE.get(k, "7") for k in fields(CATALOGUES["en"][f"why_{code}"])})
        en, zh = reason(why, "en"), reason(why, "zh")
        assert en and zh and en != zh or code == "engine", code
        assert not untranslated(re.sub(r"\S*=\S*", "", zh)), (code, zh)  # a link's example is an id


def test_a_typed_box_is_told_in_its_own_words():
    en = t("box_invalid", "en", **SAMPLE)
    assert en == "M must be 1–65,536 (you typed 0); still showing 8,192."
    zh = t("box_invalid", "zh", **SAMPLE)
    assert "你输入了 0" in zh and "仍显示 8,192" in zh and not untranslated(zh.removeprefix("M "))  # M: a name
    for key in ("batch_invalid", "context_invalid"):
        assert "{typed}" in CATALOGUES["en"][key] and "{typed}" in CATALOGUES["zh"][key]


@pytest.mark.parametrize("text", ["x:abc:1", "x:1", "h100-sxm5:2:500", "BAD:1:1", "x:1:1:-5", "x:1:1:80:nan", ""])
def test_engine_errors_are_said_from_their_code_in_both_languages(text):
    with pytest.raises(EngineInputError) as caught:
        parse_what_if(text)
    error = caught.value
    assert error.code and f"engine_{error.code}" in CATALOGUES["en"] and error.params["field"] == "xhw"
    en, zh = reason(error, "en"), reason(error, "zh")
    assert en != zh and "<name>:<bandwidth TB/s>" in en  # the format, in the box's words
    assert not untranslated(re.sub(r"'[^']*'|<[^>]*>", "", zh)), zh  # values and the format's slots aside


def test_a_scale_factor_error_has_its_code_too():
    from engine.hardware import get_accelerator

    with pytest.raises(EngineInputError) as caught:
        derive_what_if(get_accelerator("h100-sxm5"), 0, 1)
    assert caught.value.code == "what_if_factor" and "倍数" in reason(caught.value, "zh")


@pytest.mark.parametrize(
    "setup",
    [
        {"tokens_per_step": 262144, "micro_batch_size": 3},  # 8 sequences per GPU: 3 does not divide them
        {"tokens_per_step": 262145},  # not whole sequences
        {"gpus": 1, "sequence_length": 1, "tokens_per_step": 2**21},  # over the sequences per GPU limit
    ],
)
def test_training_errors_are_said_from_their_code(setup):
    from engine.training import TrainingSetup

    with pytest.raises(EngineInputError) as caught:
        TrainingSetup(**({"gpus": 8, "sequence_length": 4096, "step_time_s": 3.64} | setup))
    error = caught.value
    assert error.code and f"engine_{error.code}" in CATALOGUES["zh"]
    zh = reason(error, "zh")
    assert zh.startswith(error.params["field"] + "：") and not untranslated(
        zh.split("：", 1)[1].replace("gpus x sequence_length", "")
    )


# Latin words an engine message may keep in Chinese: field and parameter names, product names, "x" (times)
ENGINE_NAMES = {"x", "vLLM", "ZeRO", "Unicode", "nccl-tests", "all_reduce_perf", "busbw", "NVLink", "in_channels",
                "out_channels", "groups", "gpus", "sequence_length", "nominal", "measured", "JSON", "true", "false",
                "config", "json", "MLA", "KV", "GiB", "name", "flops", "bytes",
                "phase", "hardware", "tensor", "vector", "ms", "ph", "cat", "ncu", "csv", "null", "mistral",
                "gemma2", "id", "CSV", "Self", "CUDA", "CPU", "total", "YAML", "aiconfigurator",
                "silicon"}  # fmt: skip
ENGINE_SAMPLE = SAMPLE | {"field": "tensor_parallel", "value": "0", "hardware": "h100-sxm5", "size": "8",
                          "interconnect": "NVLink", "pcie": "8", "max": "131,072", "rate": "1e+06", "step": "3",
                          "tokens": "4,096", "gpus": "8", "node": "8", "seq": "4,096", "per_step": "32,768",
                          "sequences": "8", "micro": "3", "cin": "64", "cout": "64", "groups": "3", "kernel": "7",
                          "height": "4", "width": "4", "part": "bandwidth", "kv": "8", "hidden": "4096",
                          "model_type": "qwen3", "moe": "8", "experts": "64", "weights": "15.0",
                          "usable": "72.0", "utilization": "0.9", "bound": "> 0", "missing": "flops",
                          "rule": "vLLM gpu_memory_utilization 0.9", "fits": "2",
                          "line": "3", "cells": "3", "columns": "4", "steps": "2",
                          "detail": "Field required", "nearest": "llama-3-8b, qwen3-8b"}  # fmt: skip


def test_every_engine_code_renders_in_both_languages_and_the_chinese_is_chinese():
    codes = [key.removeprefix("engine_") for key in CATALOGUES["en"] if key.startswith("engine_")]
    assert len(codes) >= 35
    for code in codes:
        error = EngineInputError("tensor_parallel", "x", code=code, params=ENGINE_SAMPLE)
        en, zh = reason(error, "en"), reason(error, "zh")
        assert en != zh and not re.search(r"\{[a-z_]+\}", en + zh), code  # every field filled
        words = untranslated(re.sub(r"'[^']*'|<[^>]*>|\S*_\S*", "", zh)) - ENGINE_NAMES  # ids: quoted, snake_case
        assert not words, (code, zh)


@pytest.mark.parametrize(
    "call",
    [
        lambda: __import__("engine.analysis", fromlist=["Scenario"]).Scenario(batch_size=0, context_length=8),
        lambda: __import__("engine.hardware", fromlist=["x"]).get_accelerator("rtx-4090").check_tensor_parallel(64),
        lambda: __import__("engine.precision", fromlist=["x"]).check_dtype("fp3", "precision"),
    ],
)
def test_page_reachable_engine_errors_carry_a_code(call):
    with pytest.raises(EngineInputError) as caught:
        call()
    assert caught.value.code and f"engine_{caught.value.code}" in CATALOGUES["zh"]
    assert caught.value.params["field"] in reason(caught.value, "zh")
