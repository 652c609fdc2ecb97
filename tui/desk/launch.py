"""Start the desk from the command line: pick the profile (or the sandbox), then run the app.

``rfq-desk`` with no profile configured runs on the built-in sandbox; ``rfq-desk --profile NAME``
opens a configured venue. Configuration problems, and a ``--theme`` that names no theme, are
reported in one line on stderr, before the terminal is taken over; so is a ``[keymap]`` entry
the desk refuses (it opens with that binding's default keys). A theme picked during the
session (the command palette's "Change theme") is written to the config file when the desk
closes, so the next start opens with it.

On the built-in sandbox, the sandbox child is launched as soon as the configuration says it is
the sandbox, before the desk itself is imported (`SandboxConnector.launch_early`): a new data
folder's sandbox seeds its database while the desk imports and draws its first frame, instead
of after. The connector owns the child from the start, so quitting stops it as before; should
the desk never run (or end without closing), `run_desk` stops it on the way out.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tui.desk.config import (
    ConfigError,
    default_config_path,
    desk_start,
    remember_theme,
    theme_dirs,
)

if TYPE_CHECKING:
    from tui.desk.config import DeskStart
    from tui.desk.session import Connector


def known_themes() -> list[str]:
    """Every theme the desk can open with: its own, the user's files, and Textual's."""
    from textual.theme import BUILTIN_THEMES as TEXTUAL_THEMES

    from tui.desk.themes import BUILTIN_THEMES, load_user_themes

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
    wanted = theme or start.theme
    if wanted is not None:  # checked before any sandbox is launched for a desk that won't run
        themes = known_themes()
        if theme is not None and theme not in themes:
            print(
                f"rfq-desk: no theme named {theme!r}; the themes are: {', '.join(themes)}",
                file=sys.stderr,
            )
            return 2
        if wanted not in themes:
            print(
                f"rfq-desk: the configured theme {wanted!r} is unknown; using the default",
                file=sys.stderr,
            )
    if start.profile is not None:
        from tui.desk.session import ProfileConnector

        return _run_app(ProfileConnector(start.profile), start, wanted)
    from tui.desk.session import SandboxConnector

    sandbox = SandboxConnector(data)
    sandbox.launch_early()
    try:
        return _run_app(sandbox, start, wanted)
    finally:
        sandbox.stop_early()


def _run_app(connector: Connector, start: DeskStart, wanted: str | None) -> int:
    """The desk on ``connector``, until the user quits; the theme picked meanwhile is kept."""
    from tui.desk.app import DeskApp
    from tui.desk.keymap import read_keymap, use_keymap
    from tui.desk.themes import pick_theme

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
