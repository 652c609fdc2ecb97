"""Desk settings: venue profiles in a TOML file under the user config dir; env vars override.

    # ~/.config/rfq-desk/config.toml
    theme = "desk-dark"
    default_profile = "prod"

    [profiles.prod]
    base_url = "https://api.example.com"
    stats_base_url = "https://stats.example.com"
    api_key = "..."
    api_secret = "..."
    keystore = "~/.config/rfq-desk/prod-wallet.json"

Secrets are `SecretStr`: their repr is masked, so a logged profile or a validation error never
shows them. The environment overrides the file, per field of the selected profile:
``RFQ_DESK_BASE_URL``, ``RFQ_DESK_STATS_BASE_URL``, ``RFQ_DESK_API_KEY``, ``RFQ_DESK_API_SECRET``,
``RFQ_DESK_KEYSTORE``; ``RFQ_DESK_PROFILE`` picks the profile, ``RFQ_DESK_THEME`` the theme and
``RFQ_DESK_CONFIG`` the file itself.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from tui.paths import config_dir

SANDBOX_PROFILE = "sandbox"
"""The profile name that means the built-in sandbox exchange."""

ENV_PREFIX = "RFQ_DESK_"


class ConfigError(Exception):
    """The config file or the environment does not describe a usable profile."""


def default_config_path(env: Mapping[str, str] | None = None) -> Path:
    """The config file: ``RFQ_DESK_CONFIG`` or ``config.toml`` in the config dir."""
    env = os.environ if env is None else env
    override = env.get(f"{ENV_PREFIX}CONFIG")
    return Path(override).expanduser() if override else config_dir() / "config.toml"


def theme_dirs() -> list[Path]:
    """Directories searched for user theme files, lowest priority first."""
    repo_themes = Path(__file__).resolve().parents[2] / "themes"
    return [repo_themes, config_dir() / "themes"]


class Profile(BaseModel):
    """One venue the desk can connect to."""

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
        description="Encrypted wallet keystore used to sign deposit permits; "
        "unlocked by a password prompt.",
    )

    @field_validator("base_url", "stats_base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("keystore")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        return value.expanduser() if value is not None else None


class DeskConfig(BaseModel):
    """The whole config file: look, default profile, and the profiles."""

    model_config = ConfigDict(extra="ignore")

    theme: str | None = Field(default=None, description="Theme name; unknown names fall back.")
    default_profile: str | None = Field(
        default=None, description="Profile opened by a bare `rfq-desk`; None means the sandbox."
    )
    profiles: dict[str, Profile] = Field(default_factory=dict)


def _field_errors(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def load_config(path: Path | None = None, env: Mapping[str, str] | None = None) -> DeskConfig:
    """Read the config file (missing file = empty config) and apply the env overrides."""
    env = os.environ if env is None else env
    path = path or default_config_path(env)
    raw: dict[str, object] = {}
    if path.exists():
        try:
            with path.open("rb") as handle:
                raw = tomllib.load(handle)
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise ConfigError(f"{path}: {error}") from None
    profiles = raw.get("profiles", {})
    if not isinstance(profiles, dict):
        raise ConfigError(f"{path}: [profiles] must be a table")
    raw["profiles"] = {
        name: {**body, "name": name} if isinstance(body, dict) else body
        for name, body in profiles.items()
    }
    try:
        config = DeskConfig.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(f"{path}: {_field_errors(error)}") from None
    if theme := env.get(f"{ENV_PREFIX}THEME"):
        config.theme = theme
    if profile := env.get(f"{ENV_PREFIX}PROFILE"):
        config.default_profile = profile
    return config


_ENV_FIELDS = ("base_url", "stats_base_url", "api_key", "api_secret", "keystore")


def resolve_profile(
    config: DeskConfig, name: str | None, env: Mapping[str, str] | None = None
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
    for key in _ENV_FIELDS:
        override = env.get(f"{ENV_PREFIX}{key.upper()}")
        if override:
            values[key] = override
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
    order and every secret stay exactly as the user wrote them (nothing else is written). An
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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_text(updated, encoding="utf-8")
        if path.exists():
            os.chmod(temporary, path.stat().st_mode)
        os.replace(temporary, path)
    except OSError as error:
        raise ConfigError(f"{path}: {error}") from None
    return path
