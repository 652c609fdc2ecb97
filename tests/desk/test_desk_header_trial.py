"""The header and what waits beside it (new-user trial, defects 4, 7 and 12).

The banner said ``APPROVE DEPOSIT 811.81`` while the venue asked 811.808 USDC; the tracker's
notional read 22,191.81 for 0.1125 x 197,260.56 = 22,191.813; the header's ``Exposure`` and
dollar greeks carried no unit; at 140x45 the deposit banner was drawn over the ``Θ/day`` figure.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Static

from tests.desk.kit.desk import DeskFactory, refresh
from tests.desk.kit.venue import accept, perp_rfq, pool_between, quote_rfq
from tests.desk.test_desk_figures import summary
from tui.api.models import TradeSide
from tui.desk.clearing import NextStep
from tui.desk.messages import Topic
from tui.desk.widgets.attention import Attention
from tui.desk.widgets.common import fmt
from tui.desk.widgets.portfolio_header import HEADER_FIGURES, summary_markup
from tui.desk.widgets.trade_tracker import render_trade

D = Decimal


async def _deposit_waits(sandbox: Any) -> None:
    """DESK buys an odd size from ALPHA: its deposit approval waits, for an amount and a
    notional with more than two places."""
    async with sandbox.client("DESK") as mine, sandbox.client("ALPHA") as alpha:
        await mine.rfqs_new(
            perp_rfq([sandbox.company_ids["ALPHA"]], "30.1125", sandbox.clock.now())
        )
        (received,) = (await alpha.rfqs_received()).result
        pool = await pool_between(alpha, sandbox.company_ids["DESK"])
        quote = await quote_rfq(alpha, received, sandbox.clock.now(), pool_id=pool.pool_id)
        await accept(mine, quote, TradeSide.BUY)


@pytest.mark.parametrize("size", [(140, 45), (80, 24)])
async def test_the_deposit_owed_is_exact_and_covers_no_header_figure(
    sandbox: Any, desk: DeskFactory, size: tuple[int, int]
) -> None:
    app = desk()
    async with app.run_test(size=size) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await _deposit_waits(sandbox)
        await refresh(app, pilot, Topic.RFQS_SENT, Topic.QUOTES_RECEIVED, Topic.SUMMARY)
        await pilot.pause()
        (trade,) = app.book.needs_me()
        assert trade.next_step is NextStep.APPROVE_DEPOSIT
        owed = app.book.deposit_hint(trade).amount
        assert owed is not None
        attention = app.query_one(Attention)
        said = str(attention.render())
        assert f"APPROVE DEPOSIT {fmt.usdc(owed)} USDC" in said, said

        # Nothing is drawn over a figure: the figures have their own cells, all of them.
        portfolio = app.query_one("#portfolio", Static)
        assert not portfolio.region.overlaps(attention.region), (portfolio.region, attention.region)
        lines = str(portfolio.render()).splitlines()
        assert all(cell_len(line) <= portfolio.content_size.width for line in lines), lines
        assert len(lines) <= portfolio.size.height, (lines, portfolio.size)
        shown = "\n".join(lines)
        assert app.book.summary is not None
        assert fmt.cents(app.book.summary.sum_theta, signed=True) in shown.split("Θ/day")[1]

        # The tracker's notional: qty x price, exact.
        (notional,) = (trade.notionals or {}).values()
        assert fmt.decimal_places(notional) > 2, "the case needs a figure rounding would cut"
        card = str(render_trade(trade, app.book, sandbox.clock.now()))
        assert f"notional BTC {fmt.usdc(notional)} USDC" in card, card


def test_every_header_figure_says_its_unit_and_only_a_rounded_one_is_marked() -> None:
    figures = summary().model_copy(
        update={"sum_balance": D("728122.66775"), "sum_vega": D("8.0012345")}
    )
    for two_lines in (False, True):
        line = summary_markup(figures, two_lines=two_lines)
        for text in line.splitlines():
            assert text.startswith("[$text-muted]USDC[/] "), text  # each line headed by its unit
        assert "In pools [b]728,122.66775[/b]" in line  # what the pools hold: exact
        assert "Vega ≈+8.00" in line  # rounded, and says so
        assert "$Δ +145,012.33" in line and "≈+145" not in line  # whole: no mark
    assert any(label == "USDC" for label, _meaning in HEADER_FIGURES)
