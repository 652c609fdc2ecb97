"""The taker opens the structure builder: empty (``n``), or prefilled with the RFQ that offsets
a position (`TakerRole.offset`, the Positions tab's key), fed from the book with the desk's
guardrails and its data folder for templates; not before the companies are known.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

from textual.widgets import Input, Select, SelectionList

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tui.api.models import Leg, PerpetualFutureInstrument, TradeSide
from tui.desk.guardrails import GuardrailSettings
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen


async def test_the_builder_waits_for_the_companies_then_opens_with_the_desks_settings(
    sandbox: Any, desk: DeskFactory, tmp_path: Path
) -> None:
    settings = GuardrailSettings(duplicate_rfq_s=5)
    app = desk(guardrails=settings)
    async with app.run_test(size=SIZE) as pilot:
        await app.wait_connected()
        await pilot.press("n")
        await pilot.pause()
        assert not isinstance(app.screen, NewRfqScreen)
        assert any("company list not loaded" in n.message for n in app._notifications)

        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.ASSETS)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        assert builder.guardrails is settings
        assert builder.templates.path is not None
        assert builder.templates.path.is_relative_to(tmp_path)  # the desk's data folder
        assert builder.underlyings[:2] == ["BTC", "ETH"]  # the majors first


async def test_offset_prefills_the_closing_legs_for_the_counterparty(
    sandbox: Any, desk: DeskFactory
) -> None:
    alpha = sandbox.company_ids["ALPHA"]
    close = [
        Leg(side=TradeSide.SELL, ratio=1, instrument=PerpetualFutureInstrument(underlying="ETH"))
    ]
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.STATS, Topic.POOLS)
        app.taker.offset(close, Decimal("2.5"), alpha, None)
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        await pilot.pause()
        assert builder.query_one("#underlying-0", Select).value == "ETH"
        assert builder.query_one("#side-0", Select).value == "buy"
        assert builder.query_one("#qty", Input).value == "2.5"
        assert builder.query_one("#targets", SelectionList).selected == [alpha]
        await pilot.press("escape")
        await pilot.pause()

        # No counterparty known (a net position across pools): the market makers, as for n.
        app.taker.offset(close, Decimal(1), None, None)
        await pilot.pause()
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        picked = builder.query_one("#targets", SelectionList).selected
        assert picked and len(picked) < len(app.book.counterparties())
