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
        "{tracker.reject} / {tracker.approve_deposit}.\nWhile one waits (the banner by the "
        "header says which, with its countdown) {desk.next_action} works from any field too",
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

PANES: tuple[tuple[str, str], ...] = (
    (
        "RFQ inbox",
        "{table.up} {table.down} pick an RFQ · enter its ticket or its quotes · "
        "{inbox.open_only} open RFQs only",
    ),
    (
        "Quote ticket",
        "bid/ask per leg · {ticket.send} send · {ticket.replace} replace · {ticket.pull} pull · "
        "{ticket.back} back",
    ),
    (
        "Quotes on my RFQ",
        "{table.up} {table.down} a quote · {board.buy} buy at its ask · {board.sell} sell at its "
        "bid · {board.cancel_rfq} cancel · {board.back} back\n"
        "★ marks the best bid and the best ask; {board.buy} / {board.sell} are off while a trade "
        "of yours on the RFQ clears. On {confirm.yes} the quote is checked again: if it was "
        "replaced, pulled or expired nothing is sent and the dialog says so",
    ),
    (
        "Trades in clearing",
        "{tracker.accept} accept last look · {tracker.reject} reject last look · "
        "{tracker.approve_deposit} approve deposit · {tracker.back} back",
    ),
    (
        "Other tabs",
        "Pools: {pools.deposit} deposit · {pools.withdraw} withdraw · {pools.create} create pool "
        "· all: esc back to Trade\n"
        "Trades: {blotter.search} search (the notional line then totals the legs shown)\n"
        "Market: enter = the listing's detail (mark over the session, quotes by size)\n"
        "Positions: enter or {positions.expand} per pool · {positions.offset} the RFQ that "
        "closes the line\n"
        "History: {history.kind} records · {history.outcome} outcome · {history.search} search "
        "· {history.scorecards} scorecards (fastest first)",
    ),
    (
        "Structure builder",
        "{builder.add_leg} add leg · {builder.remove_leg} remove leg · {builder.send} send · "
        "{builder.hedge} delta-hedge leg (perpetual)\n"
        "{builder.list_previous} {builder.list_next} in expiry and strike: step through the "
        "venue's expiries and the strike grid\n"
        "{builder.save_template} save template · {builder.open_template} open template · "
        "{builder.repeat_last} repeat last RFQ · {builder.afresh} start afresh (esc keeps the "
        "draft)",
    ),
)
"""Each pane and its keys, with ``{binding.id}`` placeholders for the keys."""

WORKFLOWS: tuple[tuple[str, str], ...] = (
    (
        "Taker",
        "{desk.new_rfq} → legs, qty, expiry, the makers to ask (market makers are ticked; space "
        "toggles) → {builder.send}. The builder waits for the venue: a refusal shows under its "
        "field. Your RFQ is selected and its quotes fill the board: enter, then {board.buy} / "
        "{board.sell} → the confirmation (side, price, notional, premium, pool) → {confirm.yes}. "
        "If the tracker says APPROVE DEPOSIT: {desk.next_action}, {tracker.approve_deposit} → "
        "amount → {permit.sign}. The maker's last look follows → booked.",
    ),
    (
        "Maker",
        "an RFQ rings in → {table.up} {table.down} to it → enter → adjust bid/ask → "
        "{ticket.send}. When the taker accepts, the tracker shows YOUR LAST LOOK with a "
        "countdown: {desk.next_action}, then {tracker.accept} (accept) or {tracker.reject} "
        "(reject); if it then says APPROVE DEPOSIT: {tracker.approve_deposit} → {permit.sign} → "
        "booked.",
    ),
)
"""The two trade workflows step by step, with ``{binding.id}`` placeholders for the keys."""

NOTES = (
    "Notional is gross, per underlying: Σ |leg qty x leg price|. Premium is on option legs "
    "only: Σ leg qty x leg price, + for a leg you buy, - for one you sell (positive: you pay); "
    "a perpetual, a future or spot carries none.\n"
    "A quote or an accept past the guardrails (bps from fair value, the venue's structure "
    "price; notional: config.toml's [b]\\[guardrails][/b]) is asked a second time, saying why; "
    "{confirm.no} sends nothing, and {confirm.send_anyway} looks at the quote again first. A "
    "pool deposit above max_deposit is refused before its permit is signed.\n"
    "Stale data is marked in the status bar; the desk keeps polling within the request budget "
    "and always leaves {reserve} of the {budget} tokens free for your own actions.\n"
    "Keys are yours to change: a [b]\\[keymap][/b] table in config.toml (`rfq-desk config`)."
)
"""What the figures mean and what the desk does on its own (the premium as
`tui.desk.clearing.option_premium` computes it; ``{reserve}`` and ``{budget}`` are
`budget_words`')."""


