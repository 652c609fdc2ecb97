"""The structure builder: who it targets first, and how it waits for the venue's answer.

Only market makers (``is_lp``) start ticked, and an unticked company reads as unticked even
without colour. The builder stays open while the RFQ is on its way; a venue refusal lands
under the leg or field it names, and only an RFQ the venue took closes the builder.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Select, SelectionList, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tui.api.errors import OutOfRange
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.screens.rfq_legs import TargetList
from tui.desk.screens.rfq_request import rfq_errors_from_api
from tui.desk.widgets.common.forms import FORM
from tui.desk.widgets.quote_board import QuoteBoard
from tui.desk.widgets.rfq_inbox import RfqInbox


def test_venue_refusals_of_an_rfq_map_to_the_builder_fields() -> None:
    def mapped(message: str) -> dict[str, str]:
        return rfq_errors_from_api(OutOfRange(message))

    assert mapped("structure.legs[1].instrument.underlying: 'XYZ' is not listed") == {
        "leg-1": "underlying: 'XYZ' is not listed"
    }
    assert mapped("target_companies[2]: unknown company") == {"targets": "unknown company"}
    assert mapped("target_companies: must not include your own company") == {
        "targets": "must not include your own company"
    }
    assert mapped("expires_at: must be at most 86400 s ahead") == {
        "expiry": "must be at most 86400 s ahead"
    }
    assert mapped("the venue is closed") == {FORM: "the venue is closed"}


async def test_the_builder_ticks_only_market_makers(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        targets = builder.query_one("#targets", TargetList)
        companies = app.book.counterparties()
        makers = {c.id for c in companies if c.is_lp}
        assert makers and set(targets.selected) == makers
        assert {c.short_name for c in companies if not c.is_lp} >= {"EMBR", "FJRD"}

        # Ticked or not reads from the text itself, not from a colour.
        def box(short_name: str) -> str:
            index = next(i for i, c in enumerate(companies) if c.short_name == short_name)
            return targets.render_line(index).text[:3]

        assert "X" in box("ALPHA") and "X" not in box("EMBR")
        summary = str(builder.query_one("#targets-summary", Static).render())
        assert "goes to 4" in summary and "EMBR" not in summary

        # The user can still add a taker with space.
        embr = next(i for i, c in enumerate(companies) if c.short_name == "EMBR")
        targets.focus()
        targets.highlighted = embr
        await pilot.press("space")
        await pilot.pause()
        assert sandbox.company_ids["EMBR"] in targets.selected
        assert "X" in box("EMBR")
        assert "EMBR" in str(builder.query_one("#targets-summary", Static).render())


async def test_a_venue_refusal_keeps_the_builder_open_under_its_field(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        builder.query_one("#type-0", Select).value = "dated_future"
        await pilot.pause()
        # A well-formed date the venue refuses: it is in the past.
        builder.query_one("#expiry-0", Input).value = "2020-01-03"
        targets = builder.query_one("#targets", SelectionList)
        targets.deselect_all()
        targets.select(sandbox.company_ids["ALPHA"])
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is builder, "a refused RFQ must not close the builder"
        error = builder.query_one("#err-leg-0", Static)
        assert error.display
        assert str(error.render()) == "expiry: must be in the future"
        assert not builder.sending and not builder.query_one("#go").disabled
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert not app.book.rfqs_sent

        # Fixed and sent again: the venue takes it, the builder closes, and the inbox shows
        # the venue's record at once (no poll yet), with the cursor on it.
        builder.query_one("#expiry-0", Input).value = "2026-12-25"
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is not builder
        (rfq,) = app.book.rfqs_sent.values()
        inbox = app.query_one(RfqInbox)
        assert inbox.selected == ("sent", rfq.rfq_id)
        assert app.query_one(QuoteBoard).rfq is not None
        # The next poll lists it: one row, not two.
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert list(app.book.rfqs_sent) == [rfq.rfq_id]
        assert inbox.table.row_keys.count(f"sent:{rfq.rfq_id}") == 1
