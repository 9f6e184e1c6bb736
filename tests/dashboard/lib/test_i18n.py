"""The Chinese page says why a link's parameter was ignored in Chinese: every reason the
parameter table can give is translated, and the glossary's keys exist in both languages."""

import re

import pytest

from app.dashboard.lib.i18n import STRINGS, reason
from app.dashboard.pages.roofline.state import view_from_search

HOSTILE = (
    "hw=nope&model=x&batch=0&ctx=-1&kv=7&prec=zz&kvprec=q&fa=2&tp=3&roofs=q&bweff=3&step=-1&out=0&price=-1"
    "&memutil=5&published=9&lang=fr&theme=blue&foo=1&embed=x&tab=nope&pin=zz%3D1"
)
# what may stay in Latin letters inside a translated reason: the values, units and ids it names
ALLOWED_LATIN = {"bf16", "fp16", "fp8", "int8", "int4", "fp4", "nominal", "measured", "hierarchy", "en", "zh",
                 "light", "dark", "roofline", "ops", "training", "serving", "plan", "cfg", "model", "batch", "ctx",
                 "kv", "prec", "kvprec", "fa", "tp", "ms", "MLA", "KV", "decode", "GPU", "token", "id", "TB", "GB", "s",
                 "TFLOP", "name", "bandwidth", "memory", "fast", "what", "if", "e", "g"}  # fmt: skip


def untranslated(text: str) -> set[str]:
    """English words left in a reason; quoted values ('a:b:c'), ids with digits (int4) and
    Hugging Face repo ids (MiniMaxAI/MiniMax-M2) aside."""
    text = re.sub(r"'[^']*'|[\w.-]+/[\w.-]+", "", text)
    return {
        w for w in re.findall(r"[A-Za-z][A-Za-z0-9_-]*", text) if w not in ALLOWED_LATIN and not re.search(r"\d", w)
    }


def test_every_reason_a_link_can_get_is_translated():
    view = view_from_search(HOSTILE)
    assert len(view.notices) >= 20
    for name, _value, why in view.notices:
        zh = reason(why, "zh")
        assert zh != why and not untranslated(zh), (name, why, zh)


@pytest.mark.parametrize(
    "query",
    ["xhw=a:b:c", "xhw=h100-sxm5:1:1", "xhw=x:1", "xhw=BAD:1:1", "kv=3&model=deepseek-v3", "tp=8&model=gemma-2-27b"],
)
def test_engine_messages_in_links_are_translated(query):
    for _name, _value, why in view_from_search(query).notices:
        zh = reason(why, "zh")
        assert not untranslated(zh.split("（允许：")[0]), (why, zh)


def test_english_passes_through_and_every_string_has_both_languages():
    assert reason("unknown model", "en") == "unknown model"
    assert all({"en", "zh"} <= set(entry) for entry in STRINGS.values())
