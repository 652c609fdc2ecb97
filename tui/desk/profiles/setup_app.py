"""``rfq-desk profile add NAME`` at a terminal without its flags: the first-run screen alone.

A small Textual app that shows `FirstRunScreen` and exits with what it saved, so a trader can
set a venue up before ever opening the desk.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from tui.desk.screens.first_run import Checker, FirstRunScreen, SavedProfile
from tui.desk.themes import DESK_VARIABLES


class ProfileSetupApp(App[SavedProfile | None]):
    """The first-run screen as an app of its own; its return value is the saved profile."""

    TITLE = "RFQ Desk: venue profile"
    CSS_PATH = "../desk.tcss"

    def __init__(
        self, name: str = "", *, checker: Checker | None = None, config_path: Path | None = None
    ) -> None:
        super().__init__()
        self.profile_name = name
        self.checker = checker
        self.config_path = config_path

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """The desk's own variables ($field-error ...), which its stylesheet uses."""
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def on_mount(self) -> None:
        """Open the screen; whatever it dismisses with ends the app."""
        screen = FirstRunScreen(
            self.profile_name, checker=self.checker, config_path=self.config_path
        )
        self.push_screen(screen, callback=self.exit)


def run_setup(name: str = "") -> SavedProfile | None:
    """Run the first-run screen until it saves or the trader backs out."""
    return ProfileSetupApp(name).run()
