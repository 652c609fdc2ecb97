"""Type-ahead: keys typed in a burst land in the form the first of them opens.

A paste or a macro (``d100`` on the Pools tab, ``Enter 111 Tab 222`` in the inbox) reaches the
desk as keys queued at once. Textual hands each key to the focused widget as it comes, so the
keys after the one that opens a form (or moves the focus) would be handled by the old focus,
before the form is mounted. `TypeAhead` holds them instead: a key whose binding opens something
starts a hold, the keys after it wait, and once the focus has moved they are replayed, in order,
to the new focus. When the key opened nothing after all (Enter on a table that opens nothing,
`d` with no pool selected), the hold ends as soon as the desk has handled every message the key
led to: no widget has anything left to do, so nothing is on its way.

Keys that a focused field does not type in place (Backspace, Delete, the arrows) travel: the
field passes them up through every container to the app, whose bindings act on them. Letters
and digits typed behind one would be typed first (``1e30``, four Backspaces, ``100`` gave
``1e3``). So a travelling key holds the keys behind it too, until it is back at the app.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.dom import NoScreen
from textual.timer import Timer
from textual.widget import Widget

OPENERS = frozenset(
    {
        "accept",
        "approve_deposit",
        "cancel_rfq",
        "command_palette",
        "create_pool",
        "deposit",
        "focus_inbox",
        "focus_next",
        "focus_previous",
        "help",
        "kill_switch",
        "new_rfq",
        "next_action",
        "select",
        "select_cursor",
        "show_tab",
        "show_tracker",
        "view_record",
        "view_row",
        "withdraw",
    }
)
"""Actions that open a form or a dialog, or move the focus: the keys after them wait for it."""

HOLD_AT_MOST_S = 1.0
"""The longest the keys wait, whatever happens (a safety net: the focus or the calm ends it)."""

CALM_CHECK_S = 0.01
"""How often a hold looks whether the desk has handled all the key led to."""


def action_name(action: str) -> str:
    """``app.show_tab('pools')`` -> ``show_tab``: the action without namespace and arguments."""
    return action.partition("(")[0].rpartition(".")[2]


def key_binding(app: App[Any], key: events.Key) -> Binding | None:
    """The binding the key will run where the focus is, or None (typed into a field, unbound)."""
    focused = app.focused
    if focused is not None and focused.check_consume_key(key.key, key.character):
        return None
    screen = app.screen
    for priority, chain in (
        (True, list(reversed(screen._binding_chain))),
        (False, screen._modal_binding_chain),
    ):
        for _namespace, bindings in chain:
            for binding in bindings.key_to_bindings.get(key.key, ()):
                if binding.priority == priority:
                    return binding
    return None


class TypeAhead:
    """Holds the keys typed behind a key that opens something (see module docs)."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.waiting: deque[events.Key] = deque()
        self.holding = False
        self.replay_pending = False
        self._focus_at_hold: Widget | None = None
        self._timer: Timer | None = None
        self._calm_check: Timer | None = None
        self._calm_seen = 0
        self._travelling: events.Key | None = None

    @property
    def busy(self) -> bool:
        """Keys typed now wait: a hold is on, or the keys that waited are not replayed yet."""
        return self.holding or self.replay_pending

    def opens_something(self, key: events.Key) -> bool:
        """Whether the key runs an action that opens a form or moves the focus."""
        binding = key_binding(self.app, key)
        return binding is not None and action_name(binding.action) in OPENERS

    def travels(self, key: events.Key) -> bool:
        """Whether the key goes up from the focus to the bindings, not typed where it lands."""
        focused = self.app.focused
        if focused is not None and focused.check_consume_key(key.key, key.character):
            return False
        binding = key_binding(self.app, key)
        return binding is None or not binding.priority  # a priority binding runs in the app

    def hold_until_back(self, key: events.Key) -> None:
        """Keys from now on wait until ``key`` is back at the app (`came_back`), or until the
        desk is calm (a widget on the way kept it)."""
        self.hold()
        self._travelling = key

    def came_back(self, key: events.Key) -> None:
        """A key reached the app from the focus, its bindings done: if it was held for, release."""
        if self.holding and key is self._travelling:
            self.release()

    def hold(self) -> None:
        """Keys from now on wait until the focus moves (or `HOLD_AT_MOST_S` passes)."""
        self.holding = True
        self._travelling = None
        self._focus_at_hold = self.app.focused
        self._stop_timers()
        self._calm_seen = 0
        self._timer = self.app.set_timer(HOLD_AT_MOST_S, self.release, name="type-ahead")
        self._calm_check = self.app.set_interval(CALM_CHECK_S, self._check_calm, name="calm")

    def keep(self, key: events.Key) -> None:
        """A key typed while holding: it waits its turn."""
        self.waiting.append(key)

    def focus_moved(self, widget: Widget) -> None:
        """The focus went somewhere: if it left where it was when the hold began, release
        (not while the screen it is on still sets its first focus: `settling_focus`)."""
        if self.holding and widget is not self._focus_at_hold and not _settling(widget):
            self.release()

    def release(self) -> None:
        """Stop holding; the keys that waited are replayed by the app (`next_key`)."""
        self._stop_timers()
        if not self.holding:
            return
        self.holding = False
        self._focus_at_hold = None
        self._travelling = None
        if self.waiting and not self.replay_pending:
            self.replay_pending = True
            self.app.post_message(Replay())

    def _stop_timers(self) -> None:
        for timer in (self._timer, self._calm_check):
            if timer is not None:
                timer.stop()
        self._timer = self._calm_check = None

    def _check_calm(self) -> None:
        """Release once every message pump of the desk was idle at two checks in a row: the
        key's action ran, and whatever it posted was handled, without moving the focus."""
        if self._busy_somewhere() or getattr(self.app.screen, "settling_focus", False):
            self._calm_seen = 0
            return
        self._calm_seen += 1
        if self._calm_seen >= 2:
            self.release()

    def _busy_somewhere(self) -> bool:
        app = self.app
        if app.message_queue_size:
            return True
        for screen in app.screen_stack:
            for node in screen.walk_children(with_self=True):
                if node.message_queue_size:
                    return True
        return False

    def next_key(self) -> events.Key | None:
        """The next key that waited, while no new hold stops the replay (None: replay done)."""
        if self.holding or not self.waiting:
            self.replay_pending = False
            return None
        return self.waiting.popleft()


def _settling(widget: Widget) -> bool:
    """Whether ``widget``'s screen is still setting its first focus: a form that focuses its
    first field a refresh after it is mounted says so with ``settling_focus = True`` until it
    has (the keys typed behind its opener wait for that field, not for whatever the screen
    focused first)."""
    try:
        return bool(getattr(widget.screen, "settling_focus", False))
    except NoScreen:  # a widget already gone
        return False


class Replay(events.Event):
    """Time to replay the keys that waited (posted to the app, handled in its message loop)."""
