"""/docs and /redoc render in Chromium from this app alone, under its own CSP (item
9): the network guard of conftest.context fails the test on any request off 127.0.0.1, and a
CSP violation or page error fails it too."""

import pytest
from playwright.sync_api import Page


@pytest.fixture
def problems(page: Page) -> list[str]:
    seen: list[str] = []
    page.on("pageerror", lambda exc: seen.append(f"pageerror: {exc}"))
    page.on(
        "console",
        lambda msg: (
            seen.append(f"console: {msg.text}")
            if msg.type == "error" or "Content Security Policy" in msg.text
            else None
        ),
    )
    return seen


def test_swagger_ui_renders_the_operations(page: Page, base_url, problems):
    page.goto(base_url + "/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=20_000)
    paths = page.locator(".opblock-summary-path").all_text_contents()
    assert any("/api/v1/analyze" in p for p in paths) and any("/healthz" in p for p in paths)
    assert not problems, problems


def test_redoc_renders_the_operations(page: Page, base_url, problems):
    page.goto(base_url + "/redoc")
    heading = page.locator("h2", has_text="Decode and prefill on the roofline").first
    heading.wait_for(timeout=20_000)
    assert page.get_by_text("/api/v1/analyze").count() >= 1
    assert not problems, problems
