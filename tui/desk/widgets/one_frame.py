"""`OneFrame`: a cursor move and what it shows elsewhere, drawn in one frame.

A move of the inbox cursor redraws two things: the cursor's rows, at once, and the ticket or
board on the RFQ now under it, after the move's message has travelled to the app and back.
Textual draws at most one frame per 1/60 s, so drawn apart the second waits for the next slot:
a key's output ends ~17 ms after the key when both together take a few. `OneFrame.hold` stops
the drawing (Textual's batch update, `App._begin_batch`) when the cursor moves; `release` lets
it go once the app has shown the RFQ, and the screen draws both in one frame at once. A move
whose showing never comes (it failed) is released after `PATIENCE_S`: the screen never stays
frozen. And nothing is held until the app has once said it showed a move (`shown`): an app that
does not listen never waits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widget import Widget

PATIENCE_S = 0.1
"""The longest a move holds the screen's drawing, whatever happens after it."""


class OneFrame:
    """Holds the app's drawing from a move until what it shows is ready (see module docs)."""

    def __init__(self, owner: Widget) -> None:
        self.owner = owner
        self._held = False
        self._patience: Timer | None = None
        self._answered = False  # the app has said, once, that it showed a move

    @property
    def held(self) -> bool:
        """Whether the app's drawing is held now."""
        return self._held

    def hold(self) -> None:
        """Hold the drawing (once, whatever the number of moves) until `release`."""
        if self._held or not self._answered or not self.owner.is_attached:
            return
        app = self.owner.app
        app._begin_batch()
        self._held = True
        self._patience = self.owner.set_timer(PATIENCE_S, self.release, name="one-frame")

    def shown(self) -> None:
        """The app has shown what the move put under the cursor: draw now."""
        self._answered = True
        self.release()

    def release(self) -> None:
        """Let the drawing go: the screen draws what changed since `hold` in one frame."""
        if not self._held:
            return
        self._held = False
        if self._patience is not None:
            self._patience.stop()
            self._patience = None
        app = self.owner.app
        app._end_batch()
        if not app._batch_count and app.is_running:
            # The screen looks for work when it goes idle, and it went idle while held: ask it
            # to look again (what changed is still marked on it; nothing is redrawn twice).
            app.screen.check_idle()
