"""shell.py: each page's URL is answered with Streamlit's index.html plus the frontend's host config."""

from __future__ import annotations

import asyncio
import re

import pytest
from starlette.applications import Starlette

import shell
from tests.harness import PAGES, ROOT


def call(app, url: str, method: str = "GET") -> tuple[int, dict[str, str], str]:
    """One HTTP request through an ASGI app, as a server would make it: status, headers, body."""
    path, _, query = url.partition("?")
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": "",
             "query_string": query.encode(), "headers": [], "scheme": "http", "http_version": "1.1",
             "server": ("testserver", 80), "client": ("testclient", 1), "asgi": {"version": "3.0"}}  # fmt: skip
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    headers = {key.decode(): value.decode() for key, value in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:]).decode()


def test_the_routes_cover_exactly_the_router_url_paths():
    """Each st.Page's url_path is its file name, so shell.page_names() lists the router's paths ("home" is "/")."""
    router = (ROOT / "router.py").read_text(encoding="utf-8")
    listed = set(re.findall(r'url_path="([^"]+)"', router)) - {"home"}
    assert listed == set(shell.page_names()) == set(PAGES)
    files = dict(re.findall(r'st\.Page\("pages/(\w+)\.py"[^)]*url_path="(\w+)"', router))
    assert all(name == path for name, path in files.items() if path != "home"), files


def test_the_host_config_comes_first_in_the_head_and_only_once():
    page = shell.index_html()
    assert page.count(shell.HOST_CONFIG) == 1
    head = page.index("<head>")
    assert head < page.index(shell.HOST_CONFIG) < page.index('<script type="module"')
    assert page.replace("\n    " + shell.HOST_CONFIG, "", 1) == shell.STREAMLIT_INDEX.read_text(encoding="utf-8")


def test_an_index_without_a_plain_head_tag_is_served_unchanged(tmp_path):
    odd = tmp_path / "index.html"
    odd.write_text("<html><HEAD></HEAD><body></body></html>", encoding="utf-8")
    assert shell.index_html(odd) == odd.read_text(encoding="utf-8")


@pytest.mark.parametrize("base", ["", "posviz", "/posviz/"])
def test_the_routes_answer_the_root_and_each_page_and_nothing_else(base):
    app = Starlette(routes=shell.routes(base))
    prefix = "/posviz" if base else ""
    for path in [f"{prefix}/", *(f"{prefix}/{name}" for name in PAGES)]:
        status, headers, body = call(app, path + "?presenter=true")
        assert status == 200, path
        assert shell.HOST_CONFIG in body and headers["cache-control"] == "no-cache"
        assert call(app, path, "HEAD")[0] == 200
    for other in ["/favicon.png", f"{prefix}/nope", f"{prefix}/attention/_stcore/health", f"{prefix}/static/x.js"]:
        assert call(app, other)[0] == 404, other  # left to Streamlit's own routes
    if base:
        assert call(app, "/attention")[0] == 404


def test_the_host_config_names_the_folder_of_the_page_url():
    """The script's rule, new URL(".", href), evaluated as a browser would for the routes' shapes."""
    from urllib.parse import urljoin

    assert 'new URL(".", location.href)' in shell.HOST_CONFIG
    for href, root in [
        ("http://h:8501/", "http://h:8501/"),
        ("http://h:8501/attention?presenter=true", "http://h:8501/"),
        ("https://h/posviz/attention", "https://h/posviz/"),
        ("https://h/posviz/", "https://h/posviz/"),
    ]:
        assert urljoin(href, ".") == root


def test_streamlit_app_is_an_st_app_that_streamlit_run_discovers():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "streamlit_app.py")
    assert found.is_asgi_app and found.app_name == "app"
