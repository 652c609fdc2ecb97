"""A whole sandbox session, then every file the desk wrote (config, journal, logs, exports,
screenshots under the test's own data and config folders) is searched for the sandbox's
secrets: API secrets and wallet keys. Zero hits; only the sandbox's own credentials file (the
sandbox's, written for the desk to read) may hold them."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.desk import SIZE, refresh
from tui.desk.app import DeskApp
from tui.desk.config import remember_theme
from tui.desk.messages import Topic
from tui.desk.profiles.commands import run_config
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.session import SandboxConnector
from tui.paths import config_dir, data_dir, sandbox_credentials_path, sandbox_db_path


def _written(folder: Path, part: str) -> bool:
    return any(part in str(p) and p.stat().st_size for p in folder.rglob("*") if p.is_file())


async def _until(pilot: Any, done: Callable[[], bool]) -> None:
    # The session's supervisor worker runs for as long as the desk: wait for the effect.
    async with asyncio.timeout(30):
        while not done():
            await pilot.pause(0.05)


def _secrets(sandbox: Any) -> set[str]:
    found: set[str] = set()
    for entry in [*sandbox.credentials.values(), *sandbox.readers.values()]:
        found.add(entry["api_secret"].lower())
        wallet = entry.get("wallet_private_key")
        if wallet:
            found.add(wallet.lower().removeprefix("0x"))
    return found


async def test_a_sandbox_session_writes_no_secret_anywhere(
    sandbox: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("CONFIG", "PROFILE", "THEME", "API_SECRET", "API_KEY", "BASE_URL"):
        monkeypatch.delenv(f"RFQ_DESK_{name}", raising=False)
    data = data_dir()
    data.mkdir(parents=True)
    credentials = sandbox_credentials_path(sandbox_db_path(data))
    document = {
        "base_url": sandbox.base_url,
        "companies": [*sandbox.credentials.values(), *sandbox.readers.values()],
    }
    credentials.write_text(json.dumps(document))
    secrets = _secrets(sandbox)
    assert len(secrets) >= 4

    # Attached through the sandbox's credentials file, as a bare `rfq-desk` is; the client on
    # the test sandbox's frozen clock (its budget window moves only when the test's does).
    app = DeskApp(
        SandboxConnector(data),
        auto_feed=False,
        theme="desk-dark",
        user_theme_dirs=[],
        clock=sandbox.clock.now,
        client_factory=lambda _connection: sandbox.client("DESK"),
    )
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_SENT, Topic.TRADES)
        await pilot.press("ctrl+k")  # a write: journaled
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await _until(pilot, lambda: _written(data, "journal"))
        await pilot.press("e")  # CSV export
        await _until(pilot, lambda: _written(data, ".csv"))
        (data / "screenshots").mkdir()
        app.save_screenshot("session.svg", str(data / "screenshots"))
    remember_theme("desk-amber")
    printed = io.StringIO()
    with redirect_stdout(printed):
        run_config()

    written = [p for folder in (data, config_dir()) for p in folder.rglob("*") if p.is_file()]
    names = {p.name for p in written}
    assert "config.toml" in names and "session.svg" in names
    assert any(p.suffix == ".csv" for p in written), names
    assert any("journal" in str(p) for p in written), names
    hits = []
    for path in written:
        if path == credentials:
            continue  # the sandbox's file, made for the desk to read
        text = path.read_bytes().decode("utf-8", errors="replace").lower()
        hits += [(path.name, s[:6]) for s in secrets if s in text]
    output = printed.getvalue().lower()
    hits += [("rfq-desk config", s[:6]) for s in secrets if s in output]
    assert hits == []
