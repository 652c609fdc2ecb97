"""Small ones (issue 9): the token figure says it is tokens used; an unknown ``--theme`` is an
error listing the themes, before the terminal is taken; a theme picked in the palette is kept
for the next start, in the config file, without touching the user's other lines or secrets.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tui.desk import launch
from tui.desk.app import DeskApp
from tui.desk.config import load_config, remember_theme
from tui.desk.messages import Topic
from tui.desk.widgets.status_bar import StatusBar

SECRET = "cd" * 32
CONFIG = f"""# my desk settings
default_profile = "sandbox"   # the built-in exchange
theme = "desk-light"  # bright office

[profiles.prod]
base_url = "https://api.example.com"
api_key = "key-1"
api_secret = "{SECRET}"  # from the vault
"""


async def test_the_token_figure_says_used(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        text = str(app.query_one(StatusBar).render())
        assert "tokens used" in text and "/100 per 10s" in text


def test_an_unknown_theme_is_refused_with_the_list_before_the_desk_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RFQ_DESK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.delenv("RFQ_DESK_THEME", raising=False)
    monkeypatch.delenv("RFQ_DESK_PROFILE", raising=False)

    def never(self: DeskApp, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("the desk must not start")

    monkeypatch.setattr(DeskApp, "run", never)
    assert launch.run_desk(theme="nosuch", data=tmp_path) == 2
    error = capsys.readouterr().err
    assert "no theme named 'nosuch'" in error
    assert "desk-dark" in error and "desk-amber" in error


def test_a_theme_picked_in_the_session_is_kept_for_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    path.chmod(0o600)  # it holds a secret: readable by others, the desk refuses it
    monkeypatch.setenv("RFQ_DESK_CONFIG", str(path))
    monkeypatch.delenv("RFQ_DESK_THEME", raising=False)
    monkeypatch.delenv("RFQ_DESK_PROFILE", raising=False)

    def picked_amber(self: DeskApp, *args: Any, **kwargs: Any) -> None:
        assert self.theme == "desk-light"  # opened with the configured theme
        self.theme = "desk-amber"  # what the palette's "Change theme" does

    monkeypatch.setattr(DeskApp, "run", picked_amber)
    assert launch.run_desk(data=tmp_path) == 0
    text = path.read_text()
    assert text == CONFIG.replace('theme = "desk-light"', 'theme = "desk-amber"')
    assert load_config(path, env={}).theme == "desk-amber"


def test_the_theme_line_is_added_without_touching_anything_else(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    without = CONFIG.replace('theme = "desk-light"  # bright office\n', "")
    path.write_text(without)
    remember_theme("desk-dark", path)
    text = path.read_text()
    assert text.replace('theme = "desk-dark"\n', "") == without
    assert text.count(SECRET) == 1
    parsed = tomllib.loads(text)
    assert parsed["theme"] == "desk-dark" and "theme" not in parsed["profiles"]["prod"]
    fresh = tmp_path / "new" / "config.toml"
    remember_theme("desk-amber", fresh)
    assert fresh.read_text() == 'theme = "desk-amber"\n'
