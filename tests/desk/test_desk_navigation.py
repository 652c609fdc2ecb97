"""Every pane has a way back that the footer shows: escape, to the inbox or the Trade tab."""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer, TabbedContent

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.venue import perp_rfq
from tui.desk.app import DeskApp
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.widgets.rfq_inbox import RfqInbox


def footer_says(app: DeskApp, key: str) -> str:
    """The footer's description of ``key`` where the focus is (empty: not shown)."""
    for active in app.screen.active_bindings.values():
        binding = active.binding
        if binding.key == key and binding.show and active.enabled:
            return binding.description
    return ""


async def test_escape_leads_back_from_every_pane(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        async with sandbox.client("DESK") as mine:
            rfq = await mine.rfqs_new(
                perp_rfq([sandbox.company_ids["ALPHA"]], "1", sandbox.clock.now())
            )
        await refresh(app, pilot, Topic.RFQS_SENT)
        app.query_one(RfqInbox).select("sent", rfq.rfq_id)
        await pilot.pause()
        inbox = app.query_one("#inbox-table")

        # The quote board: enter goes there, escape comes back.
        inbox.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert app.focused is app.query_one("#board-table")
        assert footer_says(app, "escape") == "Back to inbox"
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is inbox

        # The clearing tracker.
        app.query_one("#tracker-list").focus()
        await pilot.pause()
        assert footer_says(app, "escape") == "Back to inbox"
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is inbox

        # The other tabs: escape is back on the Trade tab, in the inbox.
        for tab in ("2", "3", "4"):
            await pilot.press(tab)
            await pilot.pause()
            assert app.focused is not inbox
            assert footer_says(app, "escape") == "Back to Trade"
            await pilot.press("escape")
            await pilot.pause()
            assert app.focused is inbox


async def test_a_modal_shows_its_own_keys_and_holds_the_desk_keys(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        await refresh(app, pilot, Topic.COMPANIES)
        assert footer_says(app, "n") == "New RFQ"
        await pilot.press("n")
        await pilot.pause()
        builder = app.screen
        assert isinstance(builder, NewRfqScreen)
        assert len(builder.query(Footer)) == 1
        assert footer_says(app, "ctrl+s") == "Send RFQ"
        assert footer_says(app, "escape") == "Back out"
        # The desk's own keys would act on the panes behind the form: off, and not shown.
        assert footer_says(app, "g") == "" and footer_says(app, "e") == ""
        builder.query_one("#targets").focus()
        await pilot.press("g", "2")
        await pilot.pause()
        assert app.screen is builder
        assert app.query_one(TabbedContent).active == "trade"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not builder and footer_says(app, "n") == "New RFQ"
