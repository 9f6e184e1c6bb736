"""The one error type the engine raises for bad input, and how echoed text is shown."""

from __future__ import annotations

# Unicode's bidirectional controls (UAX #9: embeddings, overrides, isolates, marks): echoed raw,
# U+202E RIGHT-TO-LEFT OVERRIDE makes what follows read backwards in a terminal or a page
# ("Trojan Source", Boucher & Anderson 2021).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _hidden(c: str) -> bool:
    """A character that must not be echoed as itself: a bidi control, a C0/C1 control (a
    newline among them), a line or paragraph separator, or a lone surrogate (not UTF-8)."""
    n = ord(c)
    return c in BIDI_CONTROLS or n < 32 or 127 <= n < 160 or n in (0x2028, 0x2029) or 0xD800 <= n <= 0xDFFF


def visible(text: str) -> str:
    """`text` with each hidden character escaped as \\uXXXX, so an echoed name shows what was
    sent and can neither reorder nor break the line it is echoed in. Every error message and
    every echo of user text goes through it."""
    if text.isprintable():  # the common case; every hidden character is non-printable
        return text
    return "".join(f"\\u{ord(c):04x}" if _hidden(c) else c for c in text)


class EngineInputError(ValueError):
    """Bad input: names the field, what was given and what is allowed.

    The CLI prints the message; the API turns it into a 4xx with the same words. `code` and
    `params` say the same for a reader in another language (pydantic's `type` and `ctx`): the
    dashboard renders `engine_<code>` from its catalogue with `params`; without a code the
    English message is all there is.
    """

    def __init__(
        self, field: str, message: str, allowed: object = None, *, code: str | None = None, params: dict | None = None
    ):
        self.field = field
        self.allowed = allowed
        self.code = code
        self.params = _visible_params({"field": field, **(params or {})})
        text = f"{field}: {message}"
        if allowed is not None:
            text += f" (allowed: {allowed})"
        super().__init__(visible(text))

    def under(self, prefix: str) -> EngineInputError:
        """The same error with its field named under `prefix` (a side of a deployment:
        disaggregated.prefill), unless it is named there already."""
        if self.field.startswith(prefix.split(".")[0]):
            return self
        return self.named(f"{prefix}.{self.field}")

    def named(self, field: str) -> EngineInputError:
        """The same error (its type, words and code) with its field named `field`."""
        text = str(self)
        out = type(self).__new__(type(self))  # not __init__: every attribute is this one's already
        out.__dict__.update(self.__dict__)
        out.field, out.params = field, {**self.params, "field": field}
        ValueError.__init__(out, field + text[len(self.field) :] if text.startswith(self.field) else text)
        return out


class UnknownIdError(EngineInputError):
    """An id (model or accelerator) that is not in the catalogue. The API answers an unknown
    accelerator with 404 and an unknown model with 422 (engine.model_catalog.UnknownModelError,
    which names the nearest known ones); `params` hold `value`, the id given."""

    def __init__(self, kind: str, given: str, known: list[str], *, code: str | None = None, params: dict | None = None):
        self.kind = kind
        self.given = given = visible(given)
        self.known = known
        ValueError.__init__(self, f"unknown {kind} id '{given}'")
        self.field = kind
        self.allowed = known
        self.code = code
        self.params = _visible_params({"field": kind, "value": given, **(params or {})})


def _visible_params(params: dict) -> dict:
    return {k: visible(v) if isinstance(v, str) else v for k, v in params.items()}


# pydantic's bound checks and the comparison each one states
_BOUNDS = {
    "greater_than": ("gt", ">"),
    "greater_than_equal": ("ge", ">="),
    "less_than": ("lt", "<"),
    "less_than_equal": ("le", "<="),
}


def schema_error(origin: str, first: dict) -> EngineInputError:
    """A catalogue file's first schema error (a pydantic error dict: `loc`, `msg`, `type`, `ctx`)
    as an EngineInputError naming the file and the field, with a code: a missing field, a field
    the schema does not have, a number out of its bound, or anything else in pydantic's words."""
    where = ".".join(str(p) for p in first.get("loc", ())) or "(top level)"
    field = f"{origin}: {where}"
    kind, ctx = first.get("type", ""), first.get("ctx") or {}
    message = str(first.get("msg", "invalid"))
    value = repr(first.get("input"))[:40]
    if kind == "missing":
        return EngineInputError(field, message, code="schema_missing")
    if kind == "extra_forbidden":
        return EngineInputError(field, message, code="schema_extra")
    if kind in _BOUNDS and _BOUNDS[kind][0] in ctx:
        key, sign = _BOUNDS[kind]
        limit = ctx[key]
        bound = f"{sign} {limit:g}" if isinstance(limit, float) else f"{sign} {limit}"
        return EngineInputError(field, message, code="schema_bound", params={"value": value, "bound": bound})
    return EngineInputError(field, message, code="schema_invalid", params={"value": value, "detail": message[:200]})
