"""The trade lifecycle tracker: every accepted quote as a stepper along the clearing path.

Each trade shows who I am in it (maker or taker), the terms, each step reached with its time,
and the final state in words. A trade waiting for *me* is marked and says what to do: the
maker's last look (with a countdown to the quote's expiry) or a deposit approval. ``a``/``r``
answer a last look, ``p`` approves a deposit (permit); the maker and pools roles send.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.css.styles import RulesMap
from textual.markup import escape
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected
from tui.api.models import RequestAction
from tui.desk.book import DeskBook
from tui.desk.clearing import NextStep, Role, TrackedTrade
from tui.desk.messages import ActionKind, ActionOutcome, ActionRequest
from tui.desk.roles.accept_terms import trade_premium_words
from tui.desk.roles.refusals import outcome_words
from tui.desk.widgets.common import fmt

MAX_TRACKED = 200
"""Most recent accepted quotes kept in the tracker (older ones are in the blotter)."""

_STATE_MARK = {"done": "✓", "current": "▶", "ahead": "·", "failed": "✗"}
_STATE_TONE = {
    "done": "$booked",
    "current": "$needs-action",
    "ahead": "$pending",
    "failed": "$rejected",
}


STEP_WIDTH = 11
"""Columns per step of the path, so names and times line up under each other."""

_SHORT_NAMES = {"taker deposit": "tkr dep", "maker deposit": "mkr dep"}


def render_trade(trade: TrackedTrade, book: DeskBook, now: datetime) -> str:
    """The tracker's markup for one trade (a `TradeCard`): terms, the path (names over times),
    next step."""
    side = str(trade.side).upper() if trade.side else "?"
    side_tone = "$bid" if trade.side == "buy" else "$ask"
    structure = (
        fmt.structure_text(trade.rfq.structure)
        if trade.rfq
        else "RFQ " + fmt.short_id(trade.quote.target_rfq_id)
    )
    role = "MAKER" if trade.role is Role.MAKER else "TAKER"
    icon = "[$needs-action]●[/]" if trade.next_step is not NextStep.NONE else " "
    terms = (
        f"{icon} [b]{role}[/b] [{side_tone}]{side}[/] {escape(structure)} x{fmt.qty(trade.qty)}"
        f" @ {fmt.exact(trade.price)} vs {escape(book.company_name(trade.counterparty))}"
    )
    # Each step is a column: name on one line, the time it was reached under it.
    columns = [("$booked", "✓", "accepted", fmt.clock_time(trade.accepted_at))]
    for step in trade.steps:
        name = _SHORT_NAMES.get(step.name, step.name)
        when = fmt.clock_time(step.at) if step.at else ""
        columns.append((_STATE_TONE[step.state], _STATE_MARK[step.state], name, when))
    steps = []
    for tone, mark, name, when in columns:
        width = max(STEP_WIDTH - 2, len(name) + 1)
        steps.append(
            (
                width + 2,
                f"[{tone}]{mark} {escape(name):<{width}}[/]",
                f"  [$text-muted]{when:<{width}}[/]",
            )
        )
    notionals = trade.notionals
    notional = (
        " · ".join(f"{name} {fmt.usdc(value)}" for name, value in notionals.items())
        if notionals
        else fmt.DASH
    )
    premium = trade.premium  # only options carry one
    words = trade_premium_words(premium, str(trade.status))
    paid = f" · {words}" if words else ""
    details = (
        f"notional {notional} USDC{paid}"
        f" · quote {fmt.short_id(trade.key)} · RFQ {fmt.short_id(trade.quote.target_rfq_id)}"
    )
    if trade.next_step is NextStep.LAST_LOOK:
        left = fmt.countdown(trade.deadline, now)
        urgent = trade.deadline is not None and trade.deadline - now < timedelta(seconds=10)
        tone = "$error" if urgent else "$needs-action"
        todo = f"[b {tone}]YOUR LAST LOOK, {left} left[/]  a accept · r reject"
    elif trade.next_step is NextStep.APPROVE_DEPOSIT:
        hint = book.deposit_hint(trade)
        amount = f" {fmt.usdc(hint.amount)} USDC" if hint.amount is not None else ""
        todo = f"[b $needs-action]APPROVE DEPOSIT{amount}[/]  p sign permit"
    elif clearing_is_booked(trade.status):
        todo = "[$booked]booked into the pool[/]"
    elif clearing_is_rejected(trade.status):
        todo = f"[$rejected]{escape(fmt.status_words(trade.status))}[/]"
    else:
        todo = f"[$text-muted]{escape(fmt.status_words(trade.status))}[/]"
    return TradeCard(terms, tuple(steps), f"  {todo}", f"  [$text-muted]{details}[/]")


class TradeCard(str):
    """One trade's markup (what it says, compared to know whether it must be redrawn) that
    lays its clearing path out by the width it is drawn at: the steps go on as many rows as
    they need, each step's time always under its name (a path wrapped by the terminal put the
    times of the last steps under the wrong names)."""

    terms: str
    steps: tuple[tuple[int, str, str], ...]
    tail: tuple[str, ...]

    def __new__(cls, terms: str, steps: tuple[tuple[int, str, str], ...], *tail: str) -> TradeCard:
        card = super().__new__(cls, "\n".join(_card_lines(terms, steps, tail, width=None)))
        card.terms, card.steps, card.tail = terms, steps, tail
        return card

    def visualize(self) -> Visual:
        """What the option list draws: the card laid out at the width it is given."""
        return _CardVisual(self)


def _card_lines(
    terms: str, steps: tuple[tuple[int, str, str], ...], tail: tuple[str, ...], width: int | None
) -> list[str]:
    """The card's lines, its path cut into rows of steps no wider than ``width`` (one row when
    no width is given)."""
    lines = [terms]
    row: list[tuple[int, str, str]] = []
    for step in steps:
        if row and width is not None and sum(s[0] for s in row) + step[0] > width:
            lines += ["".join(s[1] for s in row), "".join(s[2] for s in row)]
            row = []
        row.append(step)
    if row:
        lines += ["".join(s[1] for s in row), "".join(s[2] for s in row)]
    return [*lines, *(row for line in tail for row in _flowed(line, width))]


def _flowed(line: str, width: int | None) -> list[str]:
    """A ``  [$text-muted]a · b · c[/]`` line cut between its items to fit ``width``, each
    row indented like the first (a line wrapped by the terminal went back to column 0)."""
    muted = "  [$text-muted]"
    if width is None or not line.startswith(muted) or len(line) - len(muted) - 1 <= width:
        return [line]
    rows, row = [], ""
    for item in line[len(muted) : -len("[/]")].split(" · "):
        if row and 2 + len(row) + 3 + len(item) > width:
            rows.append(row)
            row = ""
        row = f"{row} · {item}" if row else item
    return [f"{muted}{text}[/]" for text in [*rows, row]]


class _CardVisual(Visual):
    """A `TradeCard` drawn at a given width (the option list asks again after a resize)."""

    def __init__(self, card: TradeCard) -> None:
        self.card = card

    def _content(self, width: int) -> Content:
        card = self.card
        return Content.from_markup("\n".join(_card_lines(card.terms, card.steps, card.tail, width)))

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        """The card's lines at ``width``."""
        return self._content(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        """As wide as the card's widest line at the container's width."""
        return self._content(container_width).get_optimal_width(rules, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        """How many lines the card takes at ``width``."""
        return self._content(width).get_height(rules, width)


class TradeTracker(Vertical):
    """Accepted quotes and their clearing path (see module docs)."""

    BORDER_TITLE = "Trades in clearing"

    OUTCOMES = frozenset({ActionKind.LAST_LOOK, ActionKind.APPROVE_DEPOSIT})
    """The actions whose outcome the pane shows."""

    BINDINGS = [
        Binding("a", "last_look('accept')", "Last look: accept", id="tracker.accept"),
        Binding("r", "last_look('reject')", "Last look: reject", id="tracker.reject"),
        Binding("p", "approve_deposit", "Approve deposit", id="tracker.approve_deposit"),
        Binding("escape", "app.focus_inbox", "Back to inbox", id="tracker.back"),
    ]

    @dataclass
    class LastLook(ActionRequest):
        """The user answers a last look."""

        trade: TrackedTrade
        action: RequestAction

    @dataclass
    class ApproveDeposit(ActionRequest):
        """The user wants to sign the permit a trade waits for."""

        trade: TrackedTrade

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self._trades: dict[str, TrackedTrade] = {}
        self._rendered: dict[str, str] = {}
        self._order: list[str] = []
        self._waiting: set[NextStep] = set()

    def compose(self) -> ComposeResult:
        """The list of trades and a hint line."""
        yield OptionList(id="tracker-list")
        yield Static("No accepted quotes yet.", id="tracker-empty")
        yield Static("", id="tracker-error", classes="field-error")

    def on_mount(self) -> None:
        """Hide the error line (the countdowns tick with the desk's second: `tick`)."""
        self.query_one("#tracker-error").display = False

    @property
    def options(self) -> OptionList:
        """The list widget."""
        return self.query_one(OptionList)

    def refresh_trades(self) -> None:
        """Rebuild from the book: add new trades, re-render only the ones that changed."""
        tracked = self.book.tracked_trades()
        self._offer_keys({t.next_step for t in tracked} - {NextStep.NONE})
        trades = tracked[:MAX_TRACKED]
        now = self.clock()
        option_list = self.options
        order = [t.key for t in trades]
        self._trades = {t.key: t for t in trades}
        rendered = {t.key: render_trade(t, self.book, now) for t in trades}
        if order != self._order:
            highlighted = self.selected_key
            option_list.set_options(Option(rendered[key], id=key) for key in order)
            self._order = order
            if highlighted in self._trades:
                option_list.highlighted = order.index(highlighted)
            elif order:
                option_list.highlighted = 0
        else:
            for key in order:
                if self._rendered.get(key) != rendered[key]:
                    option_list.replace_option_prompt(key, rendered[key])
        self._rendered = rendered
        self.query_one("#tracker-empty").display = not order

    def tick(self) -> None:
        """Every second (`DeskPanes.tick`): the last looks' countdowns, the only part of a
        trade that moves with the clock (and only while the tracker is on screen; showing it
        redraws them)."""
        if not self.is_on_screen:
            return
        now = self.clock()
        option_list = self.options
        for key, trade in self._trades.items():
            if trade.next_step is not NextStep.LAST_LOOK:
                continue
            markup = render_trade(trade, self.book, now)
            if self._rendered.get(key) != markup:
                option_list.replace_option_prompt(key, markup)
                self._rendered[key] = markup

    def _offer_keys(self, waiting: set[NextStep]) -> None:
        """The footer offers a/r and p by what waits for me: redrawn when that changed only."""
        if waiting != self._waiting:
            self._waiting = waiting
            self.refresh_bindings()

    @property
    def selected_key(self) -> str | None:
        """Quote id of the highlighted trade."""
        option_list = self.options
        index = option_list.highlighted
        if index is None or index >= option_list.option_count:
            return None
        return option_list.get_option_at_index(index).id

    @property
    def selected(self) -> TrackedTrade | None:
        """The highlighted trade."""
        key = self.selected_key
        return self._trades.get(key) if key else None

    def select(self, quote_id: str) -> None:
        """Highlight a trade by quote id."""
        if quote_id in self._order:
            self.options.highlighted = self._order.index(quote_id)

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """Clear the error line when the action worked; else say why it did not."""
        self.show_error("" if outcome.ok else outcome_words(outcome))

    def show_error(self, message: str) -> None:
        """Show why the last request was refused (empty clears it)."""
        error = self.query_one("#tracker-error", Static)
        error.update(message)
        error.display = bool(message)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer a/r only while a last look waits for me, p only while a deposit does (a taker
        is never offered a last look)."""
        steps = {"last_look": NextStep.LAST_LOOK, "approve_deposit": NextStep.APPROVE_DEPOSIT}
        step = steps.get(action)
        if step is None:
            return True
        return any(t.next_step is step for t in self.book.needs_me())

    def _target(self, step: NextStep) -> TrackedTrade | None:
        """The highlighted trade if it waits for ``step``, else the most urgent one that does."""
        trade = self.selected
        if trade is not None and trade.next_step is step:
            return trade
        for waiting in self.book.needs_me():
            if waiting.next_step is step:
                return waiting
        return None

    def action_last_look(self, action: str) -> None:
        """Answer the last look of the highlighted (or most urgent) trade."""
        trade = self._target(NextStep.LAST_LOOK)
        if trade is None:
            self.show_error("no trade waits for your last look")
            return
        self.show_error("")
        self.post_message(self.LastLook(trade, RequestAction(action)))

    def action_approve_deposit(self) -> None:
        """Approve the deposit of the highlighted (or most urgent) trade."""
        trade = self._target(NextStep.APPROVE_DEPOSIT)
        if trade is None:
            self.show_error("no trade waits for your deposit approval")
            return
        self.show_error("")
        self.post_message(self.ApproveDeposit(trade))
