"""The accept confirmation: the quote's terms, kept live while the trader reads them.

A quote is time-bound: its countdown and age tick every second while the dialog is open
(as every countdown of the desk does), so the terms on screen are never older than a second.
Once the quote has expired by the desk's clock, the dialog says so, its Trade button goes
grey and ``y`` sends nothing (the bell). Otherwise ``y`` still looks at the venue again
before anything is sent (`RecheckedConfirmScreen`): a quote replaced or pulled meanwhile is
not traded. The guardrails' second question on an accept is this dialog too, answered with
``s``, which looks at the venue again the same way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual.widgets import Button, Static

from tui.desk.roles.accept_terms import AcceptTerms
from tui.desk.screens.confirm import Recheck, RecheckedConfirmScreen

TICK_S = 1.0
"""How often the terms are drawn again: the desk's second."""


class AcceptQuoteScreen(RecheckedConfirmScreen[AcceptTerms]):
    """Confirm an accept, its terms drawn again every second (see module docs)."""

    def __init__(
        self,
        terms: AcceptTerms,
        describe: Callable[[AcceptTerms], str],
        check: Callable[[AcceptTerms], Awaitable[Recheck[AcceptTerms]]],
        expired: Callable[[AcceptTerms], bool],
        *,
        title: str = "Accept quote?",
        body: str | None = None,
        second_question: bool = False,
    ) -> None:
        """``describe`` says the terms as of now, ``check`` asks the venue again, ``expired``
        says whether the terms' quote is past its expiry now. As the guardrails' second
        question (``second_question``, ``body`` its reasons) ``s`` looks again just as ``y``
        does on the first."""
        self._shown = ""
        self._describe_terms = describe
        super().__init__(
            title,
            terms,
            self._describe,
            check,
            confirm_label="Send anyway" if second_question else "Trade",
            body=body,
            danger=second_question,
            second_question=second_question,
        )
        self.is_expired = expired

    def _describe(self, terms: AcceptTerms) -> str:
        """The terms in words, remembered: the next second replaces exactly this text (a
        "Not sent: ..." line above it stays)."""
        self._shown = self._describe_terms(terms)
        return self._shown

    def on_mount(self) -> None:
        """Tick with the desk's second; an already expired quote says so at once."""
        self.set_interval(TICK_S, self.tick, name="accept-terms")
        self._hold_if_expired()

    def tick(self) -> None:
        """The terms again, as of now: countdown, age, and an expiry that came meanwhile."""
        if self.checking or self.terms is None or not self._shown:
            return
        before = self._shown
        words = self._describe(self.terms)
        if words != before:
            self.body = self.body.replace(before, words)
            self.query_one("#confirm-body", Static).update(self.body)
        self._hold_if_expired()

    def expired(self) -> bool:
        """Whether the terms on screen are of a quote past its expiry."""
        return self.terms is not None and self.is_expired(self.terms)

    def _hold_if_expired(self) -> None:
        if self.expired():
            self.query_one("#yes", Button).disabled = True

    def action_confirm(self) -> None:
        """Nothing is sent on an expired quote (the bell); else the venue is asked again."""
        if not self.second_question and self._held():
            return
        super().action_confirm()

    def action_send_anyway(self) -> None:
        """The second question's ``s``: the same hold on an expired quote, the same look."""
        if self.second_question and self._held():
            return
        super().action_send_anyway()

    def _held(self) -> bool:
        """Whether the quote on screen has expired (the bell; the terms say so at once)."""
        if not self.expired():
            return False
        self.app.bell()
        self.tick()  # the terms say so now, not with the next second
        return True
