"""The quote ticket: a maker's bid and ask per leg of a received RFQ, and how it will settle.

The form's rules live in `tui.desk.widgets.quote_form` (prefills, the request, which field an
error belongs to); this widget lays the form out, reads it, and shows errors under the field
they belong to. The ticket never calls the venue: it posts `QuoteTicket.Submit` (or `Cancel`)
and the maker role sends; the outcome comes back to `QuoteTicket.show_outcome`.

What is sent is what the screen shows: the leg prices are read from the leg rows on screen,
and only when those rows were filled for the RFQ the head names; ``ctrl+s`` replaces the live
quote the ticket names above the form (`tui.desk.widgets.ticket_sends`), or sends a new one.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Button, Input, Select

from tui.api.models import RFQStatus
from tui.desk.book import DeskBook
from tui.desk.messages import ActionKind, ActionOutcome, ActionRequest
from tui.desk.roles.refusals import outcome_words
from tui.desk.widgets.common.forms import FORM, FormError, errors_from_api
from tui.desk.widgets.common.forms import show_errors as show_form_errors
from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.quote_figures import PricingMemo, leg_field_side, listing_marks
from tui.desk.widgets.quote_form import (
    TicketValues,
    build_quote_request,
    client_quote_id,
    leg_label,
    leg_marks,
    locate_quote_field,
    prefill,
)
from tui.desk.widgets.ticket_form import ticket_body
from tui.desk.widgets.ticket_head import EMPTY, TicketHead, head_lines
from tui.desk.widgets.ticket_legs import TicketLegs
from tui.desk.widgets.ticket_pools import TicketPools
from tui.desk.widgets.ticket_pricing import DRIVERS, TicketPricing, typed_price
from tui.desk.widgets.ticket_sends import (
    TicketSends,
    expiry_words,
    live_quotes,
    live_words,
    sends_lines,
)

if TYPE_CHECKING:
    from tui.api.models import RFQ, NewQuoteRequest


class QuoteTicket(Vertical):
    """The maker's ticket for the selected received RFQ (see module docs)."""

    BORDER_TITLE = "Quote ticket"

    OUTCOMES = frozenset({ActionKind.NEW_QUOTE, ActionKind.REPLACE_QUOTE, ActionKind.CANCEL_QUOTE})
    """The actions whose outcome the ticket shows."""

    BINDINGS = [
        Binding("ctrl+s", "submit", "Send quote", priority=True, id="ticket.send"),
        Binding("ctrl+r", "replace", "Replace quote", priority=True, id="ticket.replace"),
        Binding("ctrl+w", "cancel_quote", "Pull quote", priority=True, id="ticket.pull"),
        Binding("escape", "app.focus_inbox", "Back to inbox", id="ticket.back"),
    ]

    @dataclass
    class Submit(ActionRequest):
        """The user sent a valid quote: new, or replacing ``replaces``."""

        request: NewQuoteRequest
        replaces: str | None = None

    @dataclass
    class Cancel(ActionRequest):
        """The user pulled their live quote."""

        quote_id: str

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self.rfq: RFQ | None = None
        self._legs_for: str | None = None
        self._pricing = PricingMemo()
        self._client_ids = itertools.count(1)
        self._closed_shown = False
        self._errors_shown = False
        self._moving = asyncio.Lock()

    def compose(self) -> ComposeResult:
        """Head, what ctrl+s sends, then the form (`ticket_form.ticket_body`)."""
        yield TicketHead(id="ticket-head")
        yield TicketSends(id="ticket-sends")
        yield from ticket_body(self.book)

    def on_mount(self) -> None:
        """Start empty. The parts a cursor move fills are looked up once, here."""
        self._head = self.query_one("#ticket-head", TicketHead)
        self._sends = self.query_one(TicketSends)
        self._body = self.query_one("#ticket-body")
        self._legs = self.query_one(TicketLegs)
        self._figures = self.query_one(TicketPricing)
        self._pools = self.query_one(TicketPools)
        self._expiry = self.query_one("#expiry", Input)
        self._client_id = self.query_one("#client-id", Input)
        self._live = self.query_one("#ticket-live", LiveText)
        show_form_errors(self, {})
        self._body.display = False

    # -- data in ----------------------------------------------------------------------------

    async def show_rfq(self, rfq: RFQ | None) -> None:
        """Work on ``rfq``; rebuild the form only when it is a different RFQ.

        While the trader is in the ticket (the focus is inside it) the ticket stays bound to
        the RFQ it was opened on, whatever the inbox cursor does meanwhile: it never switches
        to another RFQ by itself, and says so when its own RFQ expires or closes. One move at
        a time: a move that lands while another is filling the form waits for it, so the form
        is never part one RFQ's and part another's.
        """
        async with self._moving:
            await self._show_rfq(rfq)

    async def _show_rfq(self, rfq: RFQ | None) -> None:
        bound = self.rfq
        if (
            bound is not None
            and self.has_focus_within
            and (rfq is None or rfq.rfq_id != bound.rfq_id)
        ):
            rfq = self.book.rfqs_received.get(bound.rfq_id, bound)
        self.rfq = rfq
        if self._body.display != (rfq is not None):
            self._body.display = rfq is not None
        if rfq is None:
            self._legs_for = None
            await self._legs.show([], None)
            self._refresh_live()
            return
        if self._legs_for != rfq.rfq_id:
            now = self.clock()
            self._legs_for = rfq.rfq_id
            # A cursor move is many a second: nothing is written that shows already (a new
            # text or option list lays the whole screen out).
            self._pools.new_rfq()
            if self._expiry.value:
                self._expiry.value = ""
            await self._build_legs(rfq)
            pricing, _ = self._pricing.get(rfq, self._marks(), now)
            self._figures.show(rfq, pricing)
            self._pools.fill(rfq)
            if self._client_id.value:
                self._client_id.value = ""  # a typed id is this RFQ's; blank makes one at send
            if self._errors_shown:  # a flag, not a look at every error line of the form
                self.show_errors({})
            self._show_figures()
        self._refresh_live()

    def closed_reason(self) -> str:
        """Why the bound RFQ can no longer be quoted (expired, closed, cancelled); empty if open."""
        rfq = self.rfq
        if rfq is None:
            return ""
        if rfq.rfq_status != RFQStatus.OPEN:
            return f"this RFQ is {rfq.rfq_status}"
        if rfq.rfq_expires_at <= self.clock():
            return "this RFQ has expired"
        return ""

    def _draw_head(self) -> None:
        rfq = self.rfq
        if rfq is None:
            self._head.show(EMPTY)
            self._sends.show(())
            return
        closed = self.closed_reason()
        now = self.clock()
        self._head.show(head_lines(rfq, self.book, now, closed))
        pools = self._pools
        self._sends.show(
            sends_lines(
                live_quotes(self.book, rfq.rfq_id, now),
                pools.pool,
                pools.chosen_words(),
                expiry_words(self._expiry.value, rfq, now),
                closed,
            )
        )
        if self._closed_shown != bool(closed):  # asked every second: looked up on a change
            self._closed_shown = bool(closed)
            for button in ("#send", "#replace"):
                self.query_one(button, Button).disabled = bool(closed)

    def refresh_pools(self) -> None:
        """Pools changed: refresh the pool choices, keeping the user's pick when it remains."""
        if self.rfq is not None:
            self._pools.fill(self.rfq)

    def _marks(self) -> dict[str, Decimal]:
        return listing_marks(self.book.stats)

    async def _build_legs(self, rfq: RFQ) -> None:
        marks = leg_marks(rfq, self._marks())
        legs = []
        for index, leg in enumerate(rfq.rfq_legs):
            bid, ask = prefill(marks[index] if index < len(marks) else None)
            legs.append((leg_label(leg, rfq.qty), bid, ask))
        await self._legs.show(legs, rfq.rfq_id)

    def tick(self) -> None:
        """Every second (`DeskPanes.tick`): the RFQ's countdown and the live quote's."""
        self._refresh_live()

    def _refresh_live(self) -> None:
        if self.rfq is not None:
            # The bound RFQ as last polled: its status and countdown move under the trader.
            self.rfq = self.book.rfqs_received.get(self.rfq.rfq_id, self.rfq)
            self._reprice()
        self._draw_head()
        live = self._live
        if self.rfq is None:
            live.update("")
            return
        live.update(live_words(self.book, self.rfq.rfq_id, self.clock()))

    # -- reading the form -------------------------------------------------------------------

    def values(self) -> TicketValues:
        """What is typed into the ticket right now: the leg prices as the rows on screen show
        them (`TicketLegs.prices`), never fields looked up by id."""
        bids, asks = self._legs.prices(len(self.rfq.rfq_legs) if self.rfq else 0)
        pools = self._pools
        return TicketValues(
            bids=bids,
            asks=asks,
            expiry_s=self._expiry.value,
            pool=pools.pool,
            preset=pools.preset,
            pool_name=pools.pool_name,
            client_quote_id=self._client_id.value.strip()
            or client_quote_id(
                self.rfq.rfq_id if self.rfq else "", self.clock(), next(self._client_ids)
            ),
        )

    def set_leg_prices(self, index: int, bid: str, ask: str) -> None:
        """Type prices into a leg (tests and the command palette use this)."""
        self._legs.set_price(index, "bid", bid)
        self._legs.set_price(index, "ask", ask)

    def show_errors(self, errors: dict[str, str]) -> None:
        """Show errors under their fields (an empty dict clears them)."""
        show_form_errors(self, errors)
        self._errors_shown = bool(errors)

    def _request(self) -> NewQuoteRequest | None:
        if self.rfq is None:
            self.show_errors({FORM: "select a received RFQ first"})
            return None
        closed = self.closed_reason()
        if closed:
            self.show_errors({FORM: f"{closed}: nothing is sent (esc: back to the inbox)"})
            return None
        legs = self._legs
        if legs.shown_for != self.rfq.rfq_id or legs.count != len(self.rfq.rfq_legs):
            # Never a price the screen does not show against the RFQ the head names.
            self.show_errors({FORM: "the ticket is still filling this RFQ's legs: nothing sent"})
            return None
        try:
            request = build_quote_request(self.rfq, self.values(), self.clock())
        except FormError as error:
            self.show_errors(error.errors)
            return None
        self.show_errors({})
        return request

    # -- actions ----------------------------------------------------------------------------

    def action_submit(self) -> None:
        """Validate and send: a new quote, or one replacing my live quote the ticket names
        (`ticket_sends`: what the line above the form says is what is sent)."""
        request = self._request()
        if request is None:
            return
        live = live_quotes(self.book, request.rfq_id, self.clock())
        self.post_message(self.Submit(request, live[0].parent_quote_id if live else None))

    def action_replace(self) -> None:
        """Validate and replace the live quote on this RFQ."""
        if self.rfq is None:
            self.show_errors({FORM: "select a received RFQ first"})
            return
        live = self.book.live_quote_on(self.rfq.rfq_id, self.clock())
        if live is None:
            self.show_errors({FORM: "no live quote to replace; send one with ctrl+s"})
            return
        request = self._request()
        if request is not None:
            self.post_message(self.Submit(request, replaces=live.parent_quote_id))

    def action_cancel_quote(self) -> None:
        """Pull the live quote on this RFQ."""
        if self.rfq is None:
            self.show_errors({FORM: "select a received RFQ first"})
            return
        live = self.book.live_quote_on(self.rfq.rfq_id, self.clock())
        if live is None:
            self.show_errors({FORM: "no live quote to pull"})
            return
        self.post_message(self.Cancel(live.parent_quote_id))

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """A quote went out (fresh client id, errors cleared), or the reasons under the fields."""
        if outcome.ok:
            self.show_errors({})
            self.new_client_id()
        elif outcome.error is not None:
            self.show_errors(errors_from_api(outcome.error, locate_quote_field))
        else:
            self.show_errors({FORM: outcome_words(outcome)})

    def new_client_id(self) -> None:
        """After a send: a fresh client id for the next quote (a blank field makes one)."""
        if (client_id := self.query_one("#client-id", Input)).value:
            client_id.value = ""

    # -- pricing ----------------------------------------------------------------------------

    @on(Input.Changed)
    def _price_typed(self, event: Input.Changed) -> None:
        """A vol or package price typed fills the leg prices it decides; a leg price typed by
        hand makes the legs the source again; either way the figures follow. The ticket's
        fields are its own: the change goes no further up (a move refills them, and each step
        up the screen is a message passed on)."""
        event.stop()
        name = event.input.id or ""
        pricing = self.query_one(TicketPricing)
        if event.input.has_focus and self.rfq is not None:
            if name in DRIVERS:
                legs = self.query_one(TicketLegs)
                for index, side, price in pricing.derive(name, event.value, self._leg_price).prices:
                    legs.set_price(index, side, str(price))
            elif name.startswith(("bid-", "ask-")):
                side, _, number = name.partition("-")
                structure_legs = self.rfq.structure.legs
                if number.isdigit() and int(number) < len(structure_legs):
                    pricing.legs_typed(leg_field_side(structure_legs[int(number)].side, side))
        if name in DRIVERS or name.startswith(("bid-", "ask-")):
            self._show_figures()
        elif name in ("expiry", "pool-name"):
            self._draw_head()  # what ctrl+s sends says it

    @on(Select.Changed)
    def _pool_picked(self, event: Select.Changed) -> None:
        """A pool or a preset picked: the line saying what ctrl+s sends follows."""
        event.stop()
        self._draw_head()

    def _leg_price(self, index: int, side: str) -> Decimal | None:
        """A leg price as it stands in its field (None while blank or not a number)."""
        return typed_price(self._legs.price(index, side))

    def _show_figures(self) -> None:
        self._figures.show_figures(*self._legs.prices(len(self.rfq.rfq_legs) if self.rfq else 0))

    def _reprice(self) -> None:
        """The bound RFQ's fair value or its underlying's mark moved: the figures follow."""
        if self.rfq is None or self._legs_for != self.rfq.rfq_id:
            return
        pricing, moved = self._pricing.get(self.rfq, self._marks(), self.clock())
        if moved:
            self._figures.reprice(pricing)
            self._show_figures()

    @on(Button.Pressed)
    def _button_pressed(self, event: Button.Pressed) -> None:
        actions = {"send": self.action_submit, "replace": self.action_replace}
        actions["pull"] = self.action_cancel_quote
        if (action := actions.get(event.button.id or "")) is not None:
            action()
