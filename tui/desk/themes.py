"""The desk's colour themes: built-in `Theme` objects plus user theme files.

desk.tcss never names a colour; it uses Textual's theme variables and the desk's own
(``$bid``, ``$ask``, ``$stale`` ...), so one theme file recolours the whole desk. User themes are
TOML files in a ``themes`` directory (the user config dir's, and the repo's ``themes/`` examples):

    name = "harbour"
    primary = "#3a7bd5"
    dark = true
    [variables]
    bid = "#3fb950"
    ask = "#f85149"

A file that does not parse, names no ``name``/``primary``, or has a field that is not a colour
is skipped with a warning naming the file, the line and the field (the desk then opens with
its default theme); a theme missing some desk variable gets the default for it, so a partial
theme still works.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from tui.desk.toml_lines import entry_lines, line_of

DEFAULT_THEME = "desk-dark"
"""The theme used when the configured one is unknown or broken."""

COLOURBLIND_THEME = "desk-colourblind"
"""The built-in theme whose bid and ask (blue and orange) survive red-green colour blindness."""

DESK_VARIABLES: dict[str, str] = {
    "bid": "#3fb950",
    "ask": "#f85149",
    "stale": "#d29922",
    "flash": "#1f6feb 40%",
    "needs-action": "#d29922",
    "booked": "#3fb950",
    "rejected": "#f85149",
    "pending": "#8b949e",
    "sandbox": "#a371f7",
    "live": "#f85149",
    "muted": "#8b949e",
    "field-error": "#f85149",
}
"""Every desk variable desk.tcss uses, with the default a theme falls back to."""

_BUILTIN = (
    Theme(
        name="desk-dark",
        primary="#58a6ff",
        secondary="#1f6feb",
        accent="#d2a8ff",
        warning="#d29922",
        error="#f85149",
        success="#3fb950",
        foreground="#c9d1d9",
        background="#0d1117",
        surface="#161b22",
        panel="#21262d",
        dark=True,
        variables=dict(DESK_VARIABLES),
    ),
    Theme(
        name="desk-light",
        primary="#0969da",
        secondary="#218bff",
        accent="#8250df",
        warning="#9a6700",
        error="#cf222e",
        success="#1a7f37",
        foreground="#1f2328",
        background="#ffffff",
        surface="#f6f8fa",
        panel="#eaeef2",
        dark=False,
        variables={
            **DESK_VARIABLES,
            "bid": "#157f1f",  # green still on a 16-colour terminal (#1a7f37 turns grey)
            "ask": "#cf222e",
            "stale": "#9a6700",
            "flash": "#0969da 25%",
            "needs-action": "#bc4c00",
            "booked": "#157f1f",
            "rejected": "#cf222e",
            "pending": "#57606a",
            "sandbox": "#8250df",
            "live": "#cf222e",
            "muted": "#57606a",
            "field-error": "#cf222e",
        },
    ),
    Theme(
        name="desk-amber",
        primary="#ffb000",
        secondary="#cc8c00",
        accent="#ffd37a",
        warning="#ffd37a",
        error="#ff5f1f",
        success="#ffcc66",
        foreground="#ffb000",
        background="#120c00",
        surface="#1c1400",
        panel="#2a1e00",
        dark=True,
        variables={
            **DESK_VARIABLES,
            "bid": "#ffd37a",
            "ask": "#ff5f1f",
            "stale": "#ffe9b3",  # brighter than the text: a stale mark must stand out
            "flash": "#ffb000 30%",
            "needs-action": "#ffe9b3",
            "booked": "#ffd37a",
            "rejected": "#ff5f1f",
            "pending": "#a07000",
            "sandbox": "#ffe9b3",
            "muted": "#a07000",
            "field-error": "#ff5f1f",
        },
    ),
    # Bid and ask, booked and rejected, by blue against orange (the Okabe-Ito pairs): told
    # apart with deuteranopia and protanopia as well as with full colour vision.
    Theme(
        name=COLOURBLIND_THEME,
        primary="#56b4e9",
        secondary="#0072b2",
        accent="#cc79a7",
        warning="#f0e442",
        error="#e69f00",
        success="#56b4e9",
        foreground="#e6e6e6",
        background="#101418",
        surface="#171c22",
        panel="#222a33",
        dark=True,
        variables={
            **DESK_VARIABLES,
            "bid": "#56b4e9",
            "ask": "#e69f00",
            "stale": "#f0e442",
            "flash": "#0072b2 40%",
            "needs-action": "#f0e442",
            "booked": "#56b4e9",
            "rejected": "#e69f00",
            "pending": "#a0a8b0",
            "sandbox": "#cc79a7",
            "live": "#e69f00",
            "muted": "#a0a8b0",
            "field-error": "#e69f00",
        },
    ),
)

BUILTIN_THEMES: dict[str, Theme] = {theme.name: theme for theme in _BUILTIN}
"""The themes that ship inside the package."""


@dataclass
class ThemeLoad:
    """The themes found in some directories, and why any file was skipped."""

    themes: dict[str, Theme] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


_THEME_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)


def theme_from_mapping(data: dict[str, object], source: str = "theme") -> Theme:
    """Build a `Theme` from a parsed theme file; a ValueError names what is wrong."""
    name = data.get("name")
    primary = data.get("primary")
    if not isinstance(name, str) or not name.strip():
        raise ThemeFieldError(source, ("name",), "'name' must be a non-empty string")
    if not isinstance(primary, str) or not _is_colour(primary):
        raise ThemeFieldError(source, ("primary",), f"'primary' must be a colour: {primary!r}")
    colours: dict[str, str] = {}
    for key in _THEME_KEYS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not _is_colour(value):
            raise ThemeFieldError(source, (key,), f"'{key}' is not a colour: {value!r}")
        colours[key] = value
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFieldError(source, ("dark",), "'dark' must be true or false")
    raw_variables = data.get("variables", {})
    if not isinstance(raw_variables, dict):
        raise ThemeFieldError(source, ("variables",), "[variables] must be a table")
    variables = dict(DESK_VARIABLES)
    for key, value in raw_variables.items():
        if not isinstance(value, str) or not _is_colour(value.split()[0] if value.strip() else ""):
            raise ThemeFieldError(
                source, ("variables", key), f"variable '{key}' is not a colour: {value!r}"
            )
        variables[str(key)] = value
    theme = Theme(
        name=name.strip(),
        primary=primary,
        secondary=colours.get("secondary"),
        warning=colours.get("warning"),
        error=colours.get("error"),
        success=colours.get("success"),
        accent=colours.get("accent"),
        foreground=colours.get("foreground"),
        background=colours.get("background"),
        surface=colours.get("surface"),
        panel=colours.get("panel"),
        boost=colours.get("boost"),
        dark=dark,
        variables=variables,
    )
    # Colour strings are only checked when Textual parses them; do it now so a typo in a
    # user file is reported here, not as a crash when the theme is switched on.
    try:
        theme.to_color_system().generate()
    except ColorParseError as error:
        raise ValueError(f"{source}: {error}") from None
    return theme


def _is_colour(text: str) -> bool:
    try:
        Color.parse(text)
    except ColorParseError:
        return False
    return True


class ThemeFieldError(ValueError):
    """A theme field that is not what it should be: the field's key path says which."""

    def __init__(self, source: str, field: tuple[str, ...], message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.field = field
        self.message = message


def load_theme_file(path: Path) -> Theme:
    """Read one TOML theme file; a bad field is named with its line (``file:12: ...``)."""
    text = path.read_text(encoding="utf-8")
    try:
        return theme_from_mapping(tomllib.loads(text), source=str(path))
    except ThemeFieldError as error:
        line = line_of(entry_lines(text), error.field)
        where = f"{path}:{line}" if line else str(path)
        raise ValueError(f"{where}: {error.message}") from None


def load_user_themes(directories: Iterable[Path]) -> ThemeLoad:
    """Load every ``*.toml`` theme in ``directories``; later directories win on a name clash."""
    loaded = ThemeLoad()
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except (OSError, ValueError, tomllib.TOMLDecodeError) as error:
                loaded.warnings.append(f"theme skipped: {error}")
                continue
            loaded.themes[theme.name] = theme
    return loaded


def pick_theme(name: str | None, available: Iterable[str]) -> str:
    """The configured theme if it exists, else the default."""
    names = set(available)
    return name if name and name in names else DEFAULT_THEME
