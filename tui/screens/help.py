"""The help screen: every key of the desk, by pane, and the two trade workflows step by step."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP_TEXT = """\
[b]RFQ Desk — keys[/b]

[b]Everywhere[/b]
  1 2 3 4      Trade · Pools · Trades (blotter) · Market tabs
  n            new RFQ (structure builder)
  g            go to the next trade waiting for you (last look, deposit)
  ctrl+k       KILL SWITCH: cancel all my quotes and all my open RFQs (one confirmation)
  e            export trades and transfers of the view as CSV
  f5           refresh everything now
  ctrl+p       command palette (themes, every action)
  tab          next pane · ? or f1 this help · ctrl+q quit

[b]RFQ inbox[/b]       ↑↓ pick an RFQ · enter its ticket or its quotes · o open RFQs only
[b]Quote ticket[/b]    type bid/ask per leg · ctrl+s send · ctrl+r replace · ctrl+w pull quote
[b]Quotes on my RFQ[/b] ↑↓ pick a quote · b buy at its ask · s sell at its bid · x cancel the RFQ
[b]Trades in clearing[/b] a accept last look · r reject last look · p approve deposit (sign permit)
[b]Pools[/b]           d deposit · w withdraw · c create pool

[b]Taker[/b]  n → build legs, qty, expiry, pick makers → ctrl+s. Quotes fill the board;
         b / s → confirm side, price, qty, notional, pool → y. If the tracker says
         APPROVE DEPOSIT, p → amount → sign. The maker's last look follows → booked.

[b]Maker[/b]  an RFQ rings in → enter → adjust bid/ask → ctrl+s. When the taker accepts, the
         tracker shows YOUR LAST LOOK with a countdown → a (accept) or r (reject);
         if it then says APPROVE DEPOSIT, p → sign → booked.

Stale data is marked in the status bar; the desk keeps polling within the request budget and
always leaves 40 of the 100 tokens free for your own actions.

[$text-muted]escape or q closes this help[/]
"""


class HelpScreen(ModalScreen[None]):
    """Keys and workflows."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("q", "dismiss", "Close", show=False),
        Binding("question_mark", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        """The help text, scrollable."""
        with VerticalScroll(classes="modal-box wide", id="help-box"):
            yield Static(HELP_TEXT)

    async def action_dismiss(self, result: None = None) -> None:
        """Close the help."""
        self.dismiss(result)
