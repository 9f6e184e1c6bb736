"""An engine input error as an HTTP answer: the status, the field and the words the engine used.

- an unknown model (engine.model_catalog.UnknownModelError): 422 naming the field `model`, with
  `nearest` (the known names most like it, best first) and `known_ids` (every preset id);
- an unknown accelerator: 404 with `known_ids` (the catalogue is the resource that lacks it);
- any other bad input: 422 naming the field.

Each item of `errors` also carries the error's `code` and `params`, the same the dashboard
renders in its languages (`engine_<code>` in app/dashboard/lib/locales): a client can say it in
its own words, or key on it, without parsing English.
"""

from __future__ import annotations

from fastapi.responses import JSONResponse

from engine.errors import EngineInputError, UnknownIdError, visible
from engine.model_catalog import UnknownModelError


def engine_error_response(exc: EngineInputError) -> JSONResponse:
    item = {"field": exc.field, "message": str(exc), "code": exc.code, "params": json_safe(exc.params)}
    body: dict = {"detail": str(exc), "errors": [item]}
    if not isinstance(exc, UnknownIdError):
        return JSONResponse(body, status_code=422)
    body["known_ids"] = exc.known
    if isinstance(exc, UnknownModelError):
        return JSONResponse(body | {"nearest": exc.nearest}, status_code=422)
    return JSONResponse(body, status_code=404)


def json_safe(params: dict | None) -> dict:
    """An error's parameters as JSON: numbers, booleans and lists of them as they are, text and
    anything else (an exception pydantic keeps in `ctx`) as its text with its bidi and control
    characters escaped (engine.errors.visible)."""

    def plain(value: object) -> object:
        if isinstance(value, str):
            return visible(value)
        if value is None or isinstance(value, bool | int | float):
            return value
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return visible(str(value))

    return {str(k): plain(v) for k, v in (params or {}).items()}
