"""Every input error the engine and the app build carries a code the dashboard renders in each
language, and the API hands to its clients (app/api/errors.py).

Walks engine/ and app/ with `ast`: each call of EngineInputError, UnknownIdError or UnknownModelError
must pass `code=`; a literal code must have its `engine_<code>` message in the English and the
Chinese catalogue, and where the call's params are a literal dict, they must fill every field
that message names. Internal ValueErrors (a pydantic validator's) are not user input errors and
are not checked."""

import ast
import string
from pathlib import Path

import pytest

from app.dashboard.lib.i18n import CATALOGUES

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
ERROR_TYPES = {"EngineInputError", "UnknownIdError", "UnknownModelError"}
# params every error fills itself (engine/errors.py, engine/model_catalog.py) or the renderer adds
# (app/dashboard/lib/i18n.py: `format`, the what-if form)
IMPLICIT = {
    "EngineInputError": {"field", "format"},
    "UnknownIdError": {"field", "format", "value"},
    "UnknownModelError": {"field", "format", "value", "nearest"},
}
SOURCES = sorted([*ENGINE.rglob("*.py"), *(ROOT / "app").rglob("*.py")])


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def error_calls(path: Path) -> list[tuple[int, str, dict[str, ast.expr], bool]]:
    """(line, error type, keyword arguments, has a ** argument) of each error built in `path`."""
    calls = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and _name(node.func) in ERROR_TYPES:
            keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
            spread = any(k.arg is None for k in node.keywords)
            calls.append((node.lineno, _name(node.func), keywords, spread))
    return calls


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def problems(path: Path) -> list[str]:
    found = []
    where = path.relative_to(ROOT)
    for line, kind, keywords, spread in error_calls(path):
        code = keywords.get("code")
        if code is None:
            if not spread:
                found.append(f"{where}:{line}: {kind}(...) without code=")
            continue
        if not isinstance(code, ast.Constant):
            continue  # a code chosen at run time (e.g. tp_domain / tp_no_domain): checked by its tests
        key = f"engine_{code.value}"
        missing = [lang for lang in ("en", "zh") if key not in CATALOGUES[lang]]
        if missing:
            found.append(f"{where}:{line}: {key} missing from the {', '.join(missing)} catalogue")
            continue
        params = keywords.get("params")
        given = set(IMPLICIT[kind])
        if isinstance(params, ast.Dict) and None not in params.keys:
            given |= {k.value for k in params.keys if isinstance(k, ast.Constant)}
        elif params is not None:
            continue  # built at run time: rendered by the tests that raise it
        unfilled = fields(CATALOGUES["en"][key]) - given
        if unfilled:
            found.append(f"{where}:{line}: {key} needs params {sorted(unfilled)}")
    return found


def test_the_walk_finds_the_errors_it_checks():
    catalogue = ENGINE / "model_catalog.py"
    kinds = {kind for _, kind, _, _ in error_calls(catalogue)}
    assert kinds == {"EngineInputError", "UnknownModelError"}
    assert len([c for p in SOURCES for c in error_calls(p)]) >= 150


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_engine_error_has_a_code_its_catalogue_message_and_the_params_it_names(path):
    assert not problems(path), "\n".join(problems(path))
