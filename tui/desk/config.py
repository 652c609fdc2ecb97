"""Desk settings (pydantic-settings): defaults < config.toml < environment < command line.

    # ~/.config/rfq-desk/config.toml  (mode 0600 once it holds an api_secret)
    theme = "desk-dark"
    default_profile = "prod"

    [profiles.prod]
    base_url = "https://api.example.com"
    stats_base_url = "https://stats.example.com"
    api_key = "..."
    api_secret = "..."
    keystore = "~/.config/rfq-desk/wallets/prod.json"

    [guardrails]                   # when a quote, accept or RFQ asks again
    max_notional = 250000
    [alerts]                       # bell, flash, toast per kind; quiet = toasts only
    quiet = false
    [alerts.rfq_received]
    bell = false

`DeskSettings` is the file's top level, `Profile` one ``[profiles.NAME]`` table, and
`tui.desk.config_tables` the ``[guardrails]`` and ``[alerts]`` tables; every field says what it
is for, and `ENV_NAMES` / `env_name` which variable overrides it. The environment overrides
the file per field: ``RFQ_DESK_THEME`` and ``RFQ_DESK_PROFILE`` the top level,
``RFQ_DESK_GUARDRAILS__MAX_NOTIONAL``, ``RFQ_DESK_ALERTS__QUIET``,
``RFQ_DESK_ALERTS__LAST_LOOK__BELL`` (``__`` between the table and the field) the tables, and
``RFQ_DESK_BASE_URL``, ``RFQ_DESK_STATS_BASE_URL``, ``RFQ_DESK_API_KEY``,
``RFQ_DESK_API_SECRET``, ``RFQ_DESK_KEYSTORE`` the selected profile (`ProfileOverrides`);
``RFQ_DESK_CONFIG`` names the file itself. The command line (``--theme``, ``--profile``)
overrides both. A value refused names its field and where it was written: the file and line
(``config.toml:12: guardrails.max_notional: ...``) or the variable. ``keymap_preset`` and
``[keymap]`` are the keys' (`tui.desk.keymap` reads and checks them).

Secrets are `SecretStr` (a logged profile or a validation error never shows them), and a
config file holding an ``api_secret`` that group or others may read is refused with the
``chmod 600`` that fixes it (`tui.paths.refuse_exposed`).
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_settings import SettingsConfigDict

from tui.desk.config_errors import located_errors
from tui.desk.config_sources import ENV_NAMES as ENV_NAMES
from tui.desk.config_sources import ENV_NESTING, ENV_PREFIX, Layered, reading
from tui.desk.config_sources import env_name as env_name
from tui.desk.config_tables import AlertsTable, GuardrailsTable
from tui.paths import ExposedSecretError, config_dir, refuse_exposed, write_private_file

SANDBOX_PROFILE = "sandbox"
"""The profile name that means the built-in sandbox exchange."""


class ConfigError(Exception):
    """The config file or the environment does not describe a usable profile."""


def default_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file: ``RFQ_DESK_CONFIG`` or ``config.toml`` in the config dir."""
    env = os.environ if env is None else env
    override = env.get(ENV_NAMES["config"])
    return Path(override).expanduser() if override else config_dir() / "config.toml"


def theme_dirs() -> list[Path]:
    """Directories searched for user theme files, lowest priority first."""
    repo_themes = Path(__file__).resolve().parents[2] / "themes"
    return [repo_themes, config_dir() / "themes"]


def _http_url(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip().rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise ValueError("must start with http:// or https://")
    return value


class Profile(BaseModel):
    """One venue the desk can connect to: where it is and the company's credentials."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="The profile's name, as given to --profile.")
    base_url: str = Field(description="Trading API base address; paths start with /v1.")
    stats_base_url: str | None = Field(
        default=None, description="Public statistics base address; None shows no market stats."
    )
    api_key: str = Field(description="API key of the company, from the venue's settings pages.")
    api_secret: SecretStr = Field(description="API secret (hex); never shown or logged.")
    keystore: Path | None = Field(
        default=None,
        description="Encrypted wallet keystore (`rfq-desk wallet import`) that signs deposit "
        "permits; its passphrase is asked each time a permit is signed.",
    )

    @field_validator("base_url", "stats_base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        return _http_url(value)

    @field_validator("keystore")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None


class DeskSettings(Layered):
    """The whole config file: look, default profile, the profiles, guardrails and alerts."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter=ENV_NESTING,
        extra="ignore",
        populate_by_name=True,
    )

    theme: str | None = Field(
        default=None,
        description="Theme the desk opens with (env RFQ_DESK_THEME, --theme); "
        "`rfq-desk --theme nosuch` lists the themes.",
    )
    default_profile: str | None = Field(
        default=None,
        validation_alias=AliasChoices("default_profile", ENV_NAMES["default_profile"].lower()),
        description="Profile opened by a bare `rfq-desk` (env RFQ_DESK_PROFILE, --profile); "
        "None or 'sandbox' means the built-in sandbox.",
    )
    profiles: dict[str, Profile] = Field(
        default_factory=dict, description="The venue profiles, one [profiles.NAME] table each."
    )
    guardrails: GuardrailsTable = Field(
        default_factory=GuardrailsTable,
        description="[guardrails]: when a quote, an accept or an RFQ asks for a second "
        "confirmation (env RFQ_DESK_GUARDRAILS__<FIELD>).",
    )
    alerts: AlertsTable = Field(
        default_factory=AlertsTable,
        description="[alerts]: quiet mode, and bell/flash/toast per kind of alert in "
        "[alerts.<kind>] (env RFQ_DESK_ALERTS__QUIET, RFQ_DESK_ALERTS__<KIND>__<WAY>).",
    )

    @model_validator(mode="before")
    @classmethod
    def _name_profiles(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("profiles"), dict):
            data = dict(data)
            data["profiles"] = {
                name: {**body, "name": name} if isinstance(body, dict) else body
                for name, body in data["profiles"].items()
            }
        return data


