"""Work kept and refusals placed, as a tester met them, against the sandbox over loopback.

The builder keeps the draft the trader backed out of (``n`` brings it back, ``ctrl+l``
starts afresh); each refusal shows under its own field, in the desk's words, and a quantity
off the underlying's tick is refused before it is sent. ``ctrl+q`` asks first while a trade
waits for my action, naming it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Input, Select, SelectionList, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
from tui.api.models import TradeSide
from tui.desk.messages import Topic
from tui.desk.roles.quitting import QuitScreen
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.screens.pool_create import NewPoolScreen


def _said(screen: Any, field: str) -> str:
    label = screen.query_one(f"#err-{field}", Static)
    return str(label.render()) if label.display else ""


async def _builder(app: Any, pilot: Any) -> NewRfqScreen:
    await pilot.press("n")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, NewRfqScreen)
    return screen


async def test_backing_out_keeps_the_draft_and_ctrl_l_starts_afresh(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS)
        builder = await _builder(app, pilot)
        builder.query_one("#qty", Input).value = "7"
        await pilot.pause()
        await pilot.press("ctrl+a")
        await pilot.pause()
        builder.query_one("#underlying-1", Select).value = "ETH"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, NewRfqScreen)

        again = await _builder(app, pilot)
        assert again is not builder
        assert again.query_one("#qty", Input).value == "7"
        assert [leg.underlying for leg in again.draft().legs] == ["BTC", "ETH"]
        assert "ctrl+l starts afresh" in str(again.query_one("#builder-note", Static).render())

        await pilot.press("ctrl+l")
        await pilot.pause()
        assert again.query_one("#qty", Input).value == "1"
        assert len(again.draft().legs) == 1
        await pilot.press("escape")
        await pilot.pause()
        fresh = await _builder(app, pilot)
        assert fresh.query_one("#qty", Input).value == "1" and len(fresh.draft().legs) == 1

        # A sent RFQ leaves nothing to bring back.
        fresh.query_one("#qty", Input).value = "3"
        targets = fresh.query_one("#targets", SelectionList)
        targets.deselect_all()
        targets.select(sandbox.company_ids["ALPHA"])
        await pilot.press("escape")
        await pilot.pause()
        kept = await _builder(app, pilot)
        assert kept.query_one("#qty", Input).value == "3"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, NewRfqScreen)
        after = await _builder(app, pilot)
        assert after.query_one("#qty", Input).value == "1"


async def test_each_refusal_sits_under_its_own_field(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS)
        builder = await _builder(app, pilot)
        builder.query_one("#qty", Input).value = "x"
        builder.query_one("#expiry", Input).value = "-1"
        await pilot.press("ctrl+s")
        await pilot.pause()
        qty, expiry = builder.query_one("#err-qty"), builder.query_one("#err-expiry")
        assert "'x' is not a number" in _said(builder, "qty")
        assert "at least 10" in _said(builder, "expiry")
        # Side by side, each under its own field (Quantity left, Open for s right).
        qty_field, expiry_field = builder.query_one("#qty"), builder.query_one("#expiry")
        assert qty.region.y == expiry.region.y
        assert qty.region.x < qty_field.region.right <= expiry.region.x <= expiry_field.region.x


async def test_a_quantity_off_the_tick_is_refused_before_it_is_sent(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS)
        builder = await _builder(app, pilot)
        builder.query_one("#qty", Input).value = "0.1234567890123"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert not app.book.rfqs_sent and not builder.sending, "nothing goes to the venue"
        assert _said(builder, "qty") == (
            "not a multiple of BTC's quantity tick 0.0001 (typed 0.1234567890123)"
        )
        builder.query_one("#qty", Input).value = "0.00001"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert _said(builder, "qty") == "below BTC's minimum of 0.0001 (typed 0.00001)"
        builder.query_one("#qty", Input).value = "0.1234"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, NewRfqScreen), "a whole number of ticks is sent"
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert [r.qty for r in app.book.rfqs_sent.values()] == [Decimal("0.1234")]


async def test_a_long_pool_name_is_refused_in_the_desks_words(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await pilot.press("2")
        await pilot.press("c")
        form = app.screen
        assert isinstance(form, NewPoolScreen)
        form.query_one("#counterparty", Select).value = sandbox.company_ids["CBLT"]
        await pilot.pause()
        form.query_one("#name", Input).value = "p" * 60
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert _said(form, "name") == "at most 50 characters (typed 60)"


async def test_quitting_asks_first_while_a_last_look_waits(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("ALPHA") as alpha, sandbox.client("DESK") as mine:
            rfq = await alpha.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "1", sandbox.clock.now())
            )
            (received,) = (await mine.rfqs_received(id=rfq.rfq_id)).result
            pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
            quote = await quote_rfq(mine, received, sandbox.clock.now(), pool_id=pool.pool_id)
            await accept(alpha, quote, TradeSide.SELL)
        await refresh(app, pilot, Topic.QUOTES_SENT, Topic.RFQS_RECEIVED)
        assert app.book.needs_me()

        await pilot.press("ctrl+q")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, QuitScreen) and app.is_running
        assert "LAST LOOK" in question.body and "ALPHA" in question.body
        assert rfq.rfq_id[:8] in question.body
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and not isinstance(app.screen, QuitScreen)

        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("ctrl+q")  # one more key quits
        await pilot.pause()
        assert not app.is_running or app._exit


async def test_quitting_with_nothing_waiting_is_at_once(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        assert not app.book.needs_me()
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen)
        assert not app.is_running or app._exit


def test_a_quantity_tick_reads_from_the_supported_assets() -> None:
    from tui.desk.builder.ticks import qty_tick_problem

    ticks = {"BTC": Decimal("0.0001"), "ETH": Decimal("0.001")}
    assert qty_tick_problem(Decimal("0.0015"), ["BTC", "ETH"], ticks, "0.0015") == (
        "not a multiple of ETH's quantity tick 0.001 (typed 0.0015)"
    )
    assert qty_tick_problem(Decimal("-1"), ["BTC"], ticks, "-1") == ""  # the model's to judge
    assert qty_tick_problem(Decimal("0.5"), ["XYZ"], ticks, "0.5") == ""  # the venue's to judge
