"""``rfq-desk serve``: the token guard, and the desk in a real headless Chromium.

The browser test drives Chromium over the DevTools protocol (aiohttp's websocket client, no
browser download): it opens the printed address, and reads what the page's own websocket
received from the desk (the terminal's bytes, which xterm.js paints on a canvas) until the RFQ
inbox is there. Without a ``chromium`` on PATH it is skipped, saying so.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import pytest

from tui.paths import sandbox_credentials_path, sandbox_db_path

ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-B]|\x1b[=>78]|\x1b\][^\x07]*\x07")
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
WAIT_S = 90.0  # a bound on waiting for the desk, never a measured figure


@pytest.fixture
def served(sandbox: Any, tmp_path: Path) -> Iterator[str]:
    """``rfq-desk serve`` on a desk attached to the test sandbox; the printed address."""
    data = tmp_path / "data" / "rfq-desk"
    data.mkdir(parents=True)
    document = {"base_url": sandbox.base_url, "companies": list(sandbox.credentials.values())}
    sandbox_credentials_path(sandbox_db_path(data)).write_text(json.dumps(document))
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    env.pop("RFQ_DESK_PROFILE", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        first = child.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", first)
        assert found is not None, first
        yield found.group(1)
    finally:
        child.terminate()
        child.wait(timeout=30)


def test_the_desk_is_refused_without_the_token(served: str) -> None:
    base = served.split("/?token=")[0]
    with httpx.Client() as http:
        assert http.get(base + "/").status_code == 403
        assert http.get(base + "/ws").status_code == 403
        assert http.get(base + "/?token=wrong").status_code == 403
        assert http.get(base + "/static/js/textual.js").status_code == 200
        opened = http.get(served)
        assert opened.status_code == 302 and opened.headers["location"] == "/"
        assert "httponly" in opened.headers["set-cookie"].lower()
        page = http.get(base + "/")  # the cookie now opens it
        assert page.status_code == 200 and "textual-terminal" in page.text
        # Another site in the same browser may not drive the desk's websocket.
        other = http.get(base + "/ws", headers={"Origin": "http://evil.example"})
        assert other.status_code == 403
    with httpx.Client() as http:
        rebound = http.get(served, headers={"Host": f"evil.example:{base.rsplit(':', 1)[1]}"})
        assert rebound.status_code == 403


@pytest.fixture
async def chromium(tmp_path: Path) -> AsyncIterator[str]:
    """A headless Chromium with the DevTools protocol on; its debugging address."""
    if BROWSER is None:
        pytest.skip("no chromium on PATH (apt-get install -y chromium): browser test skipped")
    profile = tmp_path / "chromium"
    process = await asyncio.create_subprocess_exec(
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "--window-size=1400,900",
        "about:blank",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        async with asyncio.timeout(WAIT_S):
            # Chromium writes the file when it listens; nothing to wait on but the file.
            while not port_file.exists() or not port_file.read_text().strip():  # noqa: ASYNC110
                await asyncio.sleep(0.1)
        yield f"127.0.0.1:{port_file.read_text().split()[0]}"
    finally:
        process.terminate()
        await process.wait()


async def test_the_browser_loads_the_page_and_sees_the_inbox(
    served: str, chromium: str, tmp_path: Path
) -> None:
    async with aiohttp.ClientSession() as http:
        async with http.put(f"http://{chromium}/json/new?about:blank") as answer:
            target = await answer.json(content_type=None)
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as page:
            ids = iter(range(1, 1_000_000))

            async def command(method: str, **params: Any) -> None:
                await page.send_json({"id": next(ids), "method": method, "params": params})

            await command("Network.enable")
            await command("Page.enable")
            await command("Page.navigate", url=served)
            screen = ""
            async with asyncio.timeout(WAIT_S):
                async for message in page:
                    event = json.loads(message.data)
                    if event.get("method") != "Network.webSocketFrameReceived":
                        continue
                    frame = event["params"]["response"]
                    data = frame["payloadData"]
                    raw = base64.b64decode(data) if frame.get("opcode") == 2 else data.encode()
                    screen += ANSI.sub("", raw.decode("utf-8", errors="replace"))
                    if "RFQ inbox" in screen and "SANDBOX" in screen:
                        break
            await command("Page.captureScreenshot", format="png")
            async for message in page:
                reply = json.loads(message.data)
                if "result" in reply and "data" in reply["result"]:
                    shot = tmp_path / "served.png"
                    shot.write_bytes(base64.b64decode(reply["result"]["data"]))
                    break
    assert "RFQ inbox" in screen and "SANDBOX" in screen
