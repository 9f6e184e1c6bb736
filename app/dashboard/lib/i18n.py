"""Every visible string in English and 简体中文 (`lang=zh`): the catalogues are
locales/<lang>.json (one key, one sentence; str.format fields in braces)."""

from __future__ import annotations

import json
import re
from pathlib import Path

LANGS = ("en", "zh")
LOCALES = Path(__file__).resolve().parent / "locales"


def _load(lang: str) -> dict[str, str]:
    return json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8"))


CATALOGUES: dict[str, dict[str, str]] = {lang: _load(lang) for lang in LANGS}
# key -> {lang: text}: the shape the tests and older callers read
STRINGS: dict[str, dict[str, str]] = {
    key: {lang: CATALOGUES[lang][key] for lang in LANGS if key in CATALOGUES[lang]} for key in CATALOGUES["en"]
}


# Why a link's parameter was ignored (url_state) and the engine's input errors, in Chinese:
# ordered (pattern, replacement) pairs, whole reasons first, then the fragments engine
# messages are built from. English text passes through unchanged.
REASONS_ZH: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"^unknown accelerator$", "未知的加速器"),
        (r"^unknown model$", "未知的模型"),
        (r"^unknown parameter$", "未知参数"),
        (r"^not an integer in (\S+)\.\.(\S+)$", r"不是 \1..\2 之间的整数"),
        (r"^not a positive integer$", "不是正整数"),
        (r"^0 or 1$", "应为 0 或 1"),
        (r"^1, 2, 4 or 8$", "应为 1、2、4 或 8"),
        (
            r"^nominal or measured, optionally with hierarchy \(measured,hierarchy\)$",
            "应为 nominal 或 measured，可附加 hierarchy（measured,hierarchy）",
        ),
        (r"^a fraction in 0\.01\.\.1$", "应为 0.01..1 之间的比例"),
        (r"^a measured decode step in ms$", "应为实测的 decode 单步耗时（毫秒）"),
        (r"^output tokens, an integer in 1\.\.(\S+)$", r"输出 token 数，应为 1..\1 之间的整数"),
        (r"^USD per GPU-hour, above 0 and at most (\S+)$", r"每 GPU 小时的美元价格，应大于 0 且不超过 \1"),
        (r"^en or zh$", "应为 en 或 zh"),
        (r"^light or dark$", "应为 light 或 dark"),
        (r"^at most (\d+) accelerators at once, what-ifs included$", r"最多同时显示 \1 个加速器（含假想加速器）"),
        (r"^at most (\d+) accelerators at once$", r"最多同时显示 \1 个加速器"),
        (r"^a custom model needs its config in cfg=$", "自定义模型需要在 cfg= 中给出配置"),
        (r"^an MLA model caches a latent, not KV heads$", "MLA 模型缓存的是潜向量，没有可设置的 KV 头"),
        (r"^must divide the (\d+) query heads$", r"必须整除 \1 个查询头"),
        (r"^must divide the (\d+) attention heads$", r"必须整除 \1 个注意力头"),
        (r"^a second what-if named (.+)$", r"已有同名的假想加速器 \1"),
        (r"^a scenario such as (.+)$", r"应为一个场景，例如 \1"),
        (r"^a pin holds only (.+)$", r"固定场景只能包含 \1"),
        (r"^one of (.+)$", r"应为以下之一：\1"),
        # fragments of engine messages (engine.errors: "field: message (allowed: ...)")
        (r" \(allowed: (.+)\)$", r"（允许：\1）"),
        (r"^bandwidth \(TB/s\) ", "带宽（TB/s）"),
        (r"^memory \(GB\) ", "显存（GB）"),
        (r"^name ", "名称 "),
        (r"'([^']*)' in '([^']*)'", r"'\1'（在 '\2' 中）"),
        (r", e\.g\. ", "，例如 "),
        (r"is not a number in", "不是以下范围内的数："),
        (r"has (\d+) part\(s\), not 3, 4 or 5", r"有 \1 段，应为 3、4 或 5 段"),
        (r"is a catalogue id; a what-if needs its own name", "是目录中的加速器 id；假想加速器需要自己的名字"),
        (
            r"must be 1-48 lower-case letters, digits, '\.' or single '-'",
            "必须为 1-48 个小写字母、数字、'.' 或单个 '-'",
        ),
        (r"lists no GPU-to-GPU link bandwidth", "没有列出 GPU 间互连带宽"),
        (r"is not a factor in \[0\.01, 100\]", "不是 [0.01, 100] 之间的倍数"),
        (
            r"^tokens_per_step: ([\d,]+) tokens is ([\d,]+) sequences per GPU per step",
            r"tokens_per_step：\1 个 token 即每卡每步 \2 条序列",
        ),
        (r"at most ([\d,]+) sequences per GPU per step", r"每卡每步最多 \1 条序列"),
        (r"does not divide", "不能整除"),
        (r"the weights alone", "仅权重"),
    )
)


def reason(text: object, lang: str) -> str:
    """Why a value was refused, in the page's language: a `Why` (lib/params.py) from its code
    in the catalogue; an engine message's text through REASONS_ZH."""
    code = getattr(text, "code", None)
    if isinstance(text, Exception):  # the engine's: its code when it has one, else its words
        if code is not None and f"engine_{code}" in CATALOGUES["en"]:
            return engine_message(text, lang)
        text = str(text)
    elif code is not None:
        params = dict(text.params)
        if code == "engine":
            params["text"] = reason(str(params.get("text", "")), lang)
        return t(f"why_{code}", lang, **params)
    text = str(text)
    if lang != "zh":
        return text
    for pattern, replacement in REASONS_ZH:
        text = pattern.sub(replacement, text)
    return text


def engine_message(error: Exception, lang: str) -> str:
    """An engine error from its code and parameters (engine/errors.py), in the page's language."""
    params = {**error.params, "format": t("what_if_short_form", lang)}
    if "part" in params:
        params["part"] = t(f"what_if_part_{params['part']}", lang)
    return t(f"engine_{error.code}", lang, **params)


def t(key: str, lang: str, **values: object) -> str:
    entry = STRINGS[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**values) if values else text
