"""The HTML page each posviz URL is served as: Streamlit's own index.html, told where its server is.

Streamlit's frontend guesses the server's root from the page's URL: opened at /attention it pings
/attention/_stcore/health, gets a 404, waits 100 ms and then pings /_stcore/health. It skips the guess when the
page sets `window.__streamlit.BACKEND_BASE_URL` (a setting meant for embedding hosts). `PageShell` answers "/"
and each page's path with index.html plus a script that sets it to the folder of the page's own URL, which is
the server's root for exactly those paths; every other path is left to Streamlit.

Nothing here runs inside a script run: streamlit_app.py hands PageShell to st.App when the server starts.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NoReturn

from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send
from streamlit import config, file_util
from streamlit.url_util import make_url_path

ROOT = Path(__file__).parent
STREAMLIT_INDEX = Path(file_util.get_static_dir()) / "index.html"
# A classic script in <head> runs before Streamlit's bundle (a deferred module script) reads the setting;
# a setting a proxy or embedding host put there first is kept.
SERVER_ROOT_SCRIPT = (
    '<script>window.__streamlit = {BACKEND_BASE_URL: new URL(".", location.href).href, ...window.__streamlit};</script>'
)

# A lecturer's window has the room's secret in its address (?secret=): the browser sends no Referer from a page, so
# neither a link it follows nor a request it makes carries the address anywhere.
REFERRER_POLICY = "no-referrer"


def page_names(pages: Path = ROOT / "app_pages") -> list[str]:
    """The router's URL paths: each page's url_path is its file name (tests/test_shell.py checks router.py)."""
    return sorted(path.stem for path in pages.glob("*.py"))


def index_html(index: Path = STREAMLIT_INDEX) -> str:
    """Streamlit's index.html with SERVER_ROOT_SCRIPT first in its head; unchanged if it has no plain <head> tag."""
    text = index.read_text(encoding="utf-8")
    return text.replace("<head>", "<head>\n    " + SERVER_ROOT_SCRIPT, 1)


class PageShell(BaseRoute):
    """A route for GET and HEAD of "/" and each page's path, under server.baseUrlPath, answered with index_html()
    and `Referrer-Policy: no-referrer`.

    The paths are worked out at the first request, once the server has loaded its config (base_url_path
    overrides that, for tests). Other methods and paths do not match: Streamlit serves them as before.
    """

    def __init__(self, pages: Path = ROOT / "app_pages", base_url_path: str | None = None) -> None:
        self.pages, self.base_url_path = pages, base_url_path
        self._paths: frozenset[str] | None = None
        self.html = index_html().encode()
        self.etag = '"' + hashlib.sha256(self.html).hexdigest()[:32] + '"'

    def paths(self) -> frozenset[str]:
        if self._paths is None:
            base = config.get_option("server.baseUrlPath") if self.base_url_path is None else self.base_url_path
            self._paths = frozenset(make_url_path(base, name) for name in ["", *page_names(self.pages)])
        return self._paths

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        wanted = scope["type"] == "http" and scope["method"] in ("GET", "HEAD") and scope["path"] in self.paths()
        return (Match.FULL if wanted else Match.NONE), {}

    def url_path_for(self, name: str, /, **path_params: object) -> NoReturn:  # nothing links to it by name
        raise NoMatchFound(name, path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        # no-cache, as Streamlit serves its index; no Referer from the page, whose URL may hold a room's secret
        headers = {"Cache-Control": "no-cache", "ETag": self.etag, "Referrer-Policy": REFERRER_POLICY}
        asked = dict(scope["headers"]).get(b"if-none-match", b"").decode("latin-1")
        if self.etag in (tag.strip().removeprefix("W/") for tag in asked.split(",")):
            response: Response = Response(status_code=304, headers=headers)
        else:
            response = HTMLResponse(self.html, headers=headers)
        await response(scope, receive, send)
