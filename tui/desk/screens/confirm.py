"""A yes/no confirmation: what is about to be sent, in full, before it is sent.

Used before an accept (side, price, qty, notional, pool), the kill switch and RFQ cancels.
``y`` or Enter confirms, ``n`` or Escape backs out; nothing is sent on a back-out.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask once; dismiss with True (confirmed) or False."""

    BINDINGS = [
        Binding("y", "confirm", "Confirm"),
        Binding("enter", "confirm", "Confirm", show=False),
        Binding("n", "cancel", "Back out"),
        Binding("escape", "cancel", "Back out", show=False),
    ]

    def __init__(
        self, title: str, body: str, *, confirm_label: str = "Confirm", danger: bool = False
    ) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm_label
        self.danger = danger

    def compose(self) -> ComposeResult:
        """Title, what will happen, and the two choices."""
        with Vertical(id="confirm-box", classes="modal-box danger" if self.danger else "modal-box"):
            yield Static(f"[b]{self.title_text}[/b]", classes="modal-title")
            yield Static(self.body, id="confirm-body")
            with Horizontal(classes="modal-buttons"):
                yield Button(
                    f"{self.confirm_label} (y)",
                    id="yes",
                    variant="error" if self.danger else "primary",
                    compact=True,
                )
                yield Button("Back out (n)", id="no", compact=True)
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Either button answers."""
        self.dismiss(event.button.id == "yes")

    def action_confirm(self) -> None:
        """Yes."""
        self.dismiss(True)

    def action_cancel(self) -> None:
        """No."""
        self.dismiss(False)
