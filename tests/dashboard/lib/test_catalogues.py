"""The catalogues (lib/locales/<lang>.json): the same keys and the same fields in every
language, and every message code rendered in English and in Chinese, the Chinese with no
English word left in it (units, ids and names aside)."""

import re
import string

import pytest

from app.dashboard.lib.i18n import CATALOGUES, LANGS, reason, t
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


def test_every_message_code_renders_in_both_languages_and_the_chinese_is_chinese():
    codes = [key.removeprefix("why_") for key in CATALOGUES["en"] if key.startswith("why_")]
    assert len(codes) >= 15
    for code in codes:
        why = Why(code, {k: v for k, v in SAMPLE.items() if k in fields(CATALOGUES["en"][f"why_{code}"])})
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
