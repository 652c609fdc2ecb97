"""The help screen: every key of the desk, by pane, and the two trade workflows step by step."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

HELP_TEXT = """\
[b]RFQ Desk — keys[/b]   (the footer always shows the keys of where you are)

[b]Everywhere[/b]
  1 2 3 4      Trade · Pools · Trades (blotter) · Market tabs
  n            new RFQ (structure builder)
  g            go to the next trade waiting for you (last look, deposit): then a / r / p.
               While one waits (top right, with its countdown) g works from any field too
  t            the trades in clearing (on a narrow terminal they take turns with the ticket)
  v            the row under the cursor in full (text too long for its column ends in …)
  ctrl+k       KILL SWITCH: cancel all my quotes and all my open RFQs (one confirmation)
  e            export trades and transfers of the view as CSV
  f5           refresh everything now
  ctrl+p       command palette (themes, every action)
  tab          next pane (shift+tab back) · esc back to the inbox · ? or f1 this help
  ctrl+q       quit

[b]RFQ inbox[/b]           ↑↓ pick an RFQ · enter its ticket or its quotes · o open RFQs only
[b]Quote ticket[/b]        bid/ask per leg · ctrl+s send · ctrl+r replace · ctrl+w pull · esc back
[b]Quotes on my RFQ[/b]    ↑↓ a quote · b buy at its ask · s sell at its bid · x cancel · esc back
                    ★ marks the best bid and the best ask; b / s are off while a trade of
                    yours on the RFQ clears. On y the quote is checked again: if it was
                    replaced, pulled or expired nothing is sent and the dialog says so
[b]Trades in clearing[/b]  a accept last look · r reject last look · p approve deposit · esc back
[b]Other tabs[/b]          Pools: d deposit · w withdraw · c create pool · all: esc back to Trade

[b]Taker[/b]  n → legs, qty, expiry, the makers to ask (market makers are ticked; space toggles)
         → ctrl+s. The builder waits for the venue: a refusal shows under its field.
         Your RFQ is selected and its quotes fill the board: enter, then b / s → the
         confirmation (side, price, notional, premium, pool) → y. If the tracker says
         APPROVE DEPOSIT: g, p → amount → ctrl+s. The maker's last look follows → booked.

[b]Maker[/b]  an RFQ rings in → ↑↓ to it → enter → adjust bid/ask → ctrl+s. When the taker
         accepts, the tracker shows YOUR LAST LOOK with a countdown: g, then a (accept) or
         r (reject); if it then says APPROVE DEPOSIT: p → ctrl+s → booked.

Notional is gross: Σ |leg qty x leg price|. Premium is the structure price x qty.
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
        yield Footer()

    async def action_dismiss(self, result: None = None) -> None:
        """Close the help."""
        self.dismiss(result)
