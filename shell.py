"""The HTML page each posviz URL is served as: Streamlit's own index.html, told where its server is.

Streamlit's frontend guesses the server's root from the page's URL: opened at /attention, it first pings
/attention/_stcore/health, gets a 404, waits 100 ms and only then pings /_stcore/health. Every page opened by
its own URL (a link, a bookmark, the lecture's next slide) paid that wait. The frontend skips the guess when
the host page sets `window.__streamlit.BACKEND_BASE_URL` (the setting an embedding host uses); here each
page's HTML sets it to the folder of its own URL, which is the server's root for every route below.

Nothing here runs inside a script run: streamlit_app.py builds the routes once, when the server starts.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

ROOT = Path(__file__).parent
STREAMLIT_INDEX = Path(st.__file__).parent / "static" / "index.html"
# A classic script in <head> runs before Streamlit's bundle (a module script, deferred) reads the setting.
HOST_CONFIG = '<script>window.__streamlit = {BACKEND_BASE_URL: new URL(".", location.href).href};</script>'


def page_names(pages: Path = ROOT / "pages") -> list[str]:
    """The router's URL paths: each page's url_path is its file name (tests/test_app.py checks the router)."""
    return sorted(path.stem for path in pages.glob("*.py"))


def index_html(index: Path = STREAMLIT_INDEX) -> str:
    """Streamlit's index.html with HOST_CONFIG first in its head; unchanged if it has no plain <head> tag."""
    text = index.read_text(encoding="utf-8")
    return text.replace("<head>", "<head>\n    " + HOST_CONFIG, 1)


def routes(base_url_path: str = "", pages: Path = ROOT / "pages") -> list[Route]:
    """Routes for "/" and each page's path (under Streamlit's server.baseUrlPath) that answer with index_html().

    Only these exact paths: Streamlit still serves every other path (its assets, favicon.png, an unknown
    page's "Page not found") as before.
    """
    page_html = index_html()

    async def serve(request: Request) -> HTMLResponse:
        return HTMLResponse(page_html, headers={"Cache-Control": "no-cache"})  # as Streamlit serves its index

    base = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
    paths = [f"{base}/", *(f"{base}/{name}" for name in page_names(pages))]
    return [Route(path, serve, methods=["GET", "HEAD"]) for path in paths]
