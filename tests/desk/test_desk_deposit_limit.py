"""A pool deposit above the deposit limit (config.toml ``[guardrails] max_deposit``) is refused
under the field before any permit is signed (trial #1: 99,999,999,999 USDC was signed first and
only the venue's transfer refused it). A trade's deposit, exactly what the venue asks, is not
capped: its form says when it is above the limit."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Input

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.venue import pool_between
from tui.desk.config import load_config
from tui.desk.guardrails import DEFAULTS, GuardrailSettings
from tui.desk.messages import Topic
from tui.desk.roles.permit_terms import over_limit_note, permit_refusal
from tui.desk.screens.permit import PermitScreen
from tui.desk.widgets.pools import PoolsPane

D = Decimal


async def test_a_deposit_above_the_limit_is_refused_before_signing(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk(guardrails=GuardrailSettings(max_deposit=D(5000)))
    async with sandbox.client("DESK") as mine:
        pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS)
        await pilot.press("2")
        app.query_one(PoolsPane).pools_table.select_key(pool.pool_id)
        await pilot.pause()
        await pilot.press("d")
        form = app.screen
        assert isinstance(form, PermitScreen)
        form.query_one("#amount", Input).value = "99999999999"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is form
        said = str(form.query_one("#err-amount").render())
        assert "more than the deposit limit of 5,000 USDC" in said
        assert "guardrails.max_deposit in config.toml" in said
        assert app.writes.journal.entries() == []  # no permit, no transfer

        form.query_one("#amount", Input).value = "5000"  # at the limit: goes
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert not isinstance(app.screen, PermitScreen)
        assert [e.outcome for e in app.writes.journal.entries()] == ["landed", "landed"]


def test_the_limit_caps_pool_deposits_only_and_says_so_for_a_trade() -> None:
    assert DEFAULTS.max_deposit == D(1_000_000)
    refused = permit_refusal(
        D("1000000.01"), approval=False, asked=None, wallet=None, max_deposit=DEFAULTS.max_deposit
    )
    assert refused.startswith("more than the deposit limit of 1,000,000 USDC")
    assert (
        permit_refusal(
            D(1_000_000), approval=False, asked=None, wallet=None, max_deposit=DEFAULTS.max_deposit
        )
        == ""
    )
    # A trade's deposit: exactly what the venue asks, never capped, but said.
    assert (
        permit_refusal(
            D(2_000_000),
            approval=True,
            asked=D(2_000_000),
            wallet=None,
            max_deposit=DEFAULTS.max_deposit,
        )
        == ""
    )
    assert "not capped" in over_limit_note(D(2_000_000), DEFAULTS.max_deposit)
    assert over_limit_note(D(1_000_000), DEFAULTS.max_deposit) == ""


def test_the_limit_is_read_from_config_toml(tmp_path: Any) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[guardrails]\nmax_deposit = 250000\n")
    assert load_config(path).guardrails.settings().max_deposit == D(250000)
    assert "max deposit 250,000 USDC" in "\n".join(load_config(path).guardrails.settings().lines())
