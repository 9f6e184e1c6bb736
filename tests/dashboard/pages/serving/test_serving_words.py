"""The Serving page's catalogue (pages/serving/locales): the same keys and fields in English
and Chinese, the three words distinct in both, and every word the page asks for present."""

import re
import string
from pathlib import Path

from app.dashboard.pages.serving.words import CATALOGUES, w

PACKAGE = Path(__file__).resolve().parents[4] / "app" / "dashboard" / "pages" / "serving"


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_same_keys_and_fields_in_both_languages():
    assert set(CATALOGUES["en"]) == set(CATALOGUES["zh"])
    for key, text in CATALOGUES["en"].items():
        assert fields(CATALOGUES["zh"][key]) == fields(text), key
        assert CATALOGUES["zh"][key] != text or key.startswith("srv_backend_"), key


def test_bound_estimate_measured_are_three_words_in_each_language():
    for lang in ("en", "zh"):
        words = {w(f"srv_{k}", lang) for k in ("bound", "estimate", "measured")}
        assert len(words) == 3


def test_every_key_the_page_names_is_in_the_catalogue():
    used = set()
    for path in PACKAGE.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'\bw\(\s*"([a-z_]+)"', text))
        used |= set(re.findall(r'serving_words\(\s*"([a-z_]+)"', text))
    mine = {k for k in used if k.startswith(("srv_", "why_"))}
    assert mine and mine <= set(CATALOGUES["en"]), mine - set(CATALOGUES["en"])
