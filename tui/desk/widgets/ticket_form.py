"""The quote ticket's form, laid out: leg rows, pricing, expiry, pool, client id, buttons and
the live-quote line, in the scrolling body under the ticket's head (`QuoteTicket.compose`).

Only the layout lives here; `tui.desk.widgets.quote_ticket` reads and fills the form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.quote_form import AUTO_CLIENT_ID, DEFAULT_EXPIRY_S
from tui.desk.widgets.ticket_legs import TicketLegs
from tui.desk.widgets.ticket_pools import TicketPools
from tui.desk.widgets.ticket_pricing import TicketPricing

if TYPE_CHECKING:
    from textual.app import ComposeResult

    from tui.desk.book import DeskBook


def ticket_body(book: DeskBook) -> ComposeResult:
    """The ticket's scrolling body (``#ticket-body``), every field with its error line."""
    with VerticalScroll(id="ticket-body"):
        yield TicketLegs(id="ticket-legs")
        yield TicketPricing(id="ticket-pricing")
        with Horizontal(classes="field-row"):
            yield Label("Expires in s", classes="field-label")
            yield Input(
                "",
                id="expiry",
                compact=True,
                placeholder=f"{DEFAULT_EXPIRY_S} (at most what the RFQ has left)",
            )
        yield Static("", id="err-expiry", classes="field-error")
        yield TicketPools(book, id="ticket-pools")
        with Horizontal(classes="field-row"):
            yield Label("Client id", classes="field-label")
            yield Input("", id="client-id", compact=True, placeholder=AUTO_CLIENT_ID)
        yield Static("", id="err-client-id", classes="field-error")
        yield Static("", id="err-form", classes="field-error")
        with Horizontal(id="ticket-buttons"):
            yield Button("Send ^s", id="send", variant="primary", compact=True)
            yield Button("Replace ^r", id="replace", compact=True)
            yield Button("Pull ^w", id="pull", variant="error", compact=True)
        yield LiveText("", id="ticket-live")
