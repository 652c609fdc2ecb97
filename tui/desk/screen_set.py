"""`ScreenSet`: the screens the desk opens over its tabs, each imported when first opened.

Mixed into `DeskApp` like `RoleSet`: the help, the journal, the first-run screen of a venue
profile and a listing's detail are actions and openers of the app (keys and the palette name
them), while their modules load only when a trader opens one, not with the first frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from tui.desk.app import DeskApp


class ScreenSet:
    """Mixed into `DeskApp`: the screens it opens (see module docs)."""

    @property
    def _desk(self) -> DeskApp:
        return cast("DeskApp", self)

    def action_add_profile(self) -> None:
        """The first-run screen of a venue profile (`tui.desk.screens.first_run`)."""
        from tui.desk.screens.first_run import open_first_run

        open_first_run(self._desk)

    def action_help(self) -> None:
        """Keys and workflows."""
        from tui.desk.screens.help import HelpScreen

        desk = self._desk
        desk.push_screen(HelpScreen(desk.desk_keymap))

    def action_open_journal(self) -> None:
        """The journal: every action sent, newest first, and what came of it."""
        from tui.desk.screens.journal import JournalScreen

        desk = self._desk
        desk.push_screen(JournalScreen(desk.writes))

    def open_listing(self, ticker: str) -> None:
        """One listing in detail: its mark over the session, quotes by size, funding
        (`tui.desk.screens.listing_detail`; the next statistics poll redraws it)."""
        from tui.desk.screens.listing_detail import ListingDetail

        desk = self._desk
        book = desk.book
        desk.push_screen(ListingDetail(ticker, book.market_history, desk.clock, book.stats))
