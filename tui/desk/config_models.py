"""The desk's settings as pydantic-settings models: the checks every configured value passes.

`DeskSettings` is config.toml's top level, `Profile` one ``[profiles.NAME]`` table and
`ProfileOverrides` the environment's overrides of the selected profile; `tui.desk.config_tables`
holds the ``[guardrails]`` and ``[alerts]`` tables. `Layered`, their base, reads (highest first)
the command line (init arguments), the environment and the config file's tables, the two
handed over by `tui.desk.config_sources.reading`.

Loaded only when there is something to check (`tui.desk.config.desk_start`): a desk started
with nothing configured opens without pydantic (issue 11). Import the names from
`tui.desk.config`, which loads this module on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from tui.desk.config_sources import ENV_NAMES, ENV_NESTING, ENV_PREFIX, READING, desk_variables
from tui.desk.config_tables import AlertsTable, GuardrailsTable


class GivenEnv(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping (tests pass their own)."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # Only RFQ_DESK_* names: a field's alias (default_profile) must not match a stray
        # variable of that bare name. Profiles are the file's; their fields are overridden
        # through `ProfileOverrides`, never as RFQ_DESK_PROFILES__NAME__FIELD.
        profiles = f"{ENV_PREFIX}profiles".lower()
        ours = desk_variables(self._environ)
        return {name: value for name, value in ours.items() if not name.startswith(profiles)}


class Layered(BaseSettings):
    """Settings read from, highest first: the command line, the environment, the file."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Command line (init arguments) > environment > config.toml > defaults."""
        env, table = READING.get(({}, {}))
        file_settings = InitSettingsSource(settings_cls, table)
        return (init_settings, GivenEnv(settings_cls, env), file_settings)


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
