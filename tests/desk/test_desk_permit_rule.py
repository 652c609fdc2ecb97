"""Check first, sign second: no permit is signed for an amount the desk can tell is wrong.

A pool deposit of more than the wallet holds (once the venue has said what it holds), a deposit
into a pool not open yet, and a trade's deposit approval for less (or more) than the venue asks
are refused under the field, and the journal shows nothing sent. The amount asked is shown and
said with every decimal of USDC.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Input, Select, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, permit, perp_rfq, pool_between, quote_rfq
from tui.api.models import ClearingStatus, TradeSide
from tui.api.writes import WriteKind
from tui.desk.clearing import NextStep
from tui.desk.guardrails import GuardrailSettings
from tui.desk.messages import Topic
from tui.desk.roles.permit_terms import USDC_STEP, plain
from tui.desk.screens.permit import PermitScreen
from tui.desk.screens.pool_create import NewPoolScreen
from tui.desk.widgets.common import fmt
from tui.desk.widgets.pools import PoolsPane

TOO_MUCH = "999999999999"


def sent(app: Any) -> list[Any]:
    """Every write the desk journaled, in the order it was first sent."""
    return app.writes.journal.entries()


def written(app: Any) -> list[WriteKind]:
    """The kinds of every write the desk journaled, oldest first."""
    return [entry.intent.kind for entry in sent(app)]


def under_amount(form: PermitScreen) -> str:
    return str(form.query_one("#err-amount").render())


async def _deposit_form(app: Any, pilot: Any, pool_id: str, amount: str) -> PermitScreen:
    pane = app.query_one(PoolsPane)
    pane.pools_table.select_key(pool_id)
    await pilot.pause()
    await pilot.press("d")
    form = app.screen
    assert isinstance(form, PermitScreen)
    form.query_one("#amount", Input).value = amount
    await pilot.press("ctrl+s")
    await settle(app, pilot)
    return form


async def test_a_deposit_past_what_the_wallet_holds_is_never_signed_twice(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk(guardrails=GuardrailSettings(max_deposit=Decimal(TOO_MUCH) * 10))  # past the cap
    async with sandbox.client("DESK") as mine:
        pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await pilot.press("2")

        # Amounts the desk can judge alone: refused under the field, nothing sent.
        for typed, says in (
            ("0", "must be greater than 0"),
            ("-5", "must be greater than 0, not -5"),
            ("1.0000001", "at most 6 decimal places"),
            ("lots", "is not a number"),
        ):
            form = await _deposit_form(app, pilot, pool.pool_id, typed)
            assert app.screen is form and says in under_amount(form), typed
            await pilot.press("escape")
        assert written(app) == []

        # The venue alone knows the wallet: the first try signs, and its transfer is refused.
        form = await _deposit_form(app, pilot, pool.pool_id, TOO_MUCH)
        assert written(app) == [WriteKind.PERMIT, WriteKind.TRANSFER]
        assert "wallet holds only" in str(form.query_one("#err-amount").render()) + str(
            form.query_one("#err-form").render()
        )
        await pilot.press("escape")

        # Now the desk knows what the wallet holds: the same amount is refused before signing.
        form = await _deposit_form(app, pilot, pool.pool_id, TOO_MUCH)
        assert app.screen is form
        refusal = under_amount(form)
        assert refusal.startswith("more than the ") and "USDC the wallet holds" in refusal
        assert written(app) == [WriteKind.PERMIT, WriteKind.TRANSFER]
        assert app.pools.wallet is not None
        held = app.pools.wallet.usdc

        # An amount the wallet holds goes through: one permit for exactly it, then the transfer.
        sandbox.advance(11)  # a fresh request-token window for two more writes
        form.query_one("#amount", Input).value = "1000.5"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, PermitScreen), under_amount(form) + str(
            form.query_one("#err-form").render()
        )
        assert written(app)[2:] == [WriteKind.PERMIT, WriteKind.TRANSFER]
        assert sent(app)[2].intent.payload["message"]["message"]["value"] == 1_000_500_000
        assert app.pools.wallet is not None and app.pools.wallet.usdc == held - Decimal("1000.5")


async def test_no_permit_for_a_pool_that_is_not_open(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await pilot.press("2")
        await pilot.press("c")
        form = app.screen
        assert isinstance(form, NewPoolScreen)
        form.query_one("#counterparty", Select).value = sandbox.company_ids["CBLT"]
        await pilot.pause()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.POOLS)
        (pool,) = [p for p in app.book.pools.values() if p.data and p.data.name == "DESK-CBLT"]
        assert str(pool.data.status) == "pending"

        pane = app.query_one(PoolsPane)
        pane.pools_table.select_key(pool.pool_id)
        await pilot.pause()
        await pilot.press("d")
        await settle(app, pilot)
        assert not isinstance(app.screen, PermitScreen)
        assert "the pool is pending, not open" in str(pane.query_one("#pools-error").render())
        # The role says the same to a caller that skips the form.
        app.pools.deposit_now(pool.pool_id, pool.data.address or "", "x", Decimal(10))
        await settle(app, pilot)
        assert written(app) == [WriteKind.POOL]


async def _maker_trade_waiting_for_my_deposit(sandbox: Any, app: Any, pilot: Any) -> str:
    """EMBR asks DESK, DESK quotes in a new pool (over the API), EMBR buys and funds its side,
    DESK accepts at last look: DESK's deposit approval is what the trade waits for."""
    await refresh(app, pilot, Topic.COMPANIES, Topic.STATS)
    embr_wallet = sandbox.credentials["EMBR"]["wallet_private_key"]
    async with sandbox.client("EMBR") as embr, sandbox.client("DESK") as mine:
        rfq = await embr.rfqs_new(perp_rfq([sandbox.company_ids["DESK"]], "3", sandbox.clock.now()))
        (received,) = (await mine.rfqs_received(id=rfq.rfq_id)).result
        quote = await quote_rfq(mine, received, sandbox.clock.now(), new_pool="DESK-EMBR")
        await accept(embr, quote, TradeSide.BUY)
        sandbox.advance(2)
        (theirs,) = (await embr.quotes_received(id=quote.parent_quote_id)).result
        if theirs.clearing_status == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL:
            shared = (await embr.settlement_pools(id=theirs.pool_location)).result[0]
            asked = Decimal(str(theirs.model_extra["pending_deposits_sum_qty"]))
            assert await permit(embr, embr_wallet, shared.data.address, asked)
            sandbox.advance(2)
    await refresh(app, pilot, Topic.QUOTES_SENT, Topic.POOLS)
    await pilot.press("g", "a")
    await settle(app, pilot)
    await refresh(app, pilot, Topic.QUOTES_SENT, Topic.POOLS)
    (trade,) = app.book.tracked_trades()
    assert trade.next_step is NextStep.APPROVE_DEPOSIT
    return quote.parent_quote_id


