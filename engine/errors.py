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
    """An id (model or accelerator) that is not in the catalogue; the API answers 404."""

    def __init__(self, kind: str, given: str, known: list[str]):
        self.kind = kind
        self.given = given
        self.known = known
        ValueError.__init__(self, f"unknown {kind} id '{given}'")
        self.field = kind
        self.allowed = known
