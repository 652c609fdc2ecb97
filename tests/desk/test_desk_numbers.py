"""Numbers as typed: every amount and size field takes the text as typed, never drops a character,
and refuses what is not a plain decimal with a message under the field (issue 9).

`-5` once sent an RFQ for 5, a deposit of `-100` deposited 100 and `1e30` deposited 130 USDC:
the fields silently dropped the characters they did not allow. One parser
(`tui.desk.widgets.common.amounts.parse_amount`) now reads every such field the same way.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from textual import events
from textual.widgets import Input, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import perp_rfq, pool_between
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.screens.permit import PermitScreen
from tui.desk.widgets.common.forms import FormError
from tui.desk.widgets.pools import PoolsPane
from tui.desk.widgets.quote_ticket import QuoteTicket
from tui.desk.widgets.rfq_inbox import RfqInbox


def refusal(text: str, **rules: Any) -> str:
    from tui.desk.widgets.common.amounts import parse_amount

    with pytest.raises(FormError) as caught:
        parse_amount(text, field="amount", **rules)
    return caught.value.errors["amount"]


def test_the_parser_takes_plain_decimals_and_names_what_is_wrong() -> None:
    from tui.desk.widgets.common.amounts import parse_amount, parse_whole

    assert parse_amount("1,000.50", field="amount") == Decimal("1000.50")
    assert parse_amount(" 0.000001 ", field="amount", places=6) == Decimal("0.000001")
    assert parse_amount("-3.5", field="px", allow_negative=True) == Decimal("-3.5")
    assert parse_amount("+2", field="amount") == Decimal(2)
    assert "negative" in refusal("-5")
    assert "exponent" in refusal("1e30")
    assert "exponent" in refusal("1E3")
    assert "not a number" in refusal("12a")
    assert "not a number" in refusal("1.2.3")
    assert "separator" in refusal("1,00")
    assert "separator" in refusal("1000,000")
    assert "separator" in refusal("1,000.000,1")
    assert "6 decimal places" in refusal("1.1234567", places=6)
    assert "required" in refusal("   ")
    assert "at most 100" in refusal("100.01", maximum=Decimal(100))
    assert "greater than 0" in refusal("0", positive=True)
    assert "not a number" in refusal("1 000")
    assert "not a number" in refusal("nan")
    assert "not a number" in refusal("Infinity")
    assert parse_whole("300", field="expiry", minimum=10) == 300
    with pytest.raises(FormError) as caught:
        parse_whole("30.5", field="expiry")
    assert "whole number" in caught.value.errors["expiry"]


async def _focus_and_type(pilot: Any, field: Input, *keys: str) -> None:
    field.focus()
    await pilot.pause()
    field.value = ""
    await pilot.press(*keys)


async def test_the_builder_refuses_a_negative_or_exponent_quantity(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        qty = builder.query_one("#qty", Input)
        await _focus_and_type(pilot, qty, "minus", "5")
        assert qty.value == "-5", "the field keeps every character typed"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is builder
        assert "greater than 0" in str(builder.query_one("#err-qty", Static).render())
        await _focus_and_type(pilot, qty, "1", "e", "3", "0")
        assert qty.value == "1e30"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is builder
        assert "exponent" in str(builder.query_one("#err-qty", Static).render())
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert not app.book.rfqs_sent, "nothing is sent for a refused quantity"


async def test_a_deposit_of_minus_100_or_1e30_is_refused(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.TRANSFERS)
        await pilot.press("2")
        pane = app.query_one(PoolsPane)
        async with sandbox.client("DESK") as mine:
            pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
        pane.pools_table.select_key(pool.pool_id)
        await pilot.pause()
        before = len(app.book.transfers)
        for typed, keys, word in (
            ("-100", ("minus", "1", "0", "0"), "greater than 0"),
            ("1e30", ("1", "e", "3", "0"), "exponent"),
        ):
            await pilot.press("d")
            await pilot.pause()
            form = app.screen
            assert isinstance(form, PermitScreen)
            amount = form.query_one("#amount", Input)
            await _focus_and_type(pilot, amount, *keys)
            assert amount.value == typed
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            assert app.screen is form, f"{typed} must not be signed or sent"
            assert word in str(form.query_one("#err-amount", Static).render())
            await pilot.press("escape")
            await pilot.pause()
        await refresh(app, pilot, Topic.TRANSFERS)
        assert len(app.book.transfers) == before


async def test_the_ticket_refuses_an_exponent_price_and_a_signed_expiry(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("ALPHA") as alpha:
            rfq = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        await _focus_and_type(pilot, ticket.query_one("#bid-0", Input), "9", "e", "4")
        await _focus_and_type(pilot, ticket.query_one("#expiry", Input), "minus", "3", "0")
        assert ticket.query_one("#expiry", Input).value == "-30"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert "exponent" in str(ticket.query_one("#err-bid-0", Static).render())
        assert "at least 1" in str(ticket.query_one("#err-expiry", Static).render())
        await refresh(app, pilot, Topic.QUOTES_SENT)
        assert not app.book.my_quotes_on(rfq.rfq_id)


async def test_the_default_quote_expiry_is_capped_at_what_the_rfq_has_left(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("ALPHA") as alpha:
            request = perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            request.expires_at = sandbox.clock.now() + timedelta(seconds=12)
            rfq = await alpha.rfqs_new(request)
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
        app.query_one(RfqInbox).select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        ticket.query_one("#bid-0", Input).focus()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (quote,) = app.book.my_quotes_on(rfq.rfq_id)
        assert quote.expires_at <= rfq.rfq_expires_at


async def test_keys_typed_quickly_land_in_the_fields_they_were_meant_for(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
        # The builder: n, then the quantity and the time it stays open, typed as one burst.
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        builder.query_one("#qty", Input).value = ""
        builder.query_one("#qty", Input).focus()
        await pilot.press("1", "1", "1", "tab", "2", "2", "2")
        await pilot.pause()
        assert builder.query_one("#qty", Input).value == "111"
        assert builder.query_one("#expiry", Input).value == "222"
        await pilot.press("escape")
        await pilot.pause()

        # The ticket: Enter on an RFQ, then bid <Tab> ask, at once.
        async with sandbox.client("ALPHA") as alpha:
            rfq = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
        inbox = app.query_one(RfqInbox)
        inbox.table.focus()
        inbox.select("received", rfq.rfq_id)
        await pilot.press("enter", "1", "1", "1", "tab", "2", "2", "2")
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        assert ticket.query_one("#bid-0", Input).value == "111"
        assert ticket.query_one("#ask-0", Input).value == "222"


async def test_ctrl_a_adds_a_leg_while_a_text_field_has_focus(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        builder.query_one("#ratio-0", Input).focus()
        await pilot.press("ctrl+a")
        await pilot.pause()
        assert builder.leg_count == 2


async def _burst(app: Any, pilot: Any, *keys: str) -> None:
    """Keys as a terminal delivers a paste or a macro: all queued before the first is handled."""
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)
    for _ in range(3):
        await pilot.pause()


async def _on_a_pool(app: Any, pilot: Any, sandbox: Any) -> None:
    """The Pools tab, the cursor on a pool of DESK with ALPHA: ``d`` opens its deposit."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
    await pilot.press("2")
    async with sandbox.client("DESK") as mine:
        pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
    app.query_one(PoolsPane).pools_table.select_key(pool.pool_id)
    await pilot.pause()


