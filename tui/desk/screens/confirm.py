"""A yes/no confirmation: what is about to be sent, in full, before it is sent.

Used before an accept (side, price, qty, notional, pool), the kill switch and RFQ cancels.
``y`` or Enter confirms, ``n`` or Escape backs out; nothing is sent on a back-out.

A second question (a guardrail: "this is 500 bps off fair, send anyway?") is asked with
``second_question``: ``y`` and Enter do not answer it, only ``s`` (send anyway) or ``n``. A
``yy`` hammered through the first question, or typed ahead of it, rings the bell instead of
sending what the guardrail stopped; no button holds the focus (Enter would press it). The
dialog says under the question which keys answer it, as the keymap has them, and the footer
offers those keys only.

`RecheckedConfirmScreen` also looks at the newest data on ``y`` before it says yes: terms
that changed since the dialog opened (a quote replaced, pulled, expired) are not confirmed;
the dialog says what changed and offers the newest terms, if there are any, for another ``y``.
Asked as a second question it looks again on its ``s`` just the same: the terms it was asked
about may have changed while it was read, and newer terms are a new question (a plain ``y``
one, whose answer goes through the guardrails again), never sent on the ``s`` given to the old.
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

from tui.desk.keymap import DeskKeymap

Terms = TypeVar("Terms")


class ConfirmScreen(ModalScreen[bool]):
    """Ask once; dismiss with True (confirmed) or False."""

    BINDINGS = [
        Binding("y", "confirm", "Confirm", id="confirm.yes"),
        Binding("enter", "confirm", "Confirm", show=False, id="confirm.yes_enter"),
        Binding("n", "cancel", "Back out", id="confirm.no"),
        Binding("escape", "cancel", "Back out", show=False, id="confirm.no_escape"),
        Binding("s", "send_anyway", "Send anyway", id="confirm.send_anyway"),
        Binding(
            "y,enter",
            "not_an_answer",
            "y is no answer to a second question",
            show=False,
            id="confirm.not_an_answer",
        ),
    ]

    def __init__(
        self,
        title: str,
        body: str,
        *,
        confirm_label: str = "Confirm",
        danger: bool = False,
        second_question: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm_label
        self.danger = danger
        self.second_question = second_question

    def compose(self) -> ComposeResult:
        """Title, what will happen (for a second question, which keys answer it), and the two
        choices, each naming its key."""
        yes_id = "confirm.send_anyway" if self.second_question else "confirm.yes"
        yes_key, no_key = self.key_words(yes_id), self.key_words("confirm.no")
        if self.second_question:
            self.body += (
                f"\n\n{yes_key} sends it anyway, {no_key} backs out "
                f"({self.key_words('confirm.yes')} does not answer this question)."
            )
        with Vertical(id="confirm-box", classes="modal-box danger" if self.danger else "modal-box"):
            yield Static(f"[b]{self.title_text}[/b]", classes="modal-title")
            yield Static(self.body, id="confirm-body")
            with Horizontal(classes="modal-buttons"):
                yes = Button(
                    f"{self.confirm_label} ({yes_key})",
                    id="yes",
                    variant="error" if self.danger else "primary",
                    compact=True,
                )
                no = Button(f"Back out ({no_key})", id="no", compact=True)
                if self.second_question:
                    yes.can_focus = no.can_focus = False
                yield yes
                yield no
        yield Footer()

    def key_words(self, binding_id: str) -> str:
        """The keys of one of the dialog's bindings as the trader has them (the desk's keymap;
        the default keys outside the desk)."""
        keymap = getattr(self.app, "desk_keymap", None)
        if isinstance(keymap, DeskKeymap):
            return keymap.display(binding_id)
        return next(b.key for b in self.BINDINGS if isinstance(b, Binding) and b.id == binding_id)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Either button answers."""
        self.dismiss(event.button.id == "yes")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A second question is answered by ``s`` (or ``n``) only, and its footer offers no
        ``y``; ``y`` and Enter ring the bell there (`action_not_an_answer`)."""
        if action in ("send_anyway", "not_an_answer"):
            return self.second_question
        if action == "confirm":
            return not self.second_question
        return True

    def action_confirm(self) -> None:
        """Yes (never to a second question: see module docs)."""
        if not self.second_question:
            self.dismiss(True)

    def action_not_an_answer(self) -> None:
        """``y`` or Enter on a second question: the bell, nothing sent."""
        self.app.bell()

    def action_send_anyway(self) -> None:
        """Yes to a second question, read and answered with its own key."""
        if self.second_question:
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
        body: str | None = None,
        danger: bool = False,
        second_question: bool = False,
    ) -> None:
        """``body``: what the dialog says first (default: ``describe(terms)``), such as a
        second question's reasons."""
        super().__init__(
            title,
            describe(terms) if body is None else body,
            confirm_label=confirm_label,
            danger=danger,
            second_question=second_question,
        )
        self.terms: Terms | None = terms
        self.describe = describe
        self.check = check
        self.checking = False
        self._asked: str | None = None
        """The question as first drawn (its words said again above a failed look)."""

    def action_confirm(self) -> None:
        """Look at the newest data; yes only when the terms still hold."""
        if not self.second_question:
            self._look_again()

    def action_send_anyway(self) -> None:
        """A second question's ``s``: the same look at the newest data before any yes."""
        if self.second_question:
            self._look_again()

    def _look_again(self) -> None:
        if self.checking or self.terms is None:
            return
        if self._asked is None:
            self._asked = self.body
        self.checking = True
        self.query_one("#yes", Button).disabled = True
        self.run_worker(self._recheck(self.terms), exclusive=True, exit_on_error=False)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Yes goes through the same re-check as ``y`` (or ``s``)."""
        if event.button.id == "yes":
            self._look_again()
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
        retry = found.offer is not None and found.offer == terms  # the same terms, looked at
        self.terms = found.offer
        if self.second_question and not retry:
            # Newer terms are a new question, answered with y (and past the guardrails again).
            self.second_question = False
            self.refresh_bindings()
        yes = self.query_one("#yes", Button)
        said = f"[b $error]Not sent: {found.changed}[/]\n\n"
        if found.offer is None:
            self.body = (
                said + f"Nothing left to trade here: {self.key_words('confirm.no')} backs out."
            )
        elif retry and self.second_question:
            self.body = said + (self._asked or "")
            yes.disabled = False
        else:
            self.body = said + self.describe(found.offer)
            yes.label = f"Trade this instead ({self.key_words('confirm.yes')})"
            yes.disabled = False
        self.query_one("#confirm-body", Static).update(self.body)
