"""The first-run screen, driven by keys against the test sandbox: a wrong secret is refused
under the form in the venue's words, the right one names the company and role and saves the
profile 0600; the secret never reaches the screen."""

from __future__ import annotations

import stat
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from textual.widgets import Input, Static

from tui.desk.config import load_config
from tui.desk.profiles.check import check_credentials
from tui.desk.profiles.setup_app import ProfileSetupApp
from tui.desk.screens.first_run import FirstRunScreen


async def _type(pilot: Any, field: str, text: str) -> None:
    app = pilot.app
    box = app.screen.query_one(f"#{field}", Input)
    box.focus()
    box.value = ""
    if len(text) < 40:
        await pilot.press(*text)  # typed key by key
    else:
        box.value = text  # a pasted secret
    await pilot.pause()


def _shown(app: Any) -> str:
    screen = app.screen
    parts = [str(w.render()) for w in screen.query(Static) if w.display]
    return "\n".join(parts) + app.export_screenshot()


async def test_the_first_run_screen_checks_then_saves_against_the_sandbox(
    sandbox: Any, tmp_path: Path
) -> None:
    entry = sandbox.credentials["DESK"]
    config = tmp_path / "cfg" / "config.toml"
    checker = partial(check_credentials, local_ms=sandbox.clock.now_ms)
    app = ProfileSetupApp("venue", checker=checker, config_path=config)
    wrong = "cd" * 32
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FirstRunScreen)
        assert app.screen.query_one("#api_secret", Input).password  # masked as typed
        await _type(pilot, "base_url", sandbox.base_url)
        await _type(pilot, "api_key", entry["api_key"])
        await _type(pilot, "api_secret", wrong)
        await pilot.press("ctrl+s")
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        result = str(app.screen.query_one("#check-result", Static).render())
        assert "refused the key" in result and "invalid API key or signature" in result
        assert result.startswith("✗")
        assert not config.exists()  # refused: nothing saved
        assert wrong not in _shown(app)

        await _type(pilot, "api_secret", entry["api_secret"])
        await pilot.press("ctrl+t")
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        result = str(app.screen.query_one("#check-result", Static).render())
        assert "found DESK (" in result and "writer key" in result
        assert entry["api_secret"] not in _shown(app)
        await pilot.press("ctrl+s")
        await app.screen.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
    saved = app.return_value
    assert saved is not None and saved.name == "venue" and saved.path == config
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    profile = load_config(config, env={}).profiles["venue"]
    assert profile.base_url == sandbox.base_url and profile.api_key == entry["api_key"]
    assert profile.api_secret == SecretStr(entry["api_secret"])


async def test_required_fields_are_named_before_the_venue_is_asked(tmp_path: Path) -> None:
    asked: list[str] = []

    async def checker(base_url: str, api_key: str, secret: SecretStr) -> Any:
        asked.append(base_url)
        raise AssertionError("not to be asked")

    app = ProfileSetupApp("", checker=checker, config_path=tmp_path / "c.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        for field in ("name", "base_url", "api_key", "api_secret"):
            label = app.screen.query_one(f"#err-{field}", Static)
            assert label.display and "required" in str(label.render())
        await _type(pilot, "name", "sandbox")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "built-in sandbox" in str(app.screen.query_one("#err-name", Static).render())
    assert asked == []
