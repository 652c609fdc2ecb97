"""The wallet password prompt: unlocks the encrypted keystore that signs deposit permits.

The password is typed into a masked input, handed to the caller once, and never shown, stored
or logged; the screen forgets it as soon as it closes.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static


class PasswordScreen(ModalScreen[SecretStr | None]):
    """Ask for the keystore password; dismiss with it (as a SecretStr) or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="password.cancel")]

    def __init__(self, keystore: Path, *, error: str = "") -> None:
        super().__init__()
        self.keystore = keystore
        self.error = error

    def compose(self) -> ComposeResult:
        """The keystore path, the masked input, and the last error."""
        with Vertical(classes="modal-box"):
            yield Static("[b]Unlock wallet[/b]", classes="modal-title")
            yield Static(
                f"Keystore {self.keystore}\nIt signs this deposit permit and is forgotten."
            )
            yield Input(password=True, id="password", placeholder="password")
            yield Static(self.error, id="err-password", classes="field-error")
        yield Footer()

    def on_mount(self) -> None:
        """Focus the input; show the previous error if any."""
        self.query_one("#err-password").display = bool(self.error)
        self.query_one("#password", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Hand the password over and forget it."""
        value = event.value
        event.input.value = ""
        if not value:
            error = self.query_one("#err-password", Static)
            error.update("password: required")
            error.display = True
            return
        self.dismiss(SecretStr(value))

    def action_cancel(self) -> None:
        """Give up unlocking."""
        self.dismiss(None)
