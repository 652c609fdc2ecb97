"""The quote board: the quotes that came back on one of my RFQs, best first, ready to trade.

``b`` buys at the selected quote's ask (lift), ``s`` sells at its bid (hit), ``x`` cancels the
RFQ, ``escape`` goes back to the inbox. The board asks; the taker role confirms (the exact
quote: maker, price, age; side, qty, notional, pool) and sends, and a refusal comes back to the
board's error line. The best bid and the best ask are marked (★), wherever they sit: the rows
are sorted tightest ask first, so the best bid may be lower down. The cursor stays on its
quote when the rows re-sort, and onto its maker's requote when the quote is replaced; when it
goes with no requote, ``b`` and ``s`` trade nothing until the trader looks (`BoardTable`).
While another of my trades on the RFQ is clearing, ``b`` and ``s`` are not offered (the venue
would refuse): the hint line says why.

Which quotes are listed, and in what order, is `tui.desk.widgets.board_quotes`'. Each quote
is judged against fair, the RFQ's structure price (`quote_figures`): its edge on each side in
bps and in price (positive: what the maker earns against fair, so what the taker pays), and
for an option structure its implied vol on each side, to read against the mark vol in the
head.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from tui.api.lifecycle import clearing_is_booked, clearing_is_rejected
from tui.api.models import RFQStatus, TradeSide
from tui.desk.best_price import best_prices
from tui.desk.book import DeskBook
from tui.desk.messages import ActionKind, ActionOutcome, ActionRequest
from tui.desk.roles.accept_terms import my_trade_clearing
from tui.desk.roles.refusals import outcome_words
from tui.desk.widgets.board_quotes import BoardQuote, board_quotes
from tui.desk.widgets.board_table import BoardTable
from tui.desk.widgets.common import fmt
from tui.desk.widgets.common.keyed_table import Column, SortText
from tui.desk.widgets.common.lines import whole_figures
from tui.desk.widgets.common.palette import right, toned
from tui.desk.widgets.live_text import LiveText
from tui.desk.widgets.quote_figures import (
    Pricing,
    PricingMemo,
    edge_bps_text,
    edge_price_text,
    listing_marks,
    vol_text,
)

if TYPE_CHECKING:
    from tui.api.models import RFQ

COLUMNS = (
    Column("maker", "Maker", 6),
    Column("bid", "Bid", 11, numeric=True),
    Column("ask", "Ask", 11, numeric=True),
    Column("iv_bid", "IV bid", 7, numeric=True, drop=2),
    Column("iv_ask", "IV ask", 7, numeric=True, drop=2),
    Column("bid_bps", "Bid edge", 8, numeric=True, drop=3),
    Column("ask_bps", "Ask edge", 8, numeric=True, drop=3),
    Column("expires", "Expiry", 6, numeric=True, drop=4),
    Column("pool", "Pool", 9, flex=True, least=6, drop=5),
    Column("bid_edge", "Bid edge px", 11, numeric=True, drop=6),
    Column("ask_edge", "Ask edge px", 11, numeric=True, drop=6),
)
"""The quotes' columns. A narrow board leaves out, first, the edges in price, the pool, the
expiry, the edges in bps, and last the implied vols (an option trader reads vol first); ``v``
shows them all. The IV columns are not shown for a structure without options."""
IV_COLUMNS = frozenset({"iv_bid", "iv_ask"})

BEST = "★"
"""Marks the best bid and the best ask on the board."""

HINT = (
    "★ best · edge vs fair, + to the maker · b buy at ask · s sell at bid · x cancel RFQ"
    " · v row · esc back"
)


class QuoteBoard(Vertical):
    """Quotes received on the selected sent RFQ (see module docs)."""

    BORDER_TITLE = "Quotes on my RFQ"

    OUTCOMES = frozenset({ActionKind.ACCEPT_QUOTE, ActionKind.CANCEL_RFQ})
    """The actions whose outcome the pane shows."""

    BINDINGS = [
        Binding("b", "accept('buy')", "Buy at ask", id="board.buy"),
        Binding("s", "accept('sell')", "Sell at bid", id="board.sell"),
        Binding("x", "cancel_rfq", "Cancel RFQ", id="board.cancel_rfq"),
        Binding("escape", "app.focus_inbox", "Back to inbox", id="board.back"),
    ]

    @dataclass
    class Accept(ActionRequest):
        """The user wants to trade a quote: buy at its ask or sell at its bid."""

        rfq_id: str
        quote_id: str
        side: TradeSide
        price: Decimal

    @dataclass
    class CancelRfq(ActionRequest):
        """The user wants to cancel their RFQ."""

        rfq_id: str

    def __init__(
        self, book: DeskBook, clock: Callable[[], datetime], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.book = book
        self.clock = clock
        self.rfq: RFQ | None = None
        self._quotes: dict[str, BoardQuote] = {}
        self._shown_for: str | None = None
        self._trade_off: str | None = None
        self._error_for: str | None = None
        """The RFQ the error line is about: it shows only while that RFQ is on the board."""
        self._pricing = PricingMemo()
        self._line_parts = [""]
        """The one-line head's parts (`whole_figures`), kept for a new width."""

    def compose(self) -> ComposeResult:
        """Header (three lines, or one on a short terminal), quotes table, hint, error line."""
        yield LiveText("", id="board-head", fixed_size=True)
        yield LiveText("", id="board-line", fixed_size=True)
        yield BoardTable(
            COLUMNS,
            id="board-table",
            zebra_stripes=False,
            sort_column="maker",
            newest_first=False,
        )
        yield LiveText(f"[$text-muted]{HINT}[/]", id="board-hint")
        yield Static("", id="board-error", classes="field-error")

    @property
    def table(self) -> BoardTable:
        """The quotes table."""
        return self.query_one(BoardTable)

    def on_mount(self) -> None:
        """Hide the error line (the countdowns tick with the desk's second: `tick`)."""
        self.query_one("#board-error").display = False

    def show_rfq(self, rfq: RFQ | None) -> None:
        """Show the quotes of ``rfq``."""
        self.rfq = rfq
        if self._error_for is not None and (rfq is None or rfq.rfq_id != self._error_for):
            self.show_error("")  # it was about another RFQ
        head = self.query_one("#board-head", Static)
        table = self.table
        if rfq is None or (self._shown_for is not None and rfq.rfq_id != self._shown_for):
            table.clear_rows()
            self._quotes.clear()
        if rfq is None:
            head.update("Select one of your RFQs to see its quotes.")
            self._line_parts = ["Select one of your RFQs to see its quotes."]
            self._fit_line()
            self._shown_for = None
            return
        self._shown_for = rfq.rfq_id
        now = self.clock()
        price = rfq.structure_price.price if rfq.structure_price else None
        state = (
            f"expires {fmt.countdown(rfq.rfq_expires_at, now)}"
            if rfq.rfq_status == RFQStatus.OPEN
            else f"[$warning]{rfq.rfq_status}[/]"
        )
        # Once a quote is accepted, where the trade stands matters more than the live price
        # (and the status words are too long to share the first line).
        status = str(rfq.clearing_status) if rfq.clearing_status else ""
        tone = (
            "$booked"
            if clearing_is_booked(status)
            else "$rejected"
            if clearing_is_rejected(status)
            else "$pending"
        )
        pricing = self.pricing_of(rfq)
        fair = f"fair {fmt.exact(price)} (structure px)"
        if pricing.has_options:
            fair += f"  mark vol {vol_text(pricing.mark_vol)}"
        third = f"[{tone}]{fmt.status_words(status)}[/]" if status else fair
        head.update(
            f"[b]My RFQ {fmt.short_id(rfq.rfq_id)}[/b]  qty {fmt.qty(rfq.qty)}  {state}\n"
            f"{fmt.structure_text(rfq.structure)}\n"
            f"{third}"
        )
        # A short terminal folds the head into one line, so the quotes keep their rows; what
        # does not fit is left out a whole figure at a time (the three-line head has it all).
        self._line_parts = [
            f"[b]{fmt.short_id(rfq.rfq_id)}[/b] {fmt.structure_text(rfq.structure)}",
            f"qty {fmt.qty(rfq.qty)}",
            state,
            third,
        ]
        self._fit_line()
        quotes = board_quotes(rfq, self.book, now)
        before = self._quotes
        self._quotes = {q.quote_id: q for q in quotes}
        best = best_prices(quotes)
        best_bid, best_ask = best.bid, best.ask
        rows = []
        for rank, quote in enumerate(quotes):
            edge = pricing.edge(quote.bid, quote.ask)
            bid_edge = edge.bid if edge else None
            ask_edge = edge.ask if edge else None
            rows.append(
                (
                    quote.quote_id,
                    (
                        SortText(self.book.company_name(quote.maker), sort_key=rank),
                        self._price_cell(quote.bid, "bid", quote.bid == best_bid),
                        self._price_cell(quote.ask, "ask", quote.ask == best_ask),
                        right(vol_text(pricing.implied_vol(quote.bid))),
                        right(vol_text(pricing.implied_vol(quote.ask))),
                        right(edge_bps_text(bid_edge.bps if bid_edge else None)),
                        right(edge_bps_text(ask_edge.bps if ask_edge else None)),
                        right(fmt.countdown(quote.expires_at, now)),
                        quote.pool,
                        right(edge_price_text(bid_edge.price if bid_edge else None)),
                        right(edge_price_text(ask_edge.price if ask_edge else None)),
                    ),
                )
            )
        table.leave_out(() if pricing.has_options else IV_COLUMNS)
        table.merge(rows, prune=True)
        self._follow_maker(before)
        self._show_hint()

    def _follow_maker(self, before: dict[str, BoardQuote]) -> None:
        """When the chosen quote went and its maker quoted again, the cursor goes onto the
        requote: the maker is what the trader chose (``b`` confirms the new price before any
        trade). With no requote, no quote is chosen until the trader looks (`BoardTable`)."""
        lost = before.get(self.table.lost_key or "")
        if lost is None or lost.maker is None:
            return
        again = next((q for q in self._quotes.values() if q.maker == lost.maker), None)
        if again is not None:
            self.table.select_key(again.quote_id)

    def pricing_of(self, rfq: RFQ) -> Pricing:
        """What ``rfq``'s quotes are judged against: solved again only when its fair value
        or its underlying's mark moved (the vols are remembered per price meanwhile)."""
        return self._pricing.get(rfq, listing_marks(self.book.stats), self.clock())[0]

    def _price_cell(self, price: Decimal | None, side: str, best: bool) -> Text:
        text = fmt.price(price)
        if best and price is not None:
            return right(toned(self.app, f"{BEST} {text}", side, bold=True))
        return right(toned(self.app, text, side))

    def _show_hint(self) -> None:
        """The keys, or why b and s are not offered."""
        why = self._why_not_trade()
        hint = self.query_one("#board-hint", Static)
        if why:
            hint.update(f"[$warning]b/s off: {why}[/]")
        else:
            hint.update(f"[$text-muted]{HINT}[/]")
        if bool(why) != bool(self._trade_off):
            self.refresh_bindings()  # the footer greys b and s out, or offers them again
        self._trade_off = why

    def _why_not_trade(self) -> str:
        return "" if self.rfq is None else my_trade_clearing(self.book, self.rfq.rfq_id)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``b`` and ``s`` are not offered while my trade on the RFQ clears (greyed out)."""
        if action == "accept" and self._why_not_trade():
            return None
        return True

    def on_resize(self) -> None:
        """A new width fits another number of whole figures in the one-line head."""
        self.call_after_refresh(self._fit_line)

    def _fit_line(self) -> None:
        """The one-line head: what is shown now, as many whole figures as its width takes."""
        line = self.query_one("#board-line", Static)
        line.update(whole_figures(self._line_parts, line.content_size.width))

    def tick(self) -> None:
        """Every second (`DeskPanes.tick`): the quotes' countdowns, while on screen."""
        if not self.is_on_screen:
            return  # the board redraws every row when it is shown again
        now = self.clock()
        for quote in self._quotes.values():
            self.table.set_cell(
                quote.quote_id, "expires", right(fmt.countdown(quote.expires_at, now))
            )

    @property
    def selected_quote(self) -> BoardQuote | None:
        """The quote the trader chose: under the cursor, and not one that slid there when
        the chosen quote went (None then, until the trader moves the cursor)."""
        key = self.table.chosen_key
        return self._quotes.get(key) if key else None

    def select_quote(self, quote_id: str) -> None:
        """Put the cursor on a quote."""
        self.table.select_key(quote_id)

    def show_outcome(self, outcome: ActionOutcome) -> None:
        """Clear the error line when the action worked; else say why it did not, about the
        RFQ the action was on (not shown while another RFQ is on the board)."""
        about = outcome.ids.rfq_id
        if about is not None and self.rfq is not None and about != self.rfq.rfq_id:
            return
        self.show_error("" if outcome.ok else outcome_words(outcome), about)

    def show_error(self, message: str, rfq_id: str | None = None) -> None:
        """Show why the last request on an RFQ (``rfq_id``, else the one on the board) was
        refused (empty clears it); the line goes when another RFQ comes on the board."""
        error = self.query_one("#board-error", Static)
        error.update(message)
        error.display = bool(message)
        shown = rfq_id or (self.rfq.rfq_id if self.rfq is not None else None)
        self._error_for = shown if message else None

    def action_accept(self, side: str) -> None:
        """Ask to buy at the selected quote's ask or sell at its bid."""
        self.show_error("")
        if self.rfq is None:
            self.show_error("select one of your RFQs first")
            return
        if self.rfq.rfq_status != RFQStatus.OPEN:
            self.show_error(f"this RFQ is {self.rfq.rfq_status}")
            return
        quote = self.selected_quote
        if quote is None and self.table.lost_key is not None:
            self.show_error(
                "the quote you were on is gone (withdrawn, expired or requoted):"
                " move the cursor to choose a quote"
            )
            return
        if quote is None:
            self.show_error("no quote selected")
            return
        why = self._why_not_trade()
        if why:
            self.show_error(f"not offered: {why}")
            return
        trade_side = TradeSide(side)
        price = quote.ask if trade_side is TradeSide.BUY else quote.bid
        if price is None:
            word = "ask" if trade_side is TradeSide.BUY else "bid"
            self.show_error(f"this quote has no {word}")
            return
        self.post_message(self.Accept(self.rfq.rfq_id, quote.quote_id, trade_side, price))

    def action_cancel_rfq(self) -> None:
        """Ask to cancel the RFQ."""
        if self.rfq is None:
            return
        if self.rfq.rfq_status != RFQStatus.OPEN:
            self.show_error(f"this RFQ is already {self.rfq.rfq_status}")
            return
        self.post_message(self.CancelRfq(self.rfq.rfq_id))
