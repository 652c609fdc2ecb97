"""The Positions book walks the trade legs for realised P&L only when the trades changed: a
marks-only change (every valuation poll while the tab shows) reuses the last walk."""

from __future__ import annotations

from typing import Any

import pytest

from tests.desk.kit.venue import DAY_START, booked_trades
from tui.desk.analytics import positions as positions_module
from tui.desk.analytics.positions import TradeWalk, build_positions


def test_the_trade_walk_is_redone_only_when_the_trades_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    walks: list[int] = []
    real = positions_module.realised_by_holding

    def counted(trades: Any, day_start: Any) -> Any:
        walks.append(len(trades))
        return real(trades, day_start)

    monkeypatch.setattr(positions_module, "realised_by_holding", counted)
    walk = TradeWalk()
    trades = booked_trades(10)
    first = build_positions([], [], trades, DAY_START, walk=walk)
    again = build_positions([], [], list(trades), DAY_START, walk=walk)  # marks moved only
    assert walks == [10]
    assert again == first
    more = [*trades, *booked_trades(1, start=10)]
    build_positions([], [], more, DAY_START, walk=walk)
    assert walks == [10, 11]
    build_positions([], [], more, DAY_START.replace(day=6), walk=walk)  # a new day
    assert walks == [10, 11, 11]
