"""Callbacks declared at module level, with keyword inputs and outputs (Dash's flexible
signatures), registered on an app by the page's `register(app)`.

The declared function stays a plain function: a unit test calls it with plain values and
reads the dict it returns. What Dash knows only inside a request (which input fired) reaches
the function as its `trigger` keyword, so the test passes that too.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from dash import ClientsideFunction, ctx


@dataclass
class Callbacks:
    """One page's callbacks: `@CALLBACKS.server(output=..., inputs=...)` above a function,
    `CALLBACKS.client(namespace, function, ...)` for one in assets/, `register(app)` once."""

    declared: list = field(default_factory=list)

    def server(self, *, output: dict, inputs: dict, state: dict | None = None, prevent_initial_call: bool = True):
        def declare(fn):
            spec = {"output": output, "inputs": inputs, "prevent_initial_call": prevent_initial_call}
            if state:
                spec["state"] = state
            self.declared.append(("server", fn, spec))
            return fn

        return declare

    def client(self, namespace: str, function: str, *dependencies, prevent_initial_call: bool = True) -> None:
        """A clientside callback (assets/*.js `dash_clientside.<namespace>.<function>`)."""
        spec = (ClientsideFunction(namespace, function), dependencies, prevent_initial_call)
        self.declared.append(("client", None, spec))

    def register(self, app) -> None:
        for kind, fn, spec in self.declared:
            if kind == "server":
                app.callback(**spec)(_with_trigger(fn))
            else:
                function, dependencies, prevent = spec
                app.clientside_callback(function, *dependencies, prevent_initial_call=prevent)


def _with_trigger(fn):
    """fn(**inputs) as Dash calls it, with `trigger` (the id of the input that fired) added
    when fn asks for it."""
    if "trigger" not in inspect.signature(fn).parameters:
        return fn

    def run(**inputs):
        return fn(**inputs, trigger=ctx.triggered_id)

    run.__name__ = fn.__name__
    return run
