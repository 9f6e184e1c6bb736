"""The one error type the engine raises for bad input."""


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
        self.params = {"field": field, **(params or {})}
        text = f"{field}: {message}"
        if allowed is not None:
            text += f" (allowed: {allowed})"
        super().__init__(text)


class UnknownIdError(EngineInputError):
    """An id (model or accelerator) that is not in the catalogue. The API answers an unknown
    accelerator with 404 and an unknown model with 422 (engine.model_catalog.UnknownModelError,
    which names the nearest known ones); `params` hold `value`, the id given."""

    def __init__(self, kind: str, given: str, known: list[str], *, code: str | None = None, params: dict | None = None):
        self.kind = kind
        self.given = given
        self.known = known
        ValueError.__init__(self, f"unknown {kind} id '{given}'")
        self.field = kind
        self.allowed = known
        self.code = code
        self.params = {"field": kind, "value": given, **(params or {})}


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
