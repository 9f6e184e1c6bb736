"""An engine input error as an HTTP answer: the status, the field and the words the engine used.

- an unknown model (engine.model_catalog.UnknownModelError): 422 naming the field `model`, with
  `nearest` (the known names most like it, best first) and `known_ids` (every preset id);
- an unknown accelerator: 404 with `known_ids` (the catalogue is the resource that lacks it);
- any other bad input: 422 naming the field.
"""

from __future__ import annotations

from fastapi.responses import JSONResponse

from engine.errors import EngineInputError, UnknownIdError
from engine.model_catalog import UnknownModelError


def engine_error_response(exc: EngineInputError) -> JSONResponse:
    body: dict = {"detail": str(exc), "errors": [{"field": exc.field, "message": str(exc)}]}
    if not isinstance(exc, UnknownIdError):
        return JSONResponse(body, status_code=422)
    body["known_ids"] = exc.known
    if isinstance(exc, UnknownModelError):
        return JSONResponse(body | {"nearest": exc.nearest}, status_code=422)
    return JSONResponse(body, status_code=404)
