"""Config profiles, themes, CSV export and sessions (profile, attach, start the sandbox)."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tui.api.models import Trade, Transfer
from tui.desk.config import ConfigError, load_config, resolve_profile
from tui.desk.export import export_csv
from tui.desk.session import (
    SandboxConnector,
    SessionError,
    connection_from_credentials,
)
from tui.desk.themes import (
    BUILTIN_THEMES,
    DEFAULT_THEME,
    DESK_VARIABLES,
    load_user_themes,
    pick_theme,
)

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SECRET = "ab" * 32

CONFIG = f"""
theme = "desk-light"
default_profile = "prod"

[profiles.prod]
base_url = "https://api.example.com/"
stats_base_url = "https://stats.example.com"
api_key = "key-1"
api_secret = "{SECRET}"
keystore = "~/wallet.json"
"""


def test_profiles_load_with_masked_secrets_and_env_overrides(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG)
    path.chmod(0o600)
    config = load_config(path, env={})
    profile = resolve_profile(config, None, env={})
    assert profile is not None and profile.name == "prod"
    assert profile.base_url == "https://api.example.com"
    assert profile.keystore == Path("~/wallet.json").expanduser()
    assert SECRET not in repr(profile) and SECRET not in str(profile.model_dump())
    assert profile.api_secret.get_secret_value() == SECRET

    env = {"RFQ_DESK_BASE_URL": "https://other.example.com", "RFQ_DESK_API_KEY": "key-2"}
    overridden = resolve_profile(config, "prod", env=env)
    assert overridden is not None
    assert (overridden.base_url, overridden.api_key) == ("https://other.example.com", "key-2")
    assert overridden.api_secret.get_secret_value() == SECRET


def test_no_profile_means_the_sandbox_and_bad_profiles_say_why(tmp_path: Path) -> None:
    assert resolve_profile(load_config(tmp_path / "missing.toml", env={}), None, env={}) is None
    config = load_config(tmp_path / "missing.toml", env={"RFQ_DESK_PROFILE": "sandbox"})
    assert resolve_profile(config, None, env={}) is None
    with pytest.raises(ConfigError, match="no profile named 'nope'"):
        resolve_profile(config, "nope", env={})
    bad = tmp_path / "bad.toml"
    bad.write_text('[profiles.x]\nbase_url = "ftp://x"\napi_key = "k"\napi_secret = "s"\n')
    bad.chmod(0o600)
    with pytest.raises(ConfigError, match="base_url") as caught:
        load_config(bad, env={})
    assert "s\n" not in str(caught.value)


def test_user_themes_load_and_broken_ones_fall_back(tmp_path: Path) -> None:
    (tmp_path / "good.toml").write_text(
        'name = "harbour"\nprimary = "#3a7bd5"\n[variables]\nbid = "#00ff00"\n'
    )
    (tmp_path / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    (tmp_path / "garbage.toml").write_text("this is = = not toml")
    loaded = load_user_themes([tmp_path, tmp_path / "absent"])
    assert set(loaded.themes) == {"harbour"}
    harbour = loaded.themes["harbour"]
    assert harbour.variables["bid"] == "#00ff00"
    assert harbour.variables["ask"] == DESK_VARIABLES["ask"]  # missing ones get the default
    assert len(loaded.warnings) == 2
    assert pick_theme("nope", BUILTIN_THEMES) == DEFAULT_THEME
    assert pick_theme("desk-light", BUILTIN_THEMES) == "desk-light"


def test_shipped_example_themes_load() -> None:
    repo_themes = Path(__file__).resolve().parents[2] / "themes"
    loaded = load_user_themes([repo_themes])
    assert loaded.warnings == []
    assert loaded.themes


def test_csv_export_keeps_decimals_exact(tmp_path: Path) -> None:
    trade = Trade(
        id="t1",
        source_rfq="r1",
        source_quote="q1",
        company="c1",
        counterparty="c2",
        created_at=NOW,
        side="buy",
        instrument={"instrument_type": "perpetual_future", "underlying": "BTC"},
        price="98765.4321",
        qty="0.1",
        pool_location="p1",
        role="taker",
    )
    transfer = Transfer(
        id="x1",
        created_at=NOW,
        company="c1",
        qty="0.000001",
        asset="USDC",
        target_pool_location="p1",
        transfer_type="deposit",
        status="confirmed",
    )
    trades_path, transfers_path = export_csv(tmp_path, [trade], [transfer], NOW, "DESK/ALPHA")
    assert trades_path.parent == tmp_path and "DESK-ALPHA" in trades_path.name
    (row,) = csv.DictReader(trades_path.open())
    assert row["price"] == "98765.4321" and row["notional"] == "9876.54321"
    assert row["instrument"] == "BTC-PERP"
    (row,) = csv.DictReader(transfers_path.open())
    assert row["qty"] == "0.000001"
    assert Decimal(row["qty"]) == Decimal("0.000001")


def test_credentials_pick_the_writer_key_and_keep_the_wallet_secret() -> None:
    document = {
        "base_url": "http://127.0.0.1:1",
        "companies": [
            {"short_name": "DESK", "role": "reader", "api_key": "r", "api_secret": "aa"},
            {
                "short_name": "DESK",
                "role": "writer",
                "id": "c1",
                "api_key": "w",
                "api_secret": "bb",
                "wallet_private_key": "0x" + "11" * 32,
            },
        ],
    }
    connection = connection_from_credentials(document)
    assert connection.api_key == "w" and connection.sandbox
    assert connection.stats_base_url == "http://127.0.0.1:1"
    assert "11" * 32 not in repr(connection)
    with pytest.raises(SessionError, match="no writer key for ALPHA"):
        connection_from_credentials(document, "ALPHA")


async def test_the_sandbox_connector_attaches_to_a_running_sandbox(
    sandbox: Any, tmp_path: Path
) -> None:
    connector = SandboxConnector(tmp_path)
    entries = list(sandbox.credentials.values())
    connector.credentials_path.write_text(
        json.dumps({"base_url": sandbox.base_url, "companies": entries})
    )
    connection = await connector.connect()
    assert connector.attached and connector.process is None
    assert connection.base_url == sandbox.base_url
    assert connection.company_id == sandbox.company_ids["DESK"]
    await connector.close()


async def test_the_sandbox_connector_starts_one_when_none_answers(tmp_path: Path) -> None:
    connector = SandboxConnector(tmp_path, extra_args=["--no-actors"])
    # A stale file from an earlier run points at a port nobody listens on.
    connector.credentials_path.write_text(json.dumps({"base_url": "http://127.0.0.1:9"}))
    try:
        connection = await connector.connect()
        assert not connector.attached and connector.process is not None
        assert connection.short_name == "DESK" and connection.wallet_key is not None
        assert connection.base_url.startswith("http://127.0.0.1:")
        # A second desk on the same data dir attaches instead of starting another.
        second = SandboxConnector(tmp_path)
        assert (await second.connect()).base_url == connection.base_url
        assert second.attached
    finally:
        await connector.close()
    assert connector.process is None
