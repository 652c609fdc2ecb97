"""Settings precedence (defaults < config.toml < environment < command line), field by field,
and a venue profile's desk: LIVE in the header and the same confirmations as the sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.desk import SIZE, make_desk
from tui.desk.config import (
    ENV_NAMES,
    DeskSettings,
    Profile,
    ProfileOverrides,
    load_config,
    resolve_profile,
)
from tui.desk.screens.confirm import ConfirmScreen
from tui.desk.session import StaticConnector
from tui.desk.widgets.portfolio_header import PortfolioHeader

FILE = """
theme = "from-file"
default_profile = "filed"

[profiles.filed]
base_url = "https://file.example"
api_key = "file-key"
api_secret = "aa"
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(FILE)
    path.chmod(0o600)
    return path


def test_every_setting_is_documented_with_its_variable() -> None:
    for model in (DeskSettings, Profile, ProfileOverrides):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} is undocumented"
    for name in ProfileOverrides.model_fields:
        assert ProfileOverrides.model_fields[name].description == ENV_NAMES[name]


def test_defaults_then_file_then_environment_then_command_line(
    tmp_path: Path, config: Path
) -> None:
    defaults = load_config(tmp_path / "absent.toml", env={})
    assert (defaults.theme, defaults.default_profile, defaults.profiles) == (None, None, {})
    filed = load_config(config, env={})
    assert (filed.theme, filed.default_profile) == ("from-file", "filed")
    env = {"RFQ_DESK_THEME": "from-env", "RFQ_DESK_PROFILE": "sandbox", "DEFAULT_PROFILE": "x"}
    from_env = load_config(config, env=env)
    assert (from_env.theme, from_env.default_profile) == ("from-env", "sandbox")
    from_cli = load_config(config, env=env, theme="from-cli", profile="filed")
    assert (from_cli.theme, from_cli.default_profile) == ("from-cli", "filed")
    # A variable of the bare field name is not ours.
    assert load_config(config, env={"DEFAULT_PROFILE": "x"}).default_profile == "filed"


def test_the_environment_overrides_the_profile_field_by_field(config: Path) -> None:
    settings = load_config(config, env={})
    assert resolve_profile(settings, None, env={}) == settings.profiles["filed"]
    env = {"RFQ_DESK_API_SECRET": "bb", "RFQ_DESK_KEYSTORE": "~/w.json"}
    profile = resolve_profile(settings, None, env=env)
    assert profile is not None and profile.api_key == "file-key"  # kept from the file
    assert profile.api_secret.get_secret_value() == "bb"
    assert profile.keystore == Path("~/w.json").expanduser()
    # --profile (name) over RFQ_DESK_PROFILE over the file's default_profile.
    assert resolve_profile(load_config(config, env={"RFQ_DESK_PROFILE": "sandbox"}), None) is None
    chosen = resolve_profile(load_config(config, env={"RFQ_DESK_PROFILE": "sandbox"}), "filed")
    assert chosen is not None and chosen.name == "filed"


async def test_a_venue_is_shown_live_and_asks_the_same_confirmations(
    sandbox: Any, tmp_path: Path
) -> None:
    app = make_desk(sandbox, tmp_path)
    connection = app.link.connector.connection  # type: ignore[attr-defined]
    venue = StaticConnector(connection.__class__(**{**connection.__dict__, "sandbox": False}))
    app.link.connector = venue
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_connected()
        await pilot.pause()
        header = app.query_one(PortfolioHeader)
        assert header.sandbox is False
        assert "LIVE" in app.export_screenshot()
        await pilot.press("ctrl+k")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
