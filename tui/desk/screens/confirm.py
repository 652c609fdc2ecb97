"""A yes/no confirmation: what is about to be sent, in full, before it is sent.

Used before an accept (side, price, qty, notional, pool), the kill switch and RFQ cancels.
``y`` or Enter confirms, ``n`` or Escape backs out; nothing is sent on a back-out.

`RecheckedConfirmScreen` also looks at the newest data on ``y`` before it says yes: terms
that changed since the dialog opened (a quote replaced, pulled, expired) are not confirmed;
the dialog says what changed and offers the newest terms, if there are any, for another ``y``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

Terms = TypeVar("Terms")


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


@dataclass(frozen=True)
class Recheck(Generic[Terms]):
    """What a look at the newest data found: ``changed`` is empty when the terms still hold;
    else it says what changed, and ``offer`` holds the newest terms (None: nothing to offer)."""

    changed: str = ""
    offer: Terms | None = None


class RecheckedConfirmScreen(ConfirmScreen, Generic[Terms]):
    """A confirmation that re-checks its terms on ``y`` (see module docs).

    ``describe`` turns terms into the dialog's body; ``check`` looks at the newest data. When
    the dialog is dismissed with True, ``terms`` are the terms the trader confirmed last.
    """

    def __init__(
        self,
        title: str,
        terms: Terms,
        describe: Callable[[Terms], str],
        check: Callable[[Terms], Awaitable[Recheck[Terms]]],
        *,
        confirm_label: str = "Confirm",
    ) -> None:
        super().__init__(title, describe(terms), confirm_label=confirm_label)
        self.terms: Terms | None = terms
        self.describe = describe
        self.check = check
        self.checking = False

    def action_confirm(self) -> None:
        """Look at the newest data; yes only when the terms still hold."""
        if self.checking or self.terms is None:
            return
        self.checking = True
        self.query_one("#yes", Button).disabled = True
        self.run_worker(self._recheck(self.terms), exclusive=True, exit_on_error=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Yes goes through the same re-check as ``y``."""
        if event.button.id == "yes":
            self.action_confirm()
        else:
            self.dismiss(False)

    async def _recheck(self, terms: Terms) -> None:
        try:
            found = await self.check(terms)
        except Exception as error:  # a failed look sends nothing, and may be tried again
            found = Recheck(f"could not look at the venue again ({error}): nothing sent", terms)
        self.checking = False
        if not found.changed:
            self.dismiss(True)
            return
        self.terms = found.offer
        yes = self.query_one("#yes", Button)
        said = f"[b $error]Not sent: {found.changed}[/]\n\n"
        if found.offer is None:
            self.body = said + "Nothing left to trade here: n backs out."
        else:
            self.body = said + self.describe(found.offer)
            yes.label = "Trade this instead (y)"
            yes.disabled = False
        self.query_one("#confirm-body", Static).update(self.body)
