"""config.toml reaches the desk that ``rfq-desk`` starts (`tui.desk.launch.run_desk`): its
``[keymap]`` rebinds keys (a refused entry printed on stderr with its file and line), its
``[guardrails]`` and ``[alerts]`` are the app's settings, a bad value stops the start, and
``rfq-desk config`` prints the same keys, guardrails and alerts."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.desk.kit.desk import SIZE
from tui.desk import launch
from tui.desk.alert_settings import AlertKind
from tui.desk.app import DeskApp
from tui.desk.profiles.commands import run_config
from tui.desk.screens.help import HelpScreen
from tui.desk.session import StaticConnector, connection_from_credentials

CONFIG = """\
theme = "desk-dark"

[guardrails]
max_notional = 250000

[alerts]
quiet = true

[keymap]
desk.help = "f3"
desk.new_rfq = "n,nosuchkey"
"""


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """CONFIG as the user's config.toml, the user folders under ``tmp_path``."""
    path = tmp_path / "config" / "config.toml"
    path.parent.mkdir()
    path.write_text(CONFIG)
    monkeypatch.setenv("RFQ_DESK_CONFIG", str(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    for name in ("RFQ_DESK_THEME", "RFQ_DESK_PROFILE", "RFQ_DESK_ALERTS__QUIET"):
        monkeypatch.delenv(name, raising=False)
    return path


def _started_desks(monkeypatch: pytest.MonkeyPatch) -> list[DeskApp]:
    started: list[DeskApp] = []
    monkeypatch.setattr(DeskApp, "run", lambda self, *args, **kwargs: started.append(self))
    return started


def _onto_the_test_sandbox(app: DeskApp, sandbox: Any) -> None:
    """Point a desk built for the built-in sandbox at the test's one (manual feed, its clock)."""
    document = {
        "base_url": sandbox.base_url,
        "stats_base_url": sandbox.stats_base_url,
        "companies": [sandbox.credentials["DESK"]],
    }
    app.link.connector = StaticConnector(connection_from_credentials(document, "DESK"))
    app.link.auto_feed = False
    app.link.client_factory = lambda _connection: sandbox.client("DESK")
    app._fixed_clock = sandbox.clock.now


async def test_the_configured_keys_guardrails_and_alerts_are_the_desks(
    sandbox: Any,
    tmp_path: Path,
    config: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    started = _started_desks(monkeypatch)
    assert launch.run_desk(data=tmp_path / "data") == 0
    error = capsys.readouterr().err
    assert f"rfq-desk: {config}:11: desk.new_rfq: unknown key 'nosuchkey'" in error
    (app,) = started
    assert app.guardrails.max_notional == Decimal(250000)
    assert app.alert_settings.quiet is True
    assert app.alert_settings.of(AlertKind.LAST_LOOK).bell is False  # quiet: no bell

    _onto_the_test_sandbox(app, sandbox)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_connected()
        await pilot.pause()
        await pilot.press("question_mark")  # the default key of desk.help, rebound away
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f3")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


def test_a_bad_setting_stops_the_start_naming_its_line(
    tmp_path: Path,
    config: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config.write_text(CONFIG.replace("quiet = true", "quiet = 3"))
    started = _started_desks(monkeypatch)
    assert launch.run_desk(data=tmp_path / "data") == 2
    assert started == []
    assert f"rfq-desk: {config}:7: alerts.quiet: " in capsys.readouterr().err


def test_rfq_desk_config_prints_the_keys_guardrails_and_alerts_in_force(config: Path) -> None:
    printed: list[str] = []
    assert run_config(out=printed.append) == 0
    help_row = next(line for line in printed if "desk.help " in line)
    assert help_row.lstrip().startswith("* desk.help") and " f3 " in help_row
    new_rfq = next(line for line in printed if "desk.new_rfq " in line)
    assert not new_rfq.lstrip().startswith("*")  # refused: it keeps its default key
    assert any(line.startswith(f"  refused: {config}:11: desk.new_rfq") for line in printed)
    assert "  max notional 250,000 USDC (quote or accept)" in printed
    assert "  max deposit 1,000,000 USDC (a pool deposit's permit)" in printed
    assert "  quiet: toasts only" in printed
    assert any(line.split() == ["last_look", "flash,", "toast"] for line in printed) is False
    assert any(line.split() == ["last_look", "toast"] for line in printed)  # quiet applied
