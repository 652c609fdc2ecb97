"""Figures that mean one thing (issue 9): no sum across underlyings, one word per definition,
one formatter per kind of number.

The header once added 1.27 BTC and 140.84 SOL into "Δ +142.1052"; "Notional" meant three
things; "Bal" read like the wallet; CSV ids came without names; a withdrawal was +400 in the
CSV and -400.00 on screen.
"""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.desk.kit import records
from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.scenes import build_world
from tests.desk.kit.tabs import show_tab
from tui.api.models import PortfolioSummary, TransferType
from tui.desk.export import export_csv
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.keyed_table import KeyedTable
from tui.desk.widgets.pools import PoolsPane
from tui.desk.widgets.portfolio_header import HEADER_FIGURES, summary_markup

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


def summary() -> PortfolioSummary:
    return PortfolioSummary(
        sum_balance=Decimal("250000"),
        sum_upnl=Decimal("-12.5"),
        sum_notional=Decimal("150000"),
        sum_delta=Decimal("142.1052"),  # 1.27 BTC + 140.84 SOL: a sum of nothing
        sum_gamma=Decimal("0.0031"),
        sum_theta=Decimal("-41.2"),
        sum_vega=Decimal("310.75"),
        sum_rho=Decimal("0"),
        sum_dollar_delta=Decimal("145012.33"),
        sum_dollar_gamma=Decimal("812.4"),
    )


def test_the_header_shows_dollar_greeks_and_never_adds_underlyings() -> None:
    line = summary_markup(summary())
    assert "142.1052" not in line and "+142.1" not in line
    assert fmt.greek(Decimal("0.0031")) not in line
    assert f"$Δ {fmt.money(Decimal('145012.33'), signed=True)}" in line
    assert f"$Γ {fmt.money(Decimal('812.4'), signed=True)}" in line
    assert "Bal " not in line and "Notional" not in line
    # Every figure on the line is one the help explains.
    for label, meaning in HEADER_FIGURES:
        assert label in line, label
        assert meaning


async def test_pool_positions_show_greeks_per_underlying(sandbox: Any, desk: DeskFactory) -> None:
    await build_world(sandbox)
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot)
        pane = await show_tab(app, pilot, "pools", PoolsPane)
        pool = next(p for p in app.book.pools.values() if p.data and p.data.positions)
        pane.pools_table.select_key(pool.pool_id)
        await pilot.pause()
        (position,) = pool.data.positions
        table = pane.query_one("#pool-positions", KeyedTable)
        labels = [str(column.label) for column in table.columns.values()]
        assert {"Δ", "Γ"} <= set(labels)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert fmt.greek(position.sum_delta) in row
        # Half a pane leaves vega and theta out rather than run past its edge: `v` has them.
        assert table.virtual_size.width <= table.scrollable_content_region.width
        fields = dict(table.row_fields(table.row_keys[0]))
        assert {"Δ", "Γ", "Vega $", "Θ $/day"} <= set(fields)
        greeks = str(pane.query_one("#pool-greeks").render())
        assert f"BTC  Δ {fmt.greek(position.sum_delta)} BTC" in greeks


def test_csv_names_counterparties_and_pools_and_signs_match_the_screen(tmp_path: Path) -> None:
    book = records.pools_book()
    withdrawal = records.transfer(TransferType.WITHDRAWAL)
    _, transfers_path = export_csv(tmp_path, [], [withdrawal], NOW, "all", book)
    (row,) = csv.DictReader(transfers_path.open())
    assert row["counterparty"] == records.OTHER and row["counterparty_name"] == "ALPHA"
    assert row["target_pool_location"] == records.POOL_ID and row["pool_name"] == "DESK-EMBR"
    assert row["qty"] == "400" and row["transfer_type"] == "withdrawal"


async def test_a_withdrawal_reads_the_same_on_screen_as_in_the_csv(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        app.book.me = records.ME
        app.book.pools = {records.POOL_ID: records.pool()}
        app.book.transfers = [records.transfer(TransferType.WITHDRAWAL)]
        pane = await show_tab(app, pilot, "pools", PoolsPane)
        pane.show_pools()
        pane.pools_table.select_key(records.POOL_ID)
        await pilot.pause()
        pane.show_detail()
        row = [
            str(cell).strip()
            for cell in pane.query_one("#pool-transfers", KeyedTable).get_row_at(0)
        ]
        assert "400.00" in row and "-400.00" not in row


def test_one_formatter_per_kind() -> None:
    assert fmt.usdc(Decimal("18771.804583")) == "18,771.804583"
    assert fmt.usdc(Decimal("500")) == "500.00"
    assert fmt.bps(Decimal("12.5")) == "12.5 bp"
    assert fmt.price(Decimal("98000.5")) == "98,000.50"
    assert fmt.qty(Decimal("1000")) == "1,000"
