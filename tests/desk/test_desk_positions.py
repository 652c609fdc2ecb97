"""The Positions pane in a small host app: net lines, per-pool lines, totals per underlying,
and the offsetting RFQ it asks for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.widgets import Static

from tui.api.models import AggregatedPosition, Position, Trade, TradeSide
from tui.desk.analytics.positions import PositionBook, build_positions
from tui.desk.widgets.positions import PositionsPane

T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
PERP = {"instrument_type": "perpetual_future", "underlying": "BTC"}
CALL = {
    "instrument_type": "vanilla_option",
    "underlying": "ETH",
    "expiry": "2026-03-27T08:00:00Z",
    "strike": "3500",
    "payoff": "call",
}
NAMES = {"p1": "ALPHA-DESK", "p2": "BORE-DESK", "c1": "ALPHA", "c2": "BORE"}


class Names:
    """Company and pool names, as the book gives them."""

    def company_name(self, company_id: str | None) -> str:
        return NAMES.get(company_id or "", "-")

    def pool_name(self, pool_id: str | None) -> str:
        return NAMES.get(pool_id or "", "-")


def position(pool: str, cpty: str, instrument: dict[str, Any], qty: str, entry: str) -> Position:
    return Position.model_validate(
        {
            "company": "me",
            "pool_location": pool,
            "counterparty": cpty,
            "instrument": instrument,
            "updated_at": T0.isoformat(),
            "qty": qty,
            "avg_entry_price": entry,
        }
    )


def valued(p: Position, mark: str, spot: str, delta: str, vega: str = "0") -> AggregatedPosition:
    upnl = p.qty * (Decimal(mark) - p.avg_entry_price)
    return AggregatedPosition.model_validate(
        {
            "price": mark,
            "underlying_price": spot,
            "iv": "0.62" if vega != "0" else None,
            "sum_delta": delta,
            "sum_gamma": "0.0001" if vega != "0" else "0",
            "sum_theta": "-12.5" if vega != "0" else "0",
            "sum_vega": vega,
            "sum_rho": "0",
            "upnl": str(upnl),
            "notional": "0",
            "position_info": p.model_dump(mode="json"),
        }
    )


def trade(i: int, pool: str, cpty: str, side: str, qty: str, price: str) -> Trade:
    return Trade.model_validate(
        {
            "id": f"t{i}",
            "source_rfq": f"r{i}",
            "source_quote": f"q{i}",
            "company": "me",
            "counterparty": cpty,
            "created_at": (T0 + timedelta(minutes=i)).isoformat(),
            "side": side,
            "instrument": PERP,
            "price": price,
            "qty": qty,
            "pool_location": pool,
            "role": "taker",
        }
    )


def a_book() -> PositionBook:
    """BTC-PERP long 3 over two pools (one partly closed at a profit), an ETH call short."""
    btc1 = position("p1", "c1", PERP, "2", "98000")
    btc2 = position("p2", "c2", PERP, "1", "99000")
    eth = position("p1", "c1", CALL, "-10", "150")
    trades = [
        trade(1, "p1", "c1", "buy", "3", "98000"),
        trade(2, "p1", "c1", "sell", "1", "98500"),
        trade(3, "p2", "c2", "buy", "1", "99000"),
    ]
    aggregated = [
        valued(btc1, "100000", "100000", "2"),
        valued(btc2, "100000", "100000", "1"),
        valued(eth, "140", "3400", "-4.1", vega="-55.2"),
    ]
    return build_positions([btc1, btc2, eth], aggregated, trades, T0)


class Host(App[None]):
    """The pane alone, and what it asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[PositionsPane.OffsetRfq] = []

    def compose(self) -> ComposeResult:
        yield PositionsPane(Names(), id="positions")
        yield Static("")

    @on(PositionsPane.OffsetRfq)
    def _asked(self, request: PositionsPane.OffsetRfq) -> None:
        self.asked.append(request)


def test_the_book_nets_across_pools_and_totals_per_underlying() -> None:
    book = a_book()
    btc = book.position("perpetual_future|BTC")
    assert btc is not None
    assert btc.qty == 3 and len(btc.holdings) == 2
    assert btc.avg_entry == Decimal("98333.33333333")
    assert btc.upnl == 2 * 2000 + 1000
    assert btc.realised.inception == 500 and btc.realised.today == 500
    assert btc.greeks.dollar_delta == 300_000
    by_underlying = {t.underlying: t for t in book.underlyings}
    assert by_underlying["BTC"].greeks.delta == 3
    assert by_underlying["ETH"].greeks.delta == Decimal("-4.1")
    assert by_underlying["ETH"].greeks.dollar_delta == Decimal("-4.1") * 3400
    assert book.book.dollar_delta == 300_000 + Decimal("-4.1") * 3400
    assert book.book.upnl == 5000 + 100


async def test_enter_opens_the_pools_and_o_asks_for_the_offsetting_rfq() -> None:
    app = Host()
    async with app.run_test(size=(140, 30)) as pilot:
        pane = app.query_one(PositionsPane)
        pane.show_positions(a_book())
        pane.table.focus()
        await pilot.pause()
        assert pane.table.row_ids() == ["perpetual_future|BTC", CALL_KEY]
        await pilot.press("enter")
        await pilot.pause()
        assert pane.table.row_ids() == [
            "perpetual_future|BTC",
            "p1|perpetual_future|BTC",
            "p2|perpetual_future|BTC",
            CALL_KEY,
        ]
        assert pane.table.cursor_id == "perpetual_future|BTC"
        await pilot.press("o")
        await pilot.press("down", "down", "o")
        await pilot.press("down", "o")
        await pilot.pause()
        net, pool, short = app.asked
        assert [str(leg.side) for leg in net.legs] == [TradeSide.SELL]
        assert (net.qty, net.pool_id, net.counterparty) == (3, None, None)
        assert (pool.qty, pool.pool_id, pool.counterparty) == (1, "p2", "c2")
        assert str(short.legs[0].side) == TradeSide.BUY and short.qty == 10
        assert short.legs[0].instrument.strike == 3500  # type: ignore[union-attr]
        totals = str(app.query_one("#positions-totals", Static).render())
        assert "ETH" in totals and "BTC" in totals and "Book · USDC" in totals
        # A new picture of the book keeps the cursor on its line, bound to its id.
        pane.show_positions(a_book())
        await pilot.pause()
        assert pane.table.cursor_id == CALL_KEY


CALL_KEY = "vanilla_option|ETH|2026-03-27T08:00:00+00:00|3500|call"
