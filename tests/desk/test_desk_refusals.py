"""Venue refusals read as words in every pane and form, never as the venue's raw code (issue 9).

The ticket, the pools pane, the builder and the money forms once showed the venue's message as
it came (``rejected_maker_last_look_rejected: ...``, ``qty: ...``); every one of them now goes
through the one mapping (`tui.desk.roles.refusals`). A deposit the venue refuses keeps its
dialog open with the reason under the amount.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from textual.widgets import Input, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tests.desk.kit.tabs import show_tab
from tests.desk.kit.venue import pool_between
from tui.api.errors import Conflict
from tui.desk.guardrails import GuardrailSettings
from tui.desk.messages import ActionKind, ActionOutcome, RecordIds, Topic
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.screens.permit import PermitScreen
from tui.desk.widgets.pools import PoolsPane
from tui.desk.widgets.quote_ticket import QuoteTicket

RAW = "rejected_maker_last_look_rejected: the maker said no"
WORDS = "the maker declined at last look"


def _refused(kind: ActionKind, form: object = None) -> ActionOutcome:
    error = Conflict(RAW, endpoint="POST x")
    return ActionOutcome(kind, RecordIds(), problem=error.message, error=error, form=form)


def _shown(widget: Static) -> str:
    return str(widget.render())


async def test_the_ticket_pools_pane_and_builder_say_a_refusal_in_words(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
        ticket = app.query_one(QuoteTicket)
        ticket.show_outcome(_refused(ActionKind.NEW_QUOTE))
        await pilot.pause()
        shown = _shown(ticket.query_one("#err-form", Static))
        assert WORDS in shown and "rejected_maker" not in shown

        pools = await show_tab(app, pilot, "pools", PoolsPane)  # built when first shown
        pools.show_outcome(_refused(ActionKind.NEW_POOL))
        await pilot.pause()
        shown = _shown(pools.query_one("#pools-error", Static))
        assert WORDS in shown and "rejected_maker" not in shown

        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        builder.show_outcome(_refused(ActionKind.NEW_RFQ, form=builder))
        await pilot.pause()
        shown = _shown(builder.query_one("#err-form", Static))
        assert WORDS in shown and "rejected_maker" not in shown


async def test_a_deposit_the_venue_refuses_keeps_its_dialog_with_the_reason_under_the_amount(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk(guardrails=GuardrailSettings(max_deposit=Decimal(10**12)))  # the venue refuses
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.POOLS, Topic.TRANSFERS)
        pools = await show_tab(app, pilot, "pools", PoolsPane)
        async with sandbox.client("DESK") as mine:
            pool = await pool_between(mine, sandbox.company_ids["ALPHA"])
        pools.pools_table.select_key(pool.pool_id)
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, PermitScreen)
        amount = form.query_one("#amount", Input)
        amount.value = "999999999"  # more than the wallet holds: the venue refuses
        amount.focus()
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await settle(app, pilot)
        assert app.screen is form, "the dialog stays open on a refusal"
        under = _shown(form.query_one("#err-amount", Static))
        assert "wallet holds only" in under
        assert "qty:" not in under
        assert amount.value == "999999999", "the amount stays as typed"
