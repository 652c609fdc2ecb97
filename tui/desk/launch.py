"""Start the desk from the command line: pick the profile (or the sandbox), then run the app.

``rfq-desk`` with no profile configured runs on the built-in sandbox; ``rfq-desk --profile NAME``
opens a configured venue. Configuration problems, and a ``--theme`` that names no theme, are
reported in one line on stderr, before the terminal is taken over; so is a ``[keymap]`` entry
the desk refuses (it opens with that binding's default keys). A theme picked during the
session (the command palette's "Change theme") is written to the config file when the desk
closes, so the next start opens with it.
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual.theme import BUILTIN_THEMES as TEXTUAL_THEMES

from tui.desk.config import (
    ConfigError,
    default_config_path,
    desk_start,
    remember_theme,
    theme_dirs,
)
from tui.desk.keymap import read_keymap, use_keymap
from tui.desk.themes import BUILTIN_THEMES, load_user_themes, pick_theme


def known_themes() -> list[str]:
    """Every theme the desk can open with: its own, the user's files, and Textual's."""
    user = load_user_themes(theme_dirs()).themes
    return sorted({*BUILTIN_THEMES, *user, *TEXTUAL_THEMES})


def run_desk(
    profile: str | None = None, theme: str | None = None, *, data: Path | None = None
) -> int:
    """Run the desk until the user quits; the process exit code."""
    try:
        start = desk_start(profile)
    except ConfigError as error:
        print(f"rfq-desk: {error}", file=sys.stderr)
        return 2
    themes = known_themes()
    if theme is not None and theme not in themes:
        print(
            f"rfq-desk: no theme named {theme!r}; the themes are: {', '.join(themes)}",
            file=sys.stderr,
        )
        return 2
    wanted = theme or start.theme
    if wanted is not None and wanted not in themes:
        print(
            f"rfq-desk: the configured theme {wanted!r} is unknown; using the default",
            file=sys.stderr,
        )

    from tui.desk.app import DeskApp
    from tui.desk.session import Connector, ProfileConnector, SandboxConnector

    connector: Connector = (
        SandboxConnector(data) if start.profile is None else ProfileConnector(start.profile)
    )
    app = DeskApp(
        connector,
        theme=wanted,
        guardrails=start.guardrails,
        alert_settings=start.alerts,
    )
    keymap = read_keymap(default_config_path())  # the file desk_start read
    use_keymap(app, keymap)
    for warning in keymap.warnings:  # the desk keeps the default keys of these
        print(f"rfq-desk: {warning}", file=sys.stderr)
    opened_with = pick_theme(wanted, app.available_themes)
    app.run()
    if app.theme != opened_with:
        try:
            remember_theme(app.theme)
        except ConfigError as error:
            print(f"rfq-desk: the theme was not kept: {error}", file=sys.stderr)
    return 0
