"""The desk's keys in one table: the app's bindings, the palette's commands, each tab's focus.

Every desk action is an ``action_*`` of the app, reachable from a key and from the command
palette alike; the palette names it here by its action name (and argument).
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

DESK_BINDINGS: list[BindingType] = [
    Binding("ctrl+k", "kill_switch", "KILL SWITCH", priority=True, id="desk.kill_switch"),
    Binding("n", "new_rfq", "New RFQ", id="desk.new_rfq"),
    Binding("g", "next_action", "Next action", id="desk.next_action"),
    Binding(
        "ctrl+g",
        "next_action",
        "Next action",
        show=False,
        priority=True,
        id="desk.next_action_anywhere",
    ),
    Binding("ctrl+n", "new_rfq", "New RFQ", show=False, priority=True, id="desk.new_rfq_anywhere"),
    Binding("t", "show_tracker", "Tracker", id="desk.tracker"),
    Binding("e", "export", "Export CSV", id="desk.export"),
    Binding("j", "open_journal", "Journal", show=False, id="desk.journal"),
    Binding("f5", "refresh", "Refresh", id="desk.refresh"),
    Binding("question_mark,f1", "help", "Help", id="desk.help"),
    Binding("1", "show_tab('trade')", "Trade", show=False, id="desk.tab_trade"),
    Binding("2", "show_tab('pools')", "Pools", show=False, id="desk.tab_pools"),
    Binding("3", "show_tab('blotter')", "Trades", show=False, id="desk.tab_trades"),
    Binding("4", "show_tab('market')", "Market", show=False, id="desk.tab_market"),
    Binding("5", "show_tab('positions')", "Positions", show=False, id="desk.tab_positions"),
    Binding("6", "show_tab('history')", "History", show=False, id="desk.tab_history"),
    Binding("ctrl+q", "quit", "Quit", priority=True, id="desk.quit"),
]
"""The keys that work on every tab (a modal holds them while it is open). Every binding of the
desk has an id (``scope.what``): the ``[keymap]`` table of config.toml rebinds it by that id."""

DATA_TABLE_KEYS: list[BindingType] = [
    Binding("up", "cursor_up", "Up", show=False, id="table.up"),
    Binding("down", "cursor_down", "Down", show=False, id="table.down"),
    Binding("left", "cursor_left", "Left", show=False, id="table.left"),
    Binding("right", "cursor_right", "Right", show=False, id="table.right"),
    Binding("pageup", "page_up", "Page up", show=False, id="table.page_up"),
    Binding("pagedown", "page_down", "Page down", show=False, id="table.page_down"),
]
"""A `DataTable`'s own moves under the desk's table ids (Textual gives them none), so the
keymap (and its vim set) moves the cursor of every table alike; a table spreads them into its
``BINDINGS``."""

TABS: tuple[tuple[str, str], ...] = (
    ("trade", "Trade"),
    ("pools", "Pools"),
    ("blotter", "Trades"),
    ("market", "Market"),
    ("positions", "Positions"),
    ("history", "History"),
)
"""Each tab's id and title."""

TAB_FOCUS: dict[str, str] = {
    "trade": "#inbox-table",
    "pools": "#pools-table",
    "blotter": "#blotter-table",
    "market": "#market-table",
    "positions": "#positions-table",
    "history": "#history-table",
}
"""The widget that takes the focus when a tab opens."""

PALETTE: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("New RFQ", "Open the structure builder", "new_rfq", ()),
    ("Kill switch", "Cancel all quotes and open RFQs (asks first)", "kill_switch", ()),
    ("Export CSV", "Trades and transfers of the view", "export", ()),
    ("Journal", "Every action sent and what came of it", "open_journal", ()),
    ("Next action", "Go to the trade waiting for you", "next_action", ()),
    ("Trades in clearing", "Show the clearing tracker", "show_tracker", ()),
    ("Refresh all", "Poll everything now", "refresh", ()),
    ("Create pool", "Open a settlement pool", "create_pool", ()),
    *(
        (f"Show {title} tab", f"Switch to the {title} tab", "show_tab", (tab,))
        for tab, title in TABS
    ),
    ("Add a venue profile", "Base URLs, key and secret, checked by the venue", "add_profile", ()),
    ("Desk help", "Keys and workflows", "help", ()),
)
"""The command palette's desk commands, in order: title, help, action name, its arguments."""
