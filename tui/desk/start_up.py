"""`StartUp`: the order the desk comes up in, so the first frame waits for nothing it does not show.

1. Before anything is composed, the venue is looked for (`tui.desk.venue_link.VenueLink.reach`):
   a sandbox already serving the data folder is asked whether it answers, or the desk's own
   sandbox is started. Both wait on another process, which works while this one draws.
2. The first frame: the header, the tab bar, the inbox, the tracker, the ticket's empty frame,
   the status bar and the footer with its keys (`tui.desk.layout.desk_layout`).
3. Right after it (``drawn`` is set), the venue link connects: the client and the models
   load and the portfolio summary is asked for and shown (`tui.desk.venue_link`). Then, or
   as soon as the link waits on the venue for long (the sandbox still starting), or after
   `HEAD_START_S` at most (a slow venue), the parts the first frame does not show are built
   (`tui.desk.layout.later_parts`: the quote ticket in place of its empty frame, and the
   quote board; the link's ``makes_way``). The desk is then whole. All of this is work of
   this one process: whichever goes first delays the other, and the balance goes first.
4. Only once the desk is whole does the link poll anything else, bind the writes and say it
   is connected: every pane a poll can reach is there.

A key typed before the desk is whole is held, and handed on once it is, in the order typed,
through the type-ahead (`tui.desk.typeahead`): it acts on the desk it was meant for, never on
a part that is not there yet.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from textual import events
from textual.widgets import ContentSwitcher

from tui.desk.layout import TICKET_FRAME, DeskFooter, later_parts
from tui.desk.typeahead import Replay

if TYPE_CHECKING:
    from tui.desk.app import DeskApp

HEAD_START_S = 0.3
"""How long at most the rest of the desk waits for the first data (see module docs)."""


class StartUp:
    """The desk's way up (see module docs): ``whole`` is set once every part is mounted."""

    def __init__(self, app: DeskApp) -> None:
        self.app = app
        self.drawn = asyncio.Event()
        """Set once the first frame is out (and when the start-up ends, however it ends)."""
        self.whole = asyncio.Event()
        self._held: list[events.Key] | None = []

    def hold(self, key: events.Key) -> bool:
        """Keep ``key`` until the desk is whole; False when it is already (the key goes on)."""
        if self._held is None:
            return False
        self._held.append(key)
        return True

    async def run(self) -> None:
        """After the first frame, the rest; then the held keys go on, in order."""
        try:
            await self.first_frame()
            self.drawn.set()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(HEAD_START_S):
                    await self.app.link.makes_way.wait()
            await self._assemble()
        finally:
            self._let_keys_in()
            self.drawn.set()
            self.whole.set()

    async def first_frame(self) -> None:
        """Wait until the first frame is out, the footer's keys included."""
        await self.app.query_one(DeskFooter).keys_shown.wait()
        await frame_drawn(self.app)

    async def _assemble(self) -> None:
        """The quote ticket in place of its empty frame, and the quote board (hidden)."""
        app = self.app
        right = app.query_one("#right", ContentSwitcher)
        parts = later_parts(app.book, app.clock)
        for part in parts:
            part.display = False
        await right.mount_all(parts)
        right.current = "ticket"
        await right.get_child_by_id(TICKET_FRAME).remove()
        app.panes.stale_marks.show_all()  # marked from now on like every pane

    def _let_keys_in(self) -> None:
        """The keys typed meanwhile, to the type-ahead, ahead of any typed from now on."""
        held, self._held = self._held, None
        if not held:
            return
        ahead = self.app.type_ahead
        ahead.waiting.extend(held)
        ahead.replay_pending = True
        self.app.post_message(Replay())


async def frame_drawn(app: Any) -> None:
    """Wait until the screen has drawn what is pending (at once when the app is closing)."""
    drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    if app.call_after_refresh(_settle, drawn):
        await drawn


def _settle(drawn: asyncio.Future[None]) -> None:
    if not drawn.done():
        drawn.set_result(None)
