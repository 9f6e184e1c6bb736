"""The Serving page's words in English and 简体中文: its own catalogue (locales/<lang>.json
beside this file, one key, one sentence), then the shared one (lib/i18n) for the words every
page uses."""

from __future__ import annotations

import json
from pathlib import Path

from app.dashboard.lib.i18n import LANGS, STRINGS, reason

_DIR = Path(__file__).resolve().parent / "locales"
CATALOGUES: dict[str, dict[str, str]] = {
    lang: json.loads((_DIR / f"{lang}.json").read_text(encoding="utf-8")) for lang in LANGS
}


def w(key: str, lang: str, **values: object) -> str:
    """The page's sentence `key` in `lang` (English when the language lacks it)."""
    own = CATALOGUES.get(lang, {}).get(key) or CATALOGUES["en"].get(key)
    if own is None:
        entry = STRINGS[key]
        own = entry.get(lang) or entry["en"]
    return own.format(**values) if values else own


def why(text: object, lang: str) -> str:
    """Why a value was refused: the page's own codes first, then the shared ones."""
    code = getattr(text, "code", None)
    if code is not None and f"why_{code}" in CATALOGUES["en"]:
        return w(f"why_{code}", lang, **dict(text.params))
    return reason(text, lang)
