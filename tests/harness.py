"""Start the app with `streamlit run` on a free port and drive it with Debian's Chromium.

Shared by the browser tests, tools/screenshots.py and the benchmarks.
"""

from __future__ import annotations

import ast
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import shell

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DONE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# Every page file; each one's URL path is its file name (see router.py; tests/test_shell.py checks it).
PAGES = shell.page_names()


def routed(router: Path = ROOT / "router.py") -> list[tuple[str, str, str]]:
    """The router's listed pages as it declares them, (name, title, icon), read without running Streamlit."""
    tree = ast.parse(router.read_text(encoding="utf-8"))
    table = next(n.value for n in tree.body if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "PAGES")
    return list(ast.literal_eval(table))


def chromium_path() -> str | None:
    """Debian's Chromium, if installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(
    script: str = "streamlit_app.py", timeout: float = 60.0, env: dict[str, str] | None = None, port: int | None = None
) -> Iterator[tuple[str, subprocess.Popen]]:
    """Run a Streamlit script (relative to the repository) headless on a loopback port (default: a free one); yield
    (URL, process). `env` overrides the server's environment (a benchmark serves the matched page with its default
    windows); a fixed `port` keeps a browser's HTTP cache across servers started one after another."""
    port = port or free_port()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "POSVIZ_MATCHED_WINDOWS": "1", **(env or {})},  # matched: 1 window
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as r:
                    if r.read().decode().strip() == "ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start: {proc.stderr.read().decode()[-2000:]}")
            time.sleep(0.3)
        yield base, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def browser() -> Iterator[object]:
    """A Playwright Chromium browser (Debian's binary), headless."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def settle(page, timeout: float = 60_000, quiet_ms: int = 600) -> None:
    """Wait until the script has finished and stayed finished for `quiet_ms`, with no stale elements."""
    deadline = time.monotonic() + timeout / 1000
    quiet_since = None
    while time.monotonic() < deadline:
        done = page.locator(DONE).count() == 1
        stale = page.locator("[data-stale='true'], [data-testid='stSkeleton']").count()
        if done and not stale:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since >= quiet_ms / 1000:
                return
        else:
            quiet_since = None
        page.wait_for_timeout(100)
    raise TimeoutError(f"the app did not settle within {timeout / 1000:.0f} s")


def redis_server_path() -> str | None:
    """Debian's redis-server (apt-get install redis-server; .ci/run does it as root), or None."""
    return shutil.which("redis-server") or next((p for p in ("/usr/bin/redis-server",) if os.path.exists(p)), None)


def redis_missing() -> str | None:
    """Why the Redis-backed store cannot be tested here, or None when it can."""
    import importlib.util

    if redis_server_path() is None:
        return "redis-server is not installed (apt-get install redis-server; .ci/run does it as root)"
    if importlib.util.find_spec("redis") is None:
        return "the redis client is not installed (pip install -r requirements-dev.txt)"
    return None


@contextlib.contextmanager
def redis_server(folder: Path, timeout: float = 10.0) -> Iterator[str]:
    """A throwaway redis-server on a free loopback port, nothing saved to disk, its files in `folder`; yields its
    URL (redis://127.0.0.1:PORT/0) and stops it on exit."""
    import redis

    port = free_port()
    cmd = [redis_server_path(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    proc = subprocess.Popen([*cmd, "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                redis.Redis.from_url(url).ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start: {proc.stderr.read().decode()[-2000:]}") from None
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def spec_leaves(spec: dict) -> list[dict]:
    """Every mark of a compiled Vega-Lite spec: the leaves of its layers, however deep they nest."""
    leaves, stack = [], [spec]
    while stack:
        node = stack.pop()
        stack += node.get("layer", [])
        leaves += [] if "layer" in node else [node]
    return leaves
