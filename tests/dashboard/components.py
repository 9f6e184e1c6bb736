"""Helpers for tests that read a page's Dash component tree."""


def walk(component):
    """Every Dash component under `component`, itself first."""
    if isinstance(component, (list, tuple)):
        for c in component:
            yield from walk(c)
    elif component is not None and not isinstance(component, (str, int, float, bool)):
        yield component
        yield from walk(getattr(component, "children", None))
