"""How the end of a trader's action is shown: the form that waits, a toast, the panes it moved.

A role's runner posts an `ActionOutcome` when an action ends; the app files it in the book and
`DeskPanes.outcome` hands it here. A form still open and waiting (the builder, the permit)
shows it under its fields; otherwise a toast says how it ended (a refusal in words, the venue's
raw code on a dim second line); each pane that shows outcomes of its kind gets it, and the
records it moved are redrawn at once (`DeskPanes.records_moved`, which also alerts what now
waits for the trader, such as a deposit to approve after an accept).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.markup import escape
from textual.widgets import Input

from tui.desk.layout import quote_board, quote_ticket
from tui.desk.messages import ActionKind, ActionOutcome
from tui.desk.widgets.trade_tracker import TradeTracker

if TYPE_CHECKING:
    from tui.desk.panes import DeskPanes


class ShowsOutcomes(Protocol):
    """A pane that shows how some actions ended."""

    OUTCOMES: frozenset[ActionKind]

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """Show the outcome of one of ``OUTCOMES``."""
        ...


async def show_outcome(panes: DeskPanes, outcome: ActionOutcome) -> None:
    """An action came back: to the form that waits for it, a toast, and the pane it concerns
    (its error line, or the ticket's fields)."""
    from tui.api.models import RFQ
    from tui.desk.screens.new_rfq import NewRfqScreen
    from tui.desk.screens.permit import PermitScreen

    app = panes.app
    typing_in = app.focused
    form = outcome.form
    if isinstance(form, NewRfqScreen | PermitScreen) and form.is_attached and form.sending:
        form.show_outcome(outcome)
        if not outcome.ok:
            # The form is still open: the reasons are under its fields, not in a toast.
            return
    if outcome.crashed:
        return  # the failed worker is reported as such
    if outcome.ok and isinstance(outcome.record, RFQ):
        await panes.rfqs("sent", follow=outcome.record.rfq_id)
    kind = outcome.kind
    if outcome.ok:
        app.notify(outcome.summary, title=kind.words)
    else:
        app.notify(refusal_toast(outcome), title=f"{kind.words} failed", severity="error")
    shown: tuple[ShowsOutcomes, ...] = (
        quote_ticket(app),
        quote_board(app),
        app.query_one(TradeTracker),
        *((panes.pools_pane,) if panes.pools_pane is not None else ()),
    )
    for pane in shown:
        if kind in pane.OUTCOMES:
            pane.show_outcome(outcome)
    if outcome.ok or kind is ActionKind.KILL_SWITCH:
        await panes.records_moved(outcome)
    ticket = quote_ticket(app)
    if kind in ticket.OUTCOMES and typing_in is not None and ticket in typing_in.ancestors:
        # The trader stays where they were typing (the first price field if that one went):
        # keys typed next edit the quote, never switch tabs (1 to 6).
        field = typing_in if typing_in.is_attached else next(iter(ticket.query(Input)), None)
        if field is not None:
            field.focus()


def refusal_toast(outcome: ActionOutcome) -> str:
    """Why an action failed, in words; the venue's raw status and code on a dim second line."""
    from tui.desk.roles.refusals import refusal_words

    if outcome.error is None or not outcome.error.status:
        return escape(outcome.problem)
    words, detail = refusal_words(outcome.error)
    return f"{escape(words)}\n[dim]{escape(detail)}[/]"
