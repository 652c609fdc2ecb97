"""Pools from the keyboard: create a pool, deposit (permit + transfer), withdraw, export CSV."""

from __future__ import annotations

import csv
from decimal import Decimal
from typing import Any

from textual.widgets import Input, Select

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tui.desk.messages import Topic
from tui.desk.pool_facts import party_margin
from tui.desk.screens.permit import PermitScreen
from tui.desk.screens.pool_create import NewPoolScreen
from tui.desk.widgets.pools import PoolsPane


def pool_named(app: Any, name: str) -> Any:
    return next(p for p in app.book.pools.values() if p.data and p.data.name == name)


async def test_create_deposit_withdraw_and_export(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    cblt = sandbox.company_ids["CBLT"]
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await pilot.press("2")
        pane = app.query_one(PoolsPane)
        assert app.focused is pane.pools_table

        # c: a new pool with CBLT, on a margin preset; it opens one block later.
        await pilot.press("c")
        form = app.screen
        assert isinstance(form, NewPoolScreen)
        form.query_one("#counterparty", Select).value = cblt
        await pilot.pause()
        assert form.query_one("#name", Input).value == "DESK-CBLT"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        sandbox.advance(2)
        await refresh(app, pilot, Topic.POOLS)
        pool = pool_named(app, "DESK-CBLT")
        assert str(pool.data.status) == "open" and pool.data.address

        # d: deposit 1,000 USDC (the desk signs the permit with the sandbox wallet).
        pane.pools_table.select_key(pool.pool_id)
        await pilot.pause()
        await pilot.press("d")
        form = app.screen
        assert isinstance(form, PermitScreen) and form.form.pool_address == pool.data.address
        form.query_one("#amount", Input).value = "1,000"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        sandbox.advance(2)
        await refresh(app, pilot, Topic.POOLS, Topic.TRANSFERS)
        mine = party_margin(pool_named(app, "DESK-CBLT"), app.book.me)
        assert mine is not None and mine.balance == Decimal(1000)

        # w: withdraw 400, capped at what may be withdrawn.
        await pilot.press("w")
        form = app.screen
        assert isinstance(form, PermitScreen) and form.form.maximum == Decimal(1000)
        form.query_one("#amount", Input).value = "1000.01"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is form  # refused locally, error under the field
        assert "at most" in str(form.query_one("#err-amount").render())
        form.query_one("#amount", Input).value = "400"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        sandbox.advance(2)
        await refresh(app, pilot, Topic.POOLS, Topic.TRANSFERS)
        mine = party_margin(pool_named(app, "DESK-CBLT"), app.book.me)
        assert mine is not None and mine.balance == Decimal(600)
        transfers = pane.query_one("#pool-transfers")
        assert transfers.row_count == 2

        # e: the pool's trades and transfers as CSV under the export dir.
        await pilot.press("e")
        await settle(app, pilot)
        files = sorted(app.export_dir.glob("*.csv"))
        assert [f.name.split("-DESK-CBLT-")[0] for f in files] == ["trades", "transfers"]
        rows = list(csv.DictReader(files[1].open()))
        assert sorted((r["transfer_type"], r["qty"]) for r in rows) == [
            ("deposit", "1000"),
            ("withdrawal", "400"),
        ]
