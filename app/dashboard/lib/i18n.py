"""Every visible string in English and 简体中文 (`lang=zh`): the catalogues are
locales/<lang>.json (one key, one sentence; str.format fields in braces)."""

from __future__ import annotations

import json
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


def reason(text: object, lang: str) -> str:
    """Why a value was refused, in the page's language, from its code: a `Why` (lib/params.py)
    renders `why_<code>`, an engine error (engine/errors.py) `engine_<code>`. An engine error
    without a code, or plain text, is shown in its own (English) words."""
    code = getattr(text, "code", None)
    if isinstance(text, Exception):
        if code is not None and f"engine_{code}" in CATALOGUES["en"]:
            return engine_message(text, lang)
        return str(text)
    if code is not None:
        params = dict(text.params)
        if code == "engine":  # an engine error a link's parameter met: its own code, or its words
            params["text"] = reason(params.get("text", ""), lang)
        return t(f"why_{code}", lang, **params)
    return str(text)


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
