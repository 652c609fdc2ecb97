"""Deterministic desk scenes on the seeded, frozen-clock sandbox: the snapshot tests pin them
and ``tests/desk/export_screenshots.py`` renders them for the README.

`build_world` drives the counterparties (and DESK's own API key, for the parts a scene does not
show being typed) into a busy but reproducible state: a booked trade, an RFQ with quotes on
the board, a trade waiting for DESK's last look, and a fresh RFQ to quote. Each scene then
opens one pane the way a trader would.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
from tui.api.models import (
    DatedFutureInstrument,
    Leg,
    MakerLastLookRequest,
    NewRfqRequest,
    PerpetualFutureInstrument,
    RequestAction,
    Structure,
    TradeSide,
)
from tui.desk.app import DeskApp
from tui.desk.messages import Topic
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox
from tui.desk.widgets.status_bar import StatusBar

CALENDAR_EXPIRY = datetime(2026, 6, 26, 8, tzinfo=UTC)


@dataclass
class World:
    """Ids of what `build_world` made, for the scenes to point at."""

    booked_rfq: str
    board_rfq: str
    last_look_rfq: str
    fresh_rfq: str


async def build_world(sandbox: Any) -> World:
    """Make the scene's state through the API, deterministically."""
    ids = sandbox.company_ids
    now = sandbox.clock.now
    async with (
        sandbox.client("DESK") as desk,
        sandbox.client("ALPHA") as alpha,
        sandbox.client("BORE") as bore,
        sandbox.client("CBLT") as cblt,
        sandbox.client("EMBR") as embr,
    ):
        pool = await pool_between(alpha, ids["DESK"])
        # 1. A trade DESK bought from ALPHA, booked into their pool.
        booked = await desk.rfqs_new(perp_rfq([ids["ALPHA"], ids["BORE"]], "2", now()))
        (alpha_view,) = (await alpha.rfqs_received(id=booked.rfq_id)).result
        won = await quote_rfq(alpha, alpha_view, now(), pool_id=pool.pool_id)
        (bore_view,) = (await bore.rfqs_received(id=booked.rfq_id)).result
        await quote_rfq(bore, bore_view, now(), new_pool="BORE-DESK", spread=Decimal("0.002"))
        await accept(desk, won, TradeSide.BUY)
        await alpha.quotes_maker_last_look(
            MakerLastLookRequest(
                parent_quote_id=won.parent_quote_id,
                rfq_id=won.target_rfq_id,
                action=RequestAction.ACCEPT,
            )
        )
        sandbox.advance(3)

        # 2. An RFQ of DESK's with two quotes on the board.
        board = await desk.rfqs_new(
            perp_rfq([ids["ALPHA"], ids["CBLT"]], "25", now(), underlying="ETH")
        )
        (view,) = (await alpha.rfqs_received(id=board.rfq_id)).result
        await quote_rfq(alpha, view, now(), pool_id=pool.pool_id, spread=Decimal("0.0008"))
        (view,) = (await cblt.rfqs_received(id=board.rfq_id)).result
        await quote_rfq(cblt, view, now(), new_pool="CBLT-DESK", spread=Decimal("0.0012"))

        # 3. ALPHA asked DESK; DESK quoted; ALPHA sold: DESK's last look is due.
        asked = await alpha.rfqs_new(perp_rfq([ids["DESK"]], "40", now(), underlying="SOL"))
        (desk_view,) = (await desk.rfqs_received(id=asked.rfq_id)).result
        mine = await quote_rfq(desk, desk_view, now(), pool_id=pool.pool_id, seconds=45)
        await accept(alpha, mine, TradeSide.SELL)

        # 4. EMBR asks DESK for a calendar spread, not quoted yet.
        fresh = await embr.rfqs_new(
            NewRfqRequest(
                structure=Structure(
                    legs=[
                        Leg(
                            side=TradeSide.BUY,
                            instrument=PerpetualFutureInstrument(underlying="ETH"),
                        ),
                        Leg(
                            side=TradeSide.SELL,
                            instrument=DatedFutureInstrument(
                                underlying="ETH", expiry=CALENDAR_EXPIRY
                            ),
                        ),
                    ]
                ),
                qty=Decimal(12),
                expires_at=now() + timedelta(minutes=4),
                target_companies=[ids["DESK"]],
            )
        )
        sandbox.advance(5)
    return World(booked.rfq_id, board.rfq_id, asked.rfq_id, fresh.rfq_id)


