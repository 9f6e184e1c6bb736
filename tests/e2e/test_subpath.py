"""Behind a reverse proxy under a sub-path (--root-path /roofline): pages, Dash bundles and
callbacks, the API and links all resolve under the prefix."""

from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page

from app.config import Settings

from .conftest import start_server
from .helpers import decode_x, wait_for_figure
from .test_dashboard import engine_decode_intensity


@pytest.fixture(scope="module")
def prefixed_url():
    server, url = start_server(Settings(root_path="/roofline"))
    yield url
    server.should_exit = True


def test_dashboard_under_a_sub_path(page: Page, prefixed_url):
    paths = []
    page.on("request", lambda r: paths.append(urlparse(r.url).path))
    page.goto(prefixed_url + "/roofline/?hw=h100-sxm5&batch=64&model=llama-3-8b&ctx=4096&prec=bf16&tp=1")
    wait_for_figure(page)
    assert decode_x(page, "h100-sxm5") == pytest.approx(engine_decode_intensity(batch_size=64, context_length=4096))
    assert any(p.endswith("/_dash-update-component") for p in paths)
    assert all(p.startswith("/roofline/") for p in paths), [p for p in paths if not p.startswith("/roofline/")]
    page.wait_for_function("() => location.pathname === '/roofline/' && location.search.includes('batch=64')")
    api = page.request.get(prefixed_url + "/roofline/api/v1/models")
    assert api.status == 200 and api.json()["items"]
    docs = page.request.get(prefixed_url + "/roofline/docs")
    assert "/roofline/openapi.json" in docs.text()
