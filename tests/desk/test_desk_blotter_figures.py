"""The blotter's figures and keys, against the sandbox: notional exact to the last decimal the
price and size give it (never rounded silently); searched, its total is that of the legs shown,
per underlying, and says so; its ``/`` search and History's are in the footer and the help."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Static
from textual.widgets._footer import FooterKey

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.tabs import show_tab
from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_at, their_view
from tui.api.models import MakerLastLookRequest, RequestAction, TradeSide
from tui.desk.keymap import DeskKeymap
from tui.desk.messages import Topic
from tui.desk.screens.help import help_text
from tui.desk.widgets.blotter import Blotter
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.virtual_table import VirtualTable


async def book_with_alpha(sandbox: Any, underlying: str, qty: str, price: Decimal) -> None:
    """DESK buys ``qty`` of the ``underlying`` perpetual from ALPHA at ``price``: booked."""
    ids = sandbox.company_ids
    async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
        rfq = await mine.rfqs_new(perp_rfq([ids["ALPHA"]], qty, sandbox.clock.now(), underlying))
        pool = await pool_between(alpha, ids["DESK"])
        quote = await quote_at(
            alpha,
            await their_view(alpha, rfq),
            sandbox.clock.now(),
            price - 1,
            price,
            pool_id=pool.pool_id,
        )
        await accept(mine, quote, TradeSide.BUY)
        await alpha.quotes_maker_last_look(
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=rfq.rfq_id,
                action=RequestAction.ACCEPT,
            )
        )
    sandbox.advance(3)


BTC_PRICE = Decimal("98543.17")
ETH_PRICE = Decimal("3231.07")


async def test_blotter_notional_is_exact_and_its_total_is_of_the_legs_shown(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await book_with_alpha(sandbox, "BTC", "0.1125", BTC_PRICE)
        sandbox.advance(10)
        await book_with_alpha(sandbox, "ETH", "0.35", ETH_PRICE)
        await refresh(app, pilot, Topic.TRADES)
        blotter = await show_tab(app, pilot, "blotter", Blotter)
        await settle(app, pilot)
        table = blotter.query_one(VirtualTable)
        assert table.row_count == 2
        btc_notional = Decimal("0.1125") * BTC_PRICE  # 11,086.1066250: five places
        eth_notional = Decimal("0.35") * ETH_PRICE  # 1,130.8745
        notionals = {
            table.record(i).instrument.underlying: dict(table.row_fields(i))["Notional"]  # type: ignore[union-attr]
            for i in table.row_ids()
        }
        assert notionals == {"BTC": fmt.exact(btc_notional, 2), "ETH": fmt.exact(eth_notional, 2)}
        count = blotter.query_one("#blotter-count", Static)
        whole = str(count.render())
        assert whole.startswith("2 trade legs")
        assert f"BTC {fmt.exact(btc_notional, 2)}" in whole
        assert f"ETH {fmt.exact(eth_notional, 2)}" in whole

        table.focus()
        await pilot.press("slash", *"eth")
        await pilot.pause()
        assert table.row_count == 1
        searched = str(count.render())
        assert searched.startswith("1 of 2 trade legs")
        assert "shown" in searched
        assert f"ETH {fmt.exact(eth_notional, 2)}" in searched and "BTC" not in searched

        await pilot.press("escape")
        await pilot.pause()
        assert str(count.render()) == whole


async def test_the_search_keys_are_in_the_footer_and_the_help(
    sandbox: Any, desk: DeskFactory
) -> None:
    assert "Trades: / search" in help_text(DeskKeymap())
    assert "History: r records · f outcome · / search" in help_text(DeskKeymap())
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        blotter = await show_tab(app, pilot, "blotter", Blotter)
        blotter.table.focus()
        await pilot.pause()
        footer = {key.action: key.key_display for key in app.query(FooterKey)}
        assert footer.get("open_search") == "/"
        await pilot.press("6")
        for _ in range(20):
            await pilot.pause()
        footer = {key.action: key.key_display for key in app.query(FooterKey)}
        assert footer.get("open_search") == "/"