async def test_a_burst_of_keys_lands_in_the_form_it_opens(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await _on_a_pool(app, pilot, sandbox)
        await _burst(app, pilot, "d", "1", "0", "0")
        form = app.screen
        assert isinstance(form, PermitScreen)
        assert form.query_one("#amount", Input).value == "100"


async def test_a_burst_from_the_inbox_lands_in_the_ticket_fields(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
        async with sandbox.client("ALPHA") as alpha:
            rfq = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_RECEIVED, Topic.POOLS)
        inbox = app.query_one(RfqInbox)
        inbox.table.focus()
        inbox.select("received", rfq.rfq_id)
        await pilot.pause()
        ticket = app.query_one(QuoteTicket)
        ticket.query_one("#bid-0", Input).value = ""
        ticket.query_one("#ask-0", Input).value = ""
        await _burst(app, pilot, "enter", "1", "1", "1", "tab", "2", "2", "2")
        assert ticket.query_one("#bid-0", Input).value == "111"
        assert ticket.query_one("#ask-0", Input).value == "222"


async def test_a_burst_with_backspaces_edits_the_field_as_typed(
    sandbox: Any, desk: DeskFactory
) -> None:
    """``1e30``, four Backspaces and ``100`` typed as one burst leave ``100``, not ``1e3``."""
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await _on_a_pool(app, pilot, sandbox)
        await _burst(app, pilot, "d", "1", "e", "3", "0", *["backspace"] * 4, "1", "0", "0")
        form = app.screen
        assert isinstance(form, PermitScreen)
        assert form.query_one("#amount", Input).value == "100"
        # The same burst typed into the open form, with nothing to wait for.
        form.query_one("#amount", Input).value = ""
        await _burst(app, pilot, "1", "e", "3", "0", *["backspace"] * 4, "1", "0", "0")
        assert form.query_one("#amount", Input).value == "100"
