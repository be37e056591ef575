"""shell.py: "/" and each page's path answer with Streamlit's index.html plus the script naming the server's root;
every other path is Streamlit's as before."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest
from starlette.applications import Starlette
from streamlit.web.server.starlette.starlette_app import create_streamlit_middleware
from streamlit.web.server.starlette.starlette_static_routes import create_streamlit_static_assets_routes

import shell
from tests.harness import PAGES, ROOT, routed


def call(app, url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict, bytes]:
    """One HTTP request through an ASGI app, as a server makes it: status, headers, body."""
    path, _, query = url.partition("?")
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "scheme": "http",
        "http_version": "1.1",
        "asgi": {"version": "3.0"},
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "server": ("testserver", 80),
        "client": ("testclient", 1),
    }
    first, sent = [{"type": "http.request", "body": b"", "more_body": False}], []

    async def receive():
        if first:
            return first.pop()
        await asyncio.Event().wait()  # the client stays connected until the response is sent

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    head = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], head, b"".join(m.get("body", b"") for m in sent[1:])


def streamlit_with_shell(base: str) -> Starlette:
    """PageShell in front of Streamlit's own static routes and middleware, as st.App orders them."""
    routes = [shell.PageShell(base_url_path=base), *create_streamlit_static_assets_routes(base)]
    return Starlette(routes=routes, middleware=create_streamlit_middleware())


def test_the_shell_covers_exactly_the_router_url_paths():
    """Each st.Page's url_path is its file name, so shell.page_names() lists the router's paths ("home" is "/")."""
    router = (ROOT / "router.py").read_text(encoding="utf-8")
    assert 'st.Page(f"app_pages/{name}.py", title=title, icon=icon, url_path=name)' in router
    assert sorted(name for name, _, _ in routed()) == shell.page_names()  # tests.harness.PAGES is this list too


def test_the_script_comes_first_in_the_head_and_only_once():
    page = shell.index_html()
    assert page.count(shell.SERVER_ROOT_SCRIPT) == 1
    assert page.index("<head>") < page.index(shell.SERVER_ROOT_SCRIPT) < page.index('<script type="module"')
    original = shell.STREAMLIT_INDEX.read_text(encoding="utf-8")
    assert page.replace("\n    " + shell.SERVER_ROOT_SCRIPT, "", 1) == original


def test_an_index_without_a_plain_head_tag_is_served_unchanged(tmp_path):
    odd = tmp_path / "index.html"
    odd.write_text("<html><HEAD></HEAD><body></body></html>", encoding="utf-8")
    assert shell.index_html(odd) == odd.read_text(encoding="utf-8")


@pytest.mark.parametrize("base", ["", "posviz"])
def test_the_root_and_each_page_get_the_script_and_the_rest_stays_streamlits(base):
    app = streamlit_with_shell(base)
    prefix = f"/{base}" if base else ""
    for path in [f"{prefix}/", *(f"{prefix}/{name}" for name in PAGES)]:
        status, headers, body = call(app, path + "?presenter=true", headers={"Accept-Encoding": "identity"})
        assert status == 200 and headers["content-type"].startswith("text/html"), path
        assert shell.SERVER_ROOT_SCRIPT.encode() in body and headers["cache-control"] == "no-cache"
        assert headers["referrer-policy"] == "no-referrer"  # a lecturer's address holds the room's secret
        assert call(app, path, "HEAD")[0] == 200
        assert call(app, path, headers={"If-None-Match": headers["etag"]})[0] == 304
    for other in [f"{prefix}/nope", f"{prefix}/home"]:  # Streamlit's own page: the frontend says "Page not found"
        status, headers, body = call(app, other, headers={"Accept-Encoding": "identity"})
        assert status == 200 and b'<div id="root">' in body and shell.SERVER_ROOT_SCRIPT.encode() not in body
    assert call(app, f"{prefix}/attention/")[0] == 301  # Streamlit's trailing-slash redirect
    assert call(app, f"{prefix}/favicon.png")[1]["content-type"] == "image/png"
    assert call(app, f"{prefix}/attention", "POST")[0] != 200
    assert call(app, f"{prefix}/attention/_stcore/health")[0] == 404


def test_the_shell_reads_the_base_url_path_from_the_servers_config(monkeypatch):
    monkeypatch.setattr(shell.config, "get_option", {"server.baseUrlPath": "/posviz/"}.__getitem__)
    paths = shell.PageShell().paths()
    assert paths == {"/posviz/", *(f"/posviz/{name}" for name in PAGES)}


def test_streamlit_app_is_an_st_app_that_streamlit_run_discovers():
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "streamlit_app.py")
    assert found.is_asgi_app and found.app_name == "app"


@pytest.mark.parametrize(("preset", "expected"), [(None, "1"), ("2", "2")])
def test_the_server_runs_one_blas_thread_unless_told_otherwise(preset, expected):
    env = {
        k: v for k, v in os.environ.items() if k not in {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"}
    }
    if preset:
        env["OPENBLAS_NUM_THREADS"] = preset
    probe = "import sys, os, streamlit_app; print(os.environ['OPENBLAS_NUM_THREADS'])"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == expected