async def open_desk(app: DeskApp, pilot: Pilot[Any]) -> None:
    """Everything polled once, fixed link numbers, no toasts: a still picture."""
    feed = await app.wait_connected()
    await feed.refresh_all()
    await pilot.pause()
    freeze(app)


PINNED_TOKENS = 48
"""The token figure every picture shows (a scene's real count varies with its speed)."""


def freeze(app: DeskApp) -> None:
    """Pin what depends on the machine (latency, and the tokens in a window of real seconds:
    whether the clock sync made at connect is still in it depends on how long the scene
    took) and drop toasts and cursor blink."""
    status = app.query_one(StatusBar)
    status.latency_ms = 3
    status.offset_ms = 0
    status.tokens_used = PINNED_TOKENS
    # The desk's next second would draw the real count again before the picture is taken.
    status.show_freshness = lambda ages, tokens_used: None  # type: ignore[method-assign]
    app.clear_notifications()
    for field in app.screen.query(Input):
        field.cursor_blink = False


Scene = Callable[[DeskApp, Pilot[Any], World], Awaitable[None]]


async def trade_tab(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """The Trade tab: inbox, the ticket on EMBR's fresh RFQ, the tracker with a last look."""
    app.query_one(RfqInbox).select("received", world.fresh_rfq)
    await pilot.pause()


async def quote_board(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """DESK's RFQ with two quotes on the board."""
    app.query_one(RfqInbox).select("sent", world.board_rfq)
    await pilot.pause()
    app.query_one(QuoteBoard).table.focus()
    await pilot.pause()


async def accept_confirmation(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Buying the best ask: the confirmation with side, price, qty, notional and pool."""
    await quote_board(app, pilot, world)
    await pilot.press("b")
    await pilot.pause()


async def last_look(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """g: straight to the trade waiting for DESK's last look."""
    await pilot.press("g")
    await pilot.pause()


async def pools_tab(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Pools with balances and margins; positions and transfers of the selected pool."""
    await pilot.press("2")
    await pilot.pause()


async def blotter_tab(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Every trade leg."""
    await pilot.press("3")
    await pilot.pause()


async def market_tab(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Public market statistics."""
    await pilot.press("4")
    await pilot.pause()


async def positions_tab(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Net positions with P&L and greeks (the trade DESK bought from ALPHA), valued at the
    mark: the aggregated positions are polled once the tab shows; the first line opened."""
    await pilot.press("5")
    await pilot.pause()
    feed = await app.wait_connected()
    await feed.refresh(Topic.AGGREGATED)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def history_tab(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Every RFQ and quote with its outcome and timings."""
    await pilot.press("6")
    await pilot.pause()


async def new_rfq(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """The structure builder with two legs."""
    await pilot.press("n")
    await pilot.pause()
    await pilot.press("ctrl+a")
    await pilot.pause()


async def help_screen(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Keys and workflows."""
    await pilot.press("question_mark")
    await pilot.pause()


async def listing_detail(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """Enter on the Market tab's first listing: its mark over the session, quotes by size and
    age, funding rates seen."""
    await pilot.press("4")
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def first_run(app: DeskApp, pilot: Pilot[Any], world: World) -> None:
    """The first-run screen of a venue profile (palette: "Add a venue profile"), empty."""
    app.action_add_profile()
    await pilot.pause()


SCENES: dict[str, Scene] = {
    "trade": trade_tab,
    "quote_board": quote_board,
    "accept_confirmation": accept_confirmation,
    "last_look": last_look,
    "pools": pools_tab,
    "blotter": blotter_tab,
    "market": market_tab,
    "positions": positions_tab,
    "history": history_tab,
    "new_rfq": new_rfq,
    "help": help_screen,
    "listing_detail": listing_detail,
    "first_run": first_run,
}
"""Every scene, by the name its snapshot and screenshot carry."""
