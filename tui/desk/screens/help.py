"""The help screen: every key of the desk, by pane, and the two trade workflows step by step.

The keys are not written here: each ``{binding.id}`` in the text is filled with the keys that
binding has now (`DeskKeymap.display`), so a key rebound in config.toml reads right in the help.
"""

from __future__ import annotations

import re

from rich.markup import escape
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from tui.desk.keymap import DeskKeymap

EVERYWHERE: tuple[tuple[str, str], ...] = (
    (
        "{desk.tab_trade} {desk.tab_pools} {desk.tab_trades} {desk.tab_market} "
        "{desk.tab_positions} {desk.tab_history}",
        "Trade · Pools · Trades (blotter) · Market · Positions · History tabs",
    ),
    ("{desk.new_rfq}", "new RFQ (structure builder)"),
    (
        "{desk.next_action}",
        "go to the next trade waiting for you (last look, deposit): then {tracker.accept} / "
        "{tracker.reject} / {tracker.approve_deposit}.\nWhile one waits (top right, with its "
        "countdown) {desk.next_action} works from any field too",
    ),
    (
        "{desk.tracker}",
        "the trades in clearing (on a narrow terminal they take turns with the ticket)",
    ),
    ("{table.view}", "the row under the cursor in full (text too long for its column ends in …)"),
    (
        "{desk.kill_switch}",
        "KILL SWITCH: cancel all my quotes and all my open RFQs (one confirmation)",
    ),
    ("{desk.export}", "export trades and transfers of the view as CSV"),
    ("{desk.journal}", "the journal: every action sent and what came of it, newest first"),
    ("{desk.refresh}", "refresh everything now"),
    ("ctrl+p", "command palette (themes, every action)"),
    ("tab", "next pane (shift+tab back) · esc back to the inbox · {desk.help} this help"),
    ("{desk.quit}", "quit"),
)
"""The keys of every tab: the keys (``{binding.id}`` placeholders) and what they do."""

PANES = """\
[b]RFQ inbox[/b]           {table.up} {table.down} pick an RFQ · enter its ticket or its quotes · \
{inbox.open_only} open RFQs only
[b]Quote ticket[/b]        bid/ask per leg · {ticket.send} send · {ticket.replace} replace · \
{ticket.pull} pull · {ticket.back} back
[b]Quotes on my RFQ[/b]    {table.up} {table.down} a quote · {board.buy} buy at its ask · \
{board.sell} sell at its bid · {board.cancel_rfq} cancel · {board.back} back
                    ★ marks the best bid and the best ask; {board.buy} / {board.sell} are off \
while a trade of
                    yours on the RFQ clears. On {confirm.yes} the quote is checked again: if it \
was
                    replaced, pulled or expired nothing is sent and the dialog says so
[b]Trades in clearing[/b]  {tracker.accept} accept last look · {tracker.reject} reject last look \
· {tracker.approve_deposit} approve deposit · {tracker.back} back
[b]Other tabs[/b]          Pools: {pools.deposit} deposit · {pools.withdraw} withdraw · \
{pools.create} create pool · all: esc back to Trade
                    Market: enter = the listing's detail (mark over the session, quotes by \
size)
                    Positions: enter or {positions.expand} per pool · {positions.offset} the \
RFQ that closes the line
                    History: {history.kind} records · {history.outcome} outcome · \
{history.search} search · {history.scorecards} scorecards (fastest first)
[b]Structure builder[/b]   {builder.add_leg} add leg · {builder.remove_leg} remove leg · \
{builder.send} send · {builder.hedge} delta-hedge leg (perpetual)
                    {builder.list_previous} {builder.list_next} in expiry and strike: step \
through the venue's expiries and the strike grid
                    {builder.save_template} save template · {builder.open_template} open \
template · {builder.repeat_last} repeat last RFQ

[b]Taker[/b]  {desk.new_rfq} → legs, qty, expiry, the makers to ask (market makers are ticked; \
space toggles)
         → {builder.send}. The builder waits for the venue: a refusal shows under its field.
         Your RFQ is selected and its quotes fill the board: enter, then {board.buy} / \
{board.sell} → the
         confirmation (side, price, notional, premium, pool) → {confirm.yes}. If the tracker \
says
         APPROVE DEPOSIT: {desk.next_action}, {tracker.approve_deposit} → amount → \
{permit.sign}. The maker's last look follows → booked.

[b]Maker[/b]  an RFQ rings in → {table.up} {table.down} to it → enter → adjust bid/ask → \
{ticket.send}. When the taker
         accepts, the tracker shows YOUR LAST LOOK with a countdown: {desk.next_action}, then \
{tracker.accept} (accept) or
         {tracker.reject} (reject); if it then says APPROVE DEPOSIT: {tracker.approve_deposit} \
→ {permit.sign} → booked.

Notional is gross: Σ |leg qty x leg price|. Premium is the structure price x qty.
A quote or an accept past the guardrails (bps from fair value, notional: config.toml's
[b]\\[guardrails][/b]) is asked a second time, saying why; {confirm.no} sends nothing.
Stale data is marked in the status bar; the desk keeps polling within the request budget and
always leaves 40 of the 100 tokens free for your own actions.
Keys are yours to change: a [b]\\[keymap][/b] table in config.toml (`rfq-desk config`).

[$text-muted]{help.close} or {help.close_alt} closes this help[/]
"""
"""Each pane's keys and the workflows, with ``{binding.id}`` placeholders for the keys."""

_PLACEHOLDER = re.compile(r"\{([a-z_]+\.[a-z_]+)\}")


def fill_keys(text: str, keymap: DeskKeymap) -> str:
    """``text`` with every ``{binding.id}`` replaced by that binding's keys now."""
    return _PLACEHOLDER.sub(lambda found: escape(keymap.display(found[1])), text)


def help_text(keymap: DeskKeymap) -> str:
    """The whole help, as markup, with the keys of ``keymap``."""
    rows = [(fill_keys(keys, keymap), fill_keys(what, keymap)) for keys, what in EVERYWHERE]
    width = max(12, *(len(keys) for keys, _ in rows)) + 1
    lines = ["[b]RFQ Desk — keys[/b]   (the footer always shows the keys of where you are)", ""]
    lines.append("[b]Everywhere[/b]")
    for keys, what in rows:
        first, *more = what.split("\n")
        lines.append(f"  {keys:<{width}}{first}")
        lines.extend(f"  {'':<{width}}{line}" for line in more)
    lines.append("")
    return "\n".join(lines) + "\n" + fill_keys(PANES, keymap)


class HelpScreen(ModalScreen[None]):
    """Keys and workflows, with the keys in force."""

    BINDINGS = [
        Binding("escape", "dismiss", "Close", id="help.close"),
        Binding("q,question_mark", "dismiss", "Close", show=False, id="help.close_alt"),
    ]

    def __init__(self, keymap: DeskKeymap | None = None) -> None:
        super().__init__()
        self._keymap = keymap or DeskKeymap()

    def compose(self) -> ComposeResult:
        """The help text, scrollable."""
        with VerticalScroll(classes="modal-box wide", id="help-box"):
            yield Static(help_text(self._keymap), id="help-text")
        yield Footer()

    async def action_dismiss(self, result: None = None) -> None:
        """Close the help."""
        self.dismiss(result)
