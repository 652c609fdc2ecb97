"""The ``[guardrails]`` and ``[alerts]`` tables of config.toml: documented, defaults from the
settings dataclasses only, layered defaults < file < environment, and a bad value refused naming
its field and where it was written (file and line, or the variable)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import BaseModel

from tui.desk.alert_settings import DEFAULT_WAYS, AlertKind, AlertSettings, AlertWays
from tui.desk.config import ConfigError, DeskSettings, env_name, load_config
from tui.desk.config_tables import AlertsTable, AlertWaysTable, GuardrailsTable
from tui.desk.guardrails import GuardrailSettings

SECRET = "ab" * 32


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text)
    path.chmod(0o600)
    return path


def test_every_field_of_the_tables_is_documented() -> None:
    models: list[type[BaseModel]] = [DeskSettings, GuardrailsTable, AlertsTable, AlertWaysTable]
    for model in models:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} is undocumented"
    # One [alerts.KIND] table per kind of alert the desk raises, no more, no less.
    kinds = {name for name in AlertsTable.model_fields if name != "quiet"}
    assert kinds == {kind.value for kind in AlertKind}


def test_nothing_configured_is_the_dataclasses_defaults(tmp_path: Path) -> None:
    settings = load_config(tmp_path / "absent.toml", env={})
    assert settings.guardrails.settings() == GuardrailSettings()
    assert settings.alerts.settings() == AlertSettings()
    empty_tables = load_config(_write(tmp_path, "[guardrails]\n[alerts]\n"), env={})
    assert empty_tables.alerts.settings() == AlertSettings()
    assert empty_tables.guardrails.settings() == GuardrailSettings()


def test_file_over_defaults_and_environment_over_file_field_by_field(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "[guardrails]\nmax_bps_from_fair = 150\nmax_notional = 250000\n\n"
        "[alerts]\nquiet = true\n[alerts.rfq_received]\nbell = false\n"
        "[alerts.booked]\nflash = true\n",
    )
    filed = load_config(path, env={})
    guard = filed.guardrails.settings()
    assert guard == GuardrailSettings(
        max_bps_from_fair=Decimal(150),
        max_notional=Decimal(250000),
        duplicate_rfq_s=GuardrailSettings().duplicate_rfq_s,  # left out: the default
    )
    alerts = filed.alerts.settings()
    assert alerts.quiet is True
    # A way left out keeps that kind's default way, not a generic one.
    received = DEFAULT_WAYS[AlertKind.RFQ_RECEIVED]
    assert alerts.ways[AlertKind.RFQ_RECEIVED] == AlertWays(False, received.flash, received.toast)
    booked = DEFAULT_WAYS[AlertKind.BOOKED]
    assert alerts.ways[AlertKind.BOOKED] == AlertWays(booked.bell, True, booked.toast)
    assert alerts.ways[AlertKind.LAST_LOOK] == DEFAULT_WAYS[AlertKind.LAST_LOOK]

    env = {
        env_name("guardrails", "max_notional"): "5000",
        "RFQ_DESK_GUARDRAILS__DUPLICATE_RFQ_S": "90",
        "RFQ_DESK_ALERTS__QUIET": "false",
        "rfq_desk_alerts__rfq_received__bell": "true",  # names are not case-sensitive
        "RFQ_DESK_ALERTS__LAST_LOOK__FLASH": "false",
        "GUARDRAILS__MAX_NOTIONAL": "1",  # not ours: no RFQ_DESK_ prefix
    }
    layered = load_config(path, env=env)
    guard = layered.guardrails.settings()
    assert (guard.max_bps_from_fair, guard.max_notional, guard.duplicate_rfq_s) == (
        Decimal(150),  # from the file: the environment says nothing of it
        Decimal(5000),
        90,
    )
    alerts = layered.alerts.settings()
    assert alerts.quiet is False
    assert alerts.ways[AlertKind.RFQ_RECEIVED].bell is True
    assert alerts.ways[AlertKind.LAST_LOOK].flash is False
    assert alerts.ways[AlertKind.BOOKED].flash is True  # the file's, kept


def test_a_fractional_value_is_read_as_written_never_through_a_float(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "[guardrails]\nmax_notional = 123456789.123456789\nmax_bps_from_fair = 0.1\n"
    )
    guard = load_config(path, env={}).guardrails.settings()
    assert guard.max_notional == Decimal("123456789.123456789")
    assert guard.max_bps_from_fair == Decimal("0.1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[guardrails]\nmax_notional = -5\n",
            ":2: guardrails.max_notional: Input should be greater than 0 (got -5)",
        ),
        (
            'theme = "x"\n[guardrails]\nmax_bps_from_fair = "wide"\n',
            ':3: guardrails.max_bps_from_fair: Input should be a valid decimal (got "wide")',
        ),
        ("[guardrails]\nmax_bps_from_fair = nan\n", ":2: guardrails.max_bps_from_fair: "),
        ("[guardrails]\n\nduplicate_rfq_s = 2.5\n", ":3: guardrails.duplicate_rfq_s: "),
        (
            "[guardrails]\nduplicate_rfq_s = true\n",
            ":2: guardrails.duplicate_rfq_s: a number, not true or false (got true)",
        ),
        (
            "[guardrails]\nmax_notionl = 1\n",
            ":2: guardrails.max_notionl: unknown setting "
            "(here: max_bps_from_fair, max_notional, duplicate_rfq_s, max_deposit)",
        ),
        ("guardrails = 5\n", ":1: guardrails: "),
        ('[alerts]\nquiet = "sometimes"\n', ":2: alerts.quiet: Input should be a valid boolean"),
        (
            "[alerts]\n[alerts.last_look]\nbell = true\nbel = false\n",
            ":4: alerts.last_look.bel: unknown setting (here: bell, flash, toast)",
        ),
        ("[alerts.lastlook]\nbell = false\n", ":1: alerts.lastlook: unknown setting (here: quiet"),
        ("[alerts.booked]\ntoast = 2\n", ":2: alerts.booked.toast: "),
        (
            'theme = "desk-dark"\nthme = "desk-light"\n',
            ":2: thme: unknown setting (here: theme, default_profile, profiles, guardrails, "
            "alerts, keymap, keymap_preset)",
        ),
        ("[guardrail]\nmax_notional = 5\n", ":1: guardrail: unknown setting (here: theme,"),
    ],
)
def test_a_bad_value_is_refused_with_its_field_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as refused:
        load_config(path, env={})
    assert f"{path}{expected}" in str(refused.value)


def test_a_bad_variable_is_named_not_the_file(tmp_path: Path) -> None:
    path = _write(tmp_path, "[alerts]\nquiet = true\n")
    with pytest.raises(ConfigError) as refused:
        load_config(path, env={"RFQ_DESK_ALERTS__QUIET": "maybe"})
    message = str(refused.value)
    assert message.startswith("RFQ_DESK_ALERTS__QUIET: alerts.quiet: ")
    assert str(path) not in message


def test_every_problem_is_named_at_once_and_a_profile_value_is_never_quoted(
    tmp_path: Path,
) -> None:
    path = _write(
        tmp_path,
        "[guardrails]\nmax_notional = 0\n\n[profiles.prod]\nbase_url = 'https://x'\n"
        f"api_key = 'k'\napi_secret = '{SECRET}'\nextra_secret = '{SECRET}'\n",
    )
    with pytest.raises(ConfigError) as refused:
        load_config(path, env={})
    message = str(refused.value)
    assert f"{path}:2: guardrails.max_notional: " in message
    assert f"{path}:8: profiles.prod.extra_secret: unknown setting (here: base_url," in message
    assert SECRET not in message
