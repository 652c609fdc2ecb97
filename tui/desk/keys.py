"""The desk's keys in one table: the app's bindings, the palette's commands, each tab's focus.

Every desk action is an ``action_*`` of the app, reachable from a key and from the command
palette alike; the palette names it here by its action name (and argument).
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

DESK_BINDINGS: list[BindingType] = [
    Binding("ctrl+k", "kill_switch", "KILL SWITCH", priority=True),
    Binding("n", "new_rfq", "New RFQ"),
    Binding("g", "next_action", "Next action"),
    Binding("ctrl+g", "next_action", "Next action", show=False, priority=True),
    Binding("ctrl+n", "new_rfq", "New RFQ", show=False, priority=True),
    Binding("t", "show_tracker", "Tracker"),
    Binding("e", "export", "Export CSV"),
    Binding("f5", "refresh", "Refresh"),
    Binding("question_mark,f1", "help", "Help"),
    Binding("1", "show_tab('trade')", "Trade", show=False),
    Binding("2", "show_tab('pools')", "Pools", show=False),
    Binding("3", "show_tab('blotter')", "Trades", show=False),
    Binding("4", "show_tab('market')", "Market", show=False),
    Binding("ctrl+q", "quit", "Quit", priority=True),
]
"""The keys that work on every tab (a modal holds them while it is open)."""

TABS: tuple[tuple[str, str], ...] = (
    ("trade", "Trade"),
    ("pools", "Pools"),
    ("blotter", "Trades"),
    ("market", "Market"),
)
"""Each tab's id and title."""

TAB_FOCUS: dict[str, str] = {
    "trade": "#inbox-table",
    "pools": "#pools-table",
    "blotter": "#blotter-table",
    "market": "#market-table",
}
"""The widget that takes the focus when a tab opens."""

PALETTE: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("New RFQ", "Open the structure builder", "new_rfq", ()),
    ("Kill switch", "Cancel all quotes and open RFQs (asks first)", "kill_switch", ()),
    ("Export CSV", "Trades and transfers of the view", "export", ()),
    ("Next action", "Go to the trade waiting for you", "next_action", ()),
    ("Trades in clearing", "Show the clearing tracker", "show_tracker", ()),
    ("Refresh all", "Poll everything now", "refresh", ()),
    ("Create pool", "Open a settlement pool", "create_pool", ()),
    *(
        (f"Show {title} tab", f"Switch to the {title} tab", "show_tab", (tab,))
        for tab, title in TABS
    ),
    ("Desk help", "Keys and workflows", "help", ()),
)
"""The command palette's desk commands, in order: title, help, action name, its arguments."""
