"""Desk settings: defaults < config.toml < environment < command line.

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
    max_deposit = 500000           # USDC; a bigger pool deposit is refused before signing
    [alerts]                       # bell, flash, toast per kind; quiet = toasts only
    quiet = false
    [alerts.rfq_received]
    bell = false

`DeskSettings` is the file's top level, `Profile` one ``[profiles.NAME]`` table (both
pydantic-settings models of `tui.desk.config_models`, importable from here), and
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

`desk_start` is what ``rfq-desk`` opens with. The models, and pydantic with them, load only
when there is something to check: a desk started with nothing configured but the theme, the
default profile and the keys, on the sandbox, reads them as they are and paints its first frame
without waiting for pydantic (issue 11).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.desk.config_sources import ENV_NAMES as ENV_NAMES
from tui.desk.config_sources import ENV_PREFIX as ENV_PREFIX
from tui.desk.config_sources import desk_variables, reading
from tui.desk.config_sources import env_name as env_name
from tui.paths import ExposedSecretError, config_dir, refuse_exposed, write_private_file

if TYPE_CHECKING:
    from pydantic import ValidationError

    from tui.desk.alert_settings import AlertSettings
    from tui.desk.config_models import DeskConfig, DeskSettings, Profile, ProfileOverrides
    from tui.desk.guardrails import GuardrailSettings

__all__ = [
    "ENV_NAMES",
    "ENV_PREFIX",
    "SANDBOX_PROFILE",
    "ConfigError",
    "DeskConfig",
    "DeskSettings",
    "DeskStart",
    "Profile",
    "ProfileOverrides",
    "default_config_path",
    "desk_start",
    "env_name",
    "holds_secret",
    "load_config",
    "read_config_table",
    "remember_theme",
    "resolve_profile",
    "save_config_text",
    "theme_dirs",
]

_MODELS = frozenset({"DeskConfig", "DeskSettings", "Profile", "ProfileOverrides"})
"""The names of `tui.desk.config_models` this module gives, loading it at the first use."""


def __getattr__(name: str) -> Any:
    """A settings model (`_MODELS`), loaded with pydantic at the first use."""
    if name not in _MODELS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from tui.desk import config_models

    value = getattr(config_models, name)
    globals()[name] = value
    return value


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
    import tomllib  # only when there is a file to read

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
    return _checked(read_config_table(path), path, env, theme=theme, profile=profile)


def _checked(
    table: dict[str, Any],
    path: Path,
    env: Mapping[str, str],
    *,
    theme: str | None = None,
    profile: str | None = None,
) -> DeskSettings:
    """The file's ``table`` and ``env`` through the settings models, every value checked."""
    from pydantic import ValidationError

    from tui.desk.config_errors import located_errors, unknown_top_level
    from tui.desk.config_models import DeskSettings

    known = [*DeskSettings.model_fields, *sorted(_PLAIN_KEYS - DeskSettings.model_fields.keys())]
    unknown = unknown_top_level(table, known, path)
    given: dict[str, Any] = {"theme": theme, "default_profile": profile}
    try:
        with reading(env, table):
            settings = DeskSettings(**{k: v for k, v in given.items() if v})
    except ValidationError as error:
        refused = located_errors(error, DeskSettings, path, env)
        raise ConfigError("; ".join(filter(None, (unknown, refused)))) from None
    if unknown:
        raise ConfigError(unknown)
    return settings


def resolve_profile(
    config: DeskSettings, name: str | None, env: Mapping[str, str] | None = None
) -> Profile | None:
    """The profile to open, with env overrides applied; None means the built-in sandbox.

    ``name`` (from --profile) wins over the config's default. A name that is not configured is
    still usable when the environment supplies at least base_url, api_key and api_secret.
    """
    from pydantic import SecretStr, ValidationError

    from tui.desk.config_models import Profile, ProfileOverrides

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


@dataclass(frozen=True)
class DeskStart:
    """What ``rfq-desk`` opens with, from the config file and the environment."""

    theme: str | None
    """The configured theme (``--theme`` goes over it); None: the default."""
    profile: Profile | None
    """The venue, the environment's overrides applied; None: the built-in sandbox."""
    guardrails: GuardrailSettings
    """``[guardrails]``: when a quote, an accept or an RFQ asks again."""
    alerts: AlertSettings
    """``[alerts]``: how each kind of alert shows."""


_PLAIN_KEYS = frozenset({"theme", "default_profile", "keymap", "keymap_preset"})
"""Top-level keys of a file the settings models need not read when their values are strings
(the keys' own entries are `tui.desk.keymap`'s to check)."""

_PLAIN_VARIABLES = frozenset(
    ENV_NAMES[name].lower() for name in ("config", "theme", "default_profile")
)
"""The desk's variables the settings models need not read (any text is a valid value)."""


def desk_start(
    profile: str | None = None, path: Path | None = None, env: Mapping[str, str] | None = None
) -> DeskStart:
    """What the desk opens with: the profile ``profile`` names (``--profile``) or the configured
    one, the configured theme, guardrails and alerts; a `ConfigError` says what is refused.

    Nothing to check (see module docs: `_plain_start`) is read as it is; anything else goes
    through `load_config` and `resolve_profile`, every value checked.
    """
    env = os.environ if env is None else env
    path = path or default_config_path(env)
    table = read_config_table(path)
    plain = _plain_start(table, env, profile)
    if plain is not None:
        return plain
    settings = _checked(table, path, env)
    return DeskStart(
        theme=settings.theme,
        profile=resolve_profile(settings, profile, env),
        guardrails=settings.guardrails.settings(),
        alerts=settings.alerts.settings(),
    )


def _plain_start(
    table: Mapping[str, Any], env: Mapping[str, str], profile: str | None
) -> DeskStart | None:
    """The start when nothing needs the settings models: the file sets at most the theme, the
    default profile (text) and the keys, the environment at most the file, the theme and the
    profile, and the sandbox is chosen. Then the guardrails and alerts are their defaults. None
    when anything else is set: the models check it (and word any refusal)."""
    variables = desk_variables(env)
    if not (table.keys() <= _PLAIN_KEYS and variables.keys() <= _PLAIN_VARIABLES):
        return None
    filed = {key: table[key] for key in ("theme", "default_profile") if key in table}
    if not all(isinstance(value, str) for value in filed.values()):
        return None
    theme = variables.get(ENV_NAMES["theme"].lower(), filed.get("theme"))
    default = variables.get(ENV_NAMES["default_profile"].lower(), filed.get("default_profile"))
    chosen = profile or default
    if chosen is not None and chosen != SANDBOX_PROFILE:
        return None
    from tui.desk.alert_settings import AlertSettings
    from tui.desk.guardrails import GuardrailSettings

    return DeskStart(theme, None, GuardrailSettings(), AlertSettings())


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
    import json
    import tomllib

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