def budget_words(text: str) -> str:
    """``text`` with the request budget's figures: the tokens of a window and what polling
    leaves free (`tui.api.budget.DESK_RESERVE_TOKENS`), never repeated here."""
    from tui.api.budget import DESK_RESERVE_TOKENS
    from tui.api.endpoints import BUDGET_TOKENS

    return text.replace("{reserve}", str(DESK_RESERVE_TOKENS)).replace(
        "{budget}", str(BUDGET_TOKENS)
    )


PANE_INDENT = 20
"""Where a pane's keys start: after its name."""
WORKFLOW_INDENT = 9
"""Where a workflow's steps start: after its name."""
UNBOUNDED = 10_000
"""The width when none is known yet: no line is wrapped."""

_PLACEHOLDER = re.compile(r"\{([a-z_]+\.[a-z_]+)\}")
_TAG = re.compile(r"(?<!\\)\[[^\[\]]*\]")


def fill_keys(text: str, keymap: DeskKeymap) -> str:
    """``text`` with every ``{binding.id}`` replaced by that binding's keys now."""
    return _PLACEHOLDER.sub(lambda found: escape(keymap.display(found[1])), text)


def cells(markup: str) -> int:
    """How many cells ``markup`` takes on screen (its tags and escapes take none)."""
    return len(_TAG.sub("", markup).replace("\\[", "["))


def hanging(head: str, text: str, indent: int, width: int) -> list[str]:
    """``text`` after ``head`` (markup, padded to ``indent`` cells), wrapped at ``width``: each
    ``\\n`` starts a line, and every line after the first starts under the text, at
    ``indent``, never at column 0. A key and what it does (the items between `` · ``) stay on
    one line when they fit one."""
    room = max(20, width - indent)
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line, used = "", 0
        for item in paragraph.split(" · "):
            units = [item] if cells(item) <= room else item.split(" ")
            glue = " · "
            for unit in units:
                size = cells(unit)
                joint = len(glue) if line else 0
                if line and used + joint + size > room:
                    lines.append(line)
                    line, used, joint = "", 0, 0
                line, used = f"{line}{glue if line else ''}{unit}", used + joint + size
                glue = " "
        lines.append(line)
    lead = head + " " * max(1 if head else 0, indent - cells(head))
    return [lead + lines[0], *(" " * indent + line for line in lines[1:])]


def help_text(keymap: DeskKeymap, width: int = UNBOUNDED) -> str:
    """The whole help, as markup, with the keys of ``keymap``, laid out ``width`` cells wide
    (a wrapped line starts under its description)."""
    rows = [(fill_keys(keys, keymap), fill_keys(what, keymap)) for keys, what in EVERYWHERE]
    keys_width = max(12, *(cells(keys) for keys, _ in rows)) + 1
    lines = ["[b]RFQ Desk — keys[/b]   (the footer always shows the keys of where you are)", ""]
    lines.append("[b]Everywhere[/b]")
    for keys, what in rows:
        lines.extend(hanging("  " + keys, what, keys_width + 2, width))
    lines.append("")
    for pane, what in PANES:
        lines.extend(hanging(f"[b]{pane}[/b]", fill_keys(what, keymap), PANE_INDENT, width))
    lines.append("")
    for role, steps in WORKFLOWS:
        lines.extend(hanging(f"[b]{role}[/b]", fill_keys(steps, keymap), WORKFLOW_INDENT, width))
        lines.append("")
    lines.extend(hanging("", fill_keys(budget_words(NOTES), keymap), 0, width))
    lines.append("")
    lines.append(
        fill_keys("[$text-muted]{help.close} or {help.close_alt} closes this help[/]", keymap)
    )
    return "\n".join(lines)


class HelpText(Static):
    """The help, laid out again whenever its width changes (a wrapped line stays indented)."""

    def __init__(self, keymap: DeskKeymap, *, id: str | None = None) -> None:
        super().__init__(help_text(keymap), id=id)
        self._keymap = keymap
        self._width = 0

    def on_resize(self) -> None:
        """Lay the help out for the width it now has."""
        width = self.content_region.width
        if width > 0 and width != self._width:
            self._width = width
            self.update(help_text(self._keymap, width))


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
            yield HelpText(self._keymap, id="help-text")
        yield Footer()

    async def action_dismiss(self, result: None = None) -> None:
        """Close the help."""
        self.dismiss(result)
