"""The quote ticket's head and a cursor move (issue 11): the head says what it is given as it
is (a name is never read as markup), keeps its fair-value line in view whatever the length of
the structure, and a move redraws only the lines that changed; a move from taker to taker
writes nothing into the new pool's name field.

Before: the head was markup (a taker's name with brackets lost its brackets, or was refused),
a long structure wrapped and pushed the structure price out of the three-line head, a move
parsed and redrew all three lines, and the pool name's placeholder held the RFQ's own name, so
every move between takers rewrote it (a repaint reaching down to the pool rows).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.widgets import Input

from tests.desk.kit import records
from tests.desk.kit.fakes import NOW
from tui.api.models import RFQ, Company, RFQLeg
from tui.desk.book import DeskBook
from tui.desk.themes import DESK_VARIABLES
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.ticket_head import TicketHead
from tui.desk.widgets.ticket_pools import TicketPools

BRACKETS = "00000000-0000-4000-8000-00000000000c"


class TicketApp(App[None]):
    def __init__(self, ticket: QuoteTicket) -> None:
        super().__init__()
        self.ticket = ticket

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield self.ticket


def _clock() -> Any:
    return NOW


def _book() -> DeskBook:
    book = records.taker_book()
    odd = Company(id=BRACKETS, created_at=NOW, legal_name="Odd Names", short_name="[b]ODD[/b]")
    book.companies[BRACKETS] = odd
    return book


def _received(
    rfq_id: str, taker: str = records.OTHER, qty: str = "2", legs: int = 1, status: str = "open"
) -> RFQ:
    """A one-leg perpetual RFQ as the venue sends it (its legs with ids), or ``legs`` legs."""
    rfq = records.rfq(rfq_id, status)
    (leg,) = rfq.structure.legs
    structure = rfq.structure.model_copy(update={"legs": [leg] * legs})
    booked = [
        RFQLeg(
            rfq_leg_id=f"leg-{n}",
            rfq_id=rfq_id,
            instrument=leg.instrument,
            side=leg.side,
            qty=Decimal(qty),
        )
        for n in range(legs)
    ]
    return rfq.model_copy(
        update={
            "structure": structure,
            "rfq_legs": booked,
            "taker_company": taker,
            "qty": Decimal(qty),
        }
    )


IDS = [f"4444444{n}-4444-4444-8444-444444444444" for n in range(4)]


def _lines(head: TicketHead) -> list[str]:
    width = head.size.width
    return [strip.text for strip in head.render_lines(Region(0, 0, width, 3))]


async def test_the_head_shows_a_name_as_it_is_and_keeps_the_price_line_in_view() -> None:
    ticket = QuoteTicket(_book(), _clock, id="ticket")
    async with TicketApp(ticket).run_test(size=(80, 24)) as pilot:
        ticket.screen.set_focus(None)  # the trader is in the inbox: the ticket follows it
        first, second = IDS[:2]
        await ticket.show_rfq(_received(first, taker=BRACKETS))
        await pilot.pause()
        head = ticket.query_one(TicketHead)
        assert "from [b]ODD[/b]  qty 2" in _lines(head)[0], "a name is text, not markup"

        await ticket.show_rfq(_received(second, legs=12))  # a structure wider than the head
        await pilot.pause()
        top, structure, price = _lines(head)
        assert structure.rstrip().endswith("…"), "a long structure is cut, and says so"
        assert "structure px" in price, "the fair value keeps its line"
        assert ticket.rfq is not None and ticket.rfq.rfq_id == second
        assert records.OTHER not in top and "ALPHA" in top

        await ticket.show_rfq(_received(IDS[2], qty="123456.789", status="expired"))
        await pilot.pause()
        top = _lines(head)[0]
        assert "EXPIRED: this ticket cannot send" in top, "why it cannot send stays in view"
        assert IDS[2][:8] in top


async def test_a_move_redraws_only_the_head_lines_that_changed() -> None:
    ticket = QuoteTicket(_book(), _clock, id="ticket")
    async with TicketApp(ticket).run_test(size=(140, 45)) as pilot:
        ticket.screen.set_focus(None)
        first, second, third = IDS[:3]
        await ticket.show_rfq(_received(first, qty="2"))
        await pilot.pause()
        head = ticket.query_one(TicketHead)
        redrawn: list[Region] = []
        real = head.refresh

        def spy(*regions: Region, **options: Any) -> Any:
            redrawn.extend(regions or [Region(0, 0, 0, 3)])
            return real(*regions, **options)

        head.refresh = spy  # type: ignore[method-assign]
        await ticket.show_rfq(_received(second, qty="2"))  # another id, same structure
        await pilot.pause()
        assert {region.y for region in redrawn} == {0}, "the id's line alone"
        assert all(region.height == 1 for region in redrawn)
        assert _lines(head)[0].startswith(f"RFQ {second[:8]}")
        redrawn.clear()
        await ticket.show_rfq(_received(second, qty="2"))  # the same RFQ polled again
        await ticket.show_rfq(_received(second, qty="2"))
        assert redrawn == [], "nothing changed: nothing is drawn"
        await ticket.show_rfq(_received(third, legs=2))
        assert {region.y for region in redrawn} == {0, 1}


async def test_moving_between_takers_writes_nothing_into_the_pool_name() -> None:
    book = _book()
    ticket = QuoteTicket(book, _clock, id="ticket")
    async with TicketApp(ticket).run_test(size=(140, 45)) as pilot:
        ticket.screen.set_focus(None)
        first, second = IDS[:2]
        await ticket.show_rfq(_received(first))
        await pilot.pause()
        pools = ticket.query_one(TicketPools)
        name = ticket.query_one("#pool-name", Input)
        hint = name.placeholder
        assert "<taker>" in hint
        writes: list[str] = []
        real = name.refresh

        def spy(*regions: Region, **options: Any) -> Any:
            writes.append("refresh")
            return real(*regions, **options)

        name.refresh = spy  # type: ignore[method-assign]
        await ticket.show_rfq(_received(second, taker=BRACKETS))
        await pilot.pause()
        assert writes == [] and name.placeholder == hint
        me = book.company_name(book.me)
        assert pools.pool_name == f"{me}-[b]ODD[/b]-{second[:4]}", "the name is this RFQ's"