async def test_a_deposit_approval_is_exactly_what_the_venue_asks(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await _maker_trade_waiting_for_my_deposit(sandbox, app, pilot)
        before = written(app)
        await pilot.press("g", "p")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, PermitScreen) and form.form.amount is not None
        asked = form.form.amount
        (trade,) = app.book.tracked_trades()
        assert asked == app.book.deposit_hint(trade).amount  # the venue's ask, unrounded
        shown = fmt.usdc(asked)
        assert Decimal(shown.replace(",", "")) == asked  # every decimal of USDC on screen
        said = " ".join(str(text.render()) for text in form.query(Static))
        assert f"The venue asks for {shown} USDC" in said
        amount = form.query_one("#amount", Input)
        assert amount.value == plain(asked)

        # A millionth short, or cut to cents, or over: refused under the field, nothing signed.
        cents = asked.quantize(Decimal("0.01"), rounding="ROUND_DOWN")
        for typed in {plain(asked - USDC_STEP), plain(cents)} - {plain(asked)}:
            amount.value = typed
            await pilot.press("ctrl+s")
            await settle(app, pilot)
            assert app.screen is form
            assert under_amount(form) == (
                f"less than the {shown} USDC the venue asks for this trade"
            )
        amount.value = plain(asked + 1)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is form and under_amount(form).startswith(f"more than the {shown} USDC")
        assert written(app) == before

        # Exactly the ask: one permit for exactly it, and the toast says it to the millionth.
        amount.value = plain(asked)
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, PermitScreen)
        assert written(app) == [*before, WriteKind.PERMIT]
        signed = sent(app)[-1].intent.payload["message"]["message"]["value"]
        assert Decimal(signed).scaleb(-6) == asked
        assert any(
            f"permit for {shown} USDC submitted" in str(n.message) for n in app._notifications
        )
        sandbox.advance(2)
        await refresh(app, pilot, Topic.QUOTES_SENT)
        (trade,) = app.book.tracked_trades()
        assert trade.status == ClearingStatus.SUCCESS_TRADES_BOOKED_INTO_POOL
