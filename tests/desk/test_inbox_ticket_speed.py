"""The inbox and the ticket at terminal speed (issue 11): a cursor move lays nothing out, a new
RFQ's flash colours its own row only, and the ticket stays bound to the RFQ under the cursor.

Before: a move onto another taker's RFQ refilled a `Select` (a layout of the whole screen, and
another for the new pool's rows shown or hidden), wrote a fresh client id into its field, and a
new RFQ put a class on the whole inbox pane (a restyle and a repaint of all of it, twice).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.fakes import NOW
from tests.desk.kit.records import rfq
from tests.desk.kit.venue import perp_rfq
from tui.api.models import RFQ
from tui.desk.book import DeskBook
from tui.desk.messages import Topic
from tui.desk.themes import DESK_VARIABLES
from tui.desk.widgets.common.table_view import HEADER
from tui.desk.widgets.quote_form import NEW_POOL
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import FLASH_FOR, RfqInbox
from tui.desk.widgets.ticket_pools import NewPoolRow, PoolPicker, TicketPools

# -- the flash ---------------------------------------------------------------------------------


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


class InboxApp(App[None]):
    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return {**super().get_theme_variable_defaults(), **DESK_VARIABLES}

    def compose(self) -> ComposeResult:
        yield RfqInbox(DeskBook(), self.clock, id="inbox")


def _rfqs(count: int) -> list[RFQ]:
    return [
        rfq(f"{n:08d}-1111-4111-8111-111111111111").model_copy(
            update={"created_at": NOW + timedelta(seconds=n)}
        )
        for n in range(count)
    ]


def _backgrounds(inbox: RfqInbox, row: int) -> set[object]:
    strip = inbox.table.render_line(HEADER + row)
    return {segment.style.bgcolor for segment in strip if segment.style}


async def test_a_new_rfq_colours_its_own_row_until_its_flash_ends() -> None:
    clock = Clock()
    app = InboxApp(clock)
    async with app.run_test() as pilot:
        inbox = app.query_one(RfqInbox)
        older = _rfqs(5)
        inbox.show("received", older[:4])
        inbox.select("received", older[0].rfq_id)  # the cursor away from the new row
        await pilot.pause()
        plain = _backgrounds(inbox, 2)
        inbox.show("received", older, arrived=[older[4].rfq_id])  # newest first: row 0
        await pilot.pause()
        assert not inbox.has_class("flash"), "nothing is put on the pane itself"
        new = inbox.table.get_component_rich_style("inbox-table--new").bgcolor
        assert _backgrounds(inbox, 0) == {new}, "the new RFQ's row is coloured, all of it"
        assert new not in _backgrounds(inbox, 1) and _backgrounds(inbox, 2) == plain
        clock.now += FLASH_FOR + timedelta(seconds=1)
        inbox.tick()
        await pilot.pause()
        assert new not in _backgrounds(inbox, 0), "the flash ends"


# -- the ticket on a cursor move -------------------------------------------------------------


def _count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    layouts = [0]
    real = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layouts[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return layouts


async def test_moving_between_takers_lays_nothing_out_and_shows_each_ones_pools(
    sandbox: Any, desk: DeskFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        desk_id = sandbox.company_ids["DESK"]
        async with sandbox.client("ALPHA") as alpha, sandbox.client("EMBR") as embr:
            shared = await alpha.rfqs_new(perp_rfq([desk_id], "1", sandbox.clock.now()))
            unshared = await embr.rfqs_new(perp_rfq([desk_id], "2", sandbox.clock.now()))
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS, Topic.STATS)
        inbox, ticket = app.query_one(RfqInbox), app.query_one(QuoteTicket)
        pools = ticket.query_one(TicketPools)
        inbox.select("received", shared.rfq_id)
        inbox.table.focus()
        await pilot.pause()
        alpha_pool = pools.pool
        assert alpha_pool and alpha_pool != NEW_POOL  # DESK and ALPHA share a pool
        layouts = _count_layouts(monkeypatch)
        for _ in range(2):
            inbox.select("received", unshared.rfq_id)
            await pilot.pause()
            assert ticket.rfq is not None and ticket.rfq.rfq_id == unshared.rfq_id
            assert pools.pool == NEW_POOL and pools.pool_name.endswith(unshared.rfq_id[:4])
            assert all(
                not row.disabled and row.styles.opacity == 1 for row in pools.query(NewPoolRow)
            )
            inbox.select("received", shared.rfq_id)
            await pilot.pause()
            assert ticket.rfq is not None and ticket.rfq.rfq_id == shared.rfq_id
            assert pools.pool == alpha_pool
            assert all(row.disabled and row.styles.opacity == 0 for row in pools.query(NewPoolRow))
        assert layouts == [0], "a move between takers repaints, it does not lay the screen out"
        client_id = ticket.query_one("#client-id", Input)
        assert client_id.value == "", "nothing written into the client id on a move"
        assert ticket.values().client_quote_id.startswith(f"desk-{shared.rfq_id[:8]}-")

        # In the ticket, a pool picked by hand: the drop-down lists this taker's choices and
        # the pick stays bound to this RFQ, through a poll of the pools; a move forgets it.
        picker = ticket.query_one(PoolPicker)
        picker.focus()
        await pilot.press("enter")
        assert picker.expanded
        offered = [str(option.prompt) for option in picker.query_one("SelectOverlay").options]
        assert offered[-1].startswith("+ new pool") and len(offered) >= 2
        await pilot.press("end", "enter")
        assert pools.pool == NEW_POOL
        ticket.refresh_pools()
        await pilot.pause()
        assert pools.pool == NEW_POOL and ticket.rfq is not None
        assert ticket.rfq.rfq_id == shared.rfq_id and ticket.values().pool == NEW_POOL
        ticket.show_errors({"pool": "pick a pool or a new one"})
        await pilot.press("escape")  # back to the inbox
        inbox.select("received", unshared.rfq_id)
        await pilot.pause()
        assert not ticket.query_one("#err-pool").display, "another RFQ: no error of the last"
        inbox.select("received", shared.rfq_id)
        await pilot.pause()
        assert pools.pool == alpha_pool, "the pick belonged to the RFQ the ticket was on"
