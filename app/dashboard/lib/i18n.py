"""Every visible string in English and 简体中文 (`lang=zh`). The catalogues are JSON files, one
per language and page: lib/locales/<lang>.json holds the words every page shares (the shell, the
components, the engine's error codes, the link's `why_*` reasons), and each page keeps its own in
pages/<page>/locales/<lang>.json. One key, one sentence; str.format fields in braces. A key lives
in exactly one file, so a page's words are found beside its code."""

from __future__ import annotations

import json
from pathlib import Path

from app.units import plain

LANGS = ("en", "zh")
DASHBOARD = Path(__file__).resolve().parent.parent
# The shared catalogue first, then each page's, in a fixed order.
LOCALE_DIRS: tuple[Path, ...] = (DASHBOARD / "lib" / "locales", *sorted(DASHBOARD.glob("pages/*/locales")))


def load_file(path: Path) -> dict[str, str]:
    return json.loads(path.read_text(encoding="utf-8"))


def _merge(lang: str) -> dict[str, str]:
    """One language's catalogues merged; a key defined in two files is a mistake, refused here."""
    merged: dict[str, str] = {}
    for folder in LOCALE_DIRS:
        own = load_file(folder / f"{lang}.json")
        twice = sorted(set(own) & set(merged))
        if twice:
            raise ValueError(f"{folder / lang}.json repeats keys defined earlier: {twice[:5]}")
        merged.update(own)
    return merged


CATALOGUES: dict[str, dict[str, str]] = {lang: _merge(lang) for lang in LANGS}
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
    # a count as the page writes one (1,020), as the engine's own words do
    counts = {k: f"{v:,}" for k, v in error.params.items() if isinstance(v, int) and not isinstance(v, bool)}
    params = {**error.params, **counts, "format": t("what_if_short_form", lang)}
    if "part" in params:
        params["part"] = t(f"what_if_part_{params['part']}", lang)
    return t(f"engine_{error.code}", lang, **params)


def t(key: str, lang: str, **values: object) -> str:
    entry = STRINGS[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**values) if values else text


def shown_value(value: object, lang: str) -> str:
    """The value a page uses instead of a refused one, as the reader would write it: 4,096; 0.9;
    "unset" for an optional one left empty."""
    if value is None:
        return t("box_unset", lang)
    return plain(value) if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)


def box_sentence(label: str, limits: dict, typed: str | None, shown: str, lang: str, open_low: bool = False) -> str:
    """A number box's refused value in its own words: "Concurrency must be 1–4,096 (you typed
    0); still showing 64." (`limits`: the refusal's low and high, as its Why says them). typed
    None: the browser sent no number (one outside the box's min and max), so none is quoted."""
    key = "box_refused" if typed is None else "box_invalid_open" if open_low else "box_invalid"
    return t(key, lang, label=label, low=limits.get("low", ""), high=limits.get("high", ""), typed=typed, shown=shown)