DeskConfig = DeskSettings
"""The former name of `DeskSettings`."""


class ProfileOverrides(Layered):
    """The environment's overrides of the selected profile, field by field (None: not set)."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    base_url: str | None = Field(default=None, description="RFQ_DESK_BASE_URL")
    stats_base_url: str | None = Field(default=None, description="RFQ_DESK_STATS_BASE_URL")
    api_key: str | None = Field(default=None, description="RFQ_DESK_API_KEY")
    api_secret: SecretStr | None = Field(default=None, description="RFQ_DESK_API_SECRET")
    keystore: Path | None = Field(default=None, description="RFQ_DESK_KEYSTORE")


def _field_errors(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def holds_secret(table: Mapping[str, Any]) -> bool:
    """Whether a parsed config file has an ``api_secret`` in any profile."""
    profiles = table.get("profiles")
    if not isinstance(profiles, dict):
        return False
    return any(isinstance(body, dict) and "api_secret" in body for body in profiles.values())


def read_config_table(path: Path) -> dict[str, Any]:
    """The config file's tables (a missing file is empty); one holding a secret must be 0600."""
    if not path.exists():
        return {}
    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle, parse_float=Decimal)  # money is never a float
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: {error}") from None
    if holds_secret(table):
        try:
            refuse_exposed(path)
        except ExposedSecretError as error:
            raise ConfigError(str(error)) from None
    if not isinstance(table.get("profiles", {}), dict):
        raise ConfigError(f"{path}: [profiles] must be a table")
    return table


def load_config(
    path: Path | None = None,
    env: Mapping[str, str] | None = None,
    *,
    theme: str | None = None,
    profile: str | None = None,
) -> DeskSettings:
    """The settings: defaults, then the file, then the environment, then ``theme``/``profile``
    (the command line's ``--theme``/``--profile``)."""
    env = os.environ if env is None else env
    path = path or default_config_path(env)
    table = read_config_table(path)
    given: dict[str, Any] = {"theme": theme, "default_profile": profile}
    try:
        with reading(env, table):
            return DeskSettings(**{k: v for k, v in given.items() if v})
    except ValidationError as error:
        raise ConfigError(located_errors(error, DeskSettings, path, env)) from None


def resolve_profile(
    config: DeskSettings, name: str | None, env: Mapping[str, str] | None = None
) -> Profile | None:
    """The profile to open, with env overrides applied; None means the built-in sandbox.

    ``name`` (from --profile) wins over the config's default. A name that is not configured is
    still usable when the environment supplies at least base_url, api_key and api_secret.
    """
    env = os.environ if env is None else env
    chosen = name or config.default_profile
    if chosen is None or chosen == SANDBOX_PROFILE:
        return None
    base = config.profiles.get(chosen)
    values: dict[str, object] = base.model_dump() if base else {"name": chosen}
    if base is not None:
        values["api_secret"] = base.api_secret.get_secret_value()
    try:
        with reading(env, {}):
            overrides = ProfileOverrides()
    except ValidationError as error:
        raise ConfigError(f"environment: {_field_errors(error)}") from None
    for key, value in overrides.model_dump(exclude_none=True).items():
        values[key] = value.get_secret_value() if isinstance(value, SecretStr) else value
    if base is None and not {"base_url", "api_key", "api_secret"} <= values.keys():
        known = ", ".join(sorted(config.profiles)) or "none"
        raise ConfigError(
            f"no profile named {chosen!r} (configured: {known}; the file is "
            f"{default_config_path(env)})"
        )
    try:
        return Profile.model_validate(values)
    except ValidationError as error:
        raise ConfigError(f"profile {chosen!r}: {_field_errors(error)}") from None


_THEME_LINE = re.compile(
    r"""^(?P<lead>\s*theme\s*=\s*)(?P<value>"(?:[^"\\]|\\.)*"|'[^']*')(?P<tail>\s*(?:\#.*)?)$"""
)


def remember_theme(
    theme: str, path: Path | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """Write ``theme = "<theme>"`` into the config file and change nothing else in it.

    The file is edited as text, never re-serialised: the other settings, the comments, the
    order and every secret stay exactly as the user wrote them (nothing else is written); the
    file is written back 0600 (`save_config_text`). An
    existing top-level ``theme`` line keeps its trailing comment; otherwise the line goes
    before the first table. A file that would no longer parse is left alone (`ConfigError`).
    """
    path = path or default_config_path(env)
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as error:
        raise ConfigError(f"{path}: {error}") from None
    value = json.dumps(theme)  # a TOML basic string: quotes and backslashes escaped
    lines = text.splitlines(keepends=True)
    first_table = next(
        (i for i, line in enumerate(lines) if line.lstrip().startswith("[")), len(lines)
    )
    for index in range(first_table):
        found = _THEME_LINE.match(lines[index].rstrip("\r\n"))
        if found:
            ending = lines[index][len(lines[index].rstrip("\r\n")) :] or "\n"
            lines[index] = f"{found['lead']}{value}{found['tail']}{ending}"
            break
    else:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.insert(first_table, f"theme = {value}\n")
    updated = "".join(lines)
    try:
        if tomllib.loads(updated).get("theme") != theme:
            raise ConfigError(f"{path}: cannot place the theme line")
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {error}") from None
    return save_config_text(path, updated)


def save_config_text(path: Path, text: str) -> Path:
    """Replace the config file with ``text``: 0600 in a 0700 folder, as it may hold secrets."""
    try:
        return write_private_file(path, text)
    except OSError as error:
        raise ConfigError(f"{path}: {error}") from None
