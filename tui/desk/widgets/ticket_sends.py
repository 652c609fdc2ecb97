"""What ``ctrl+s`` on the quote ticket will do, said above the form where it is always in view.

A maker has one live quote per RFQ: ``ctrl+s`` where mine is live replaces it (the maker role
decides so; the ticket names the quote it replaces and sends exactly that). The line says
which quote is replaced or that a new one is sent, into which pool (an existing one, or a new
pool with its name and preset), and how long the quote will live. Should two quotes of mine
ever be live on one RFQ, the line counts them and names each, so none goes unseen.

The lines sit between the ticket's head and its scrolling form: on a short terminal (80x24)
the form shows its leg rows only, and the pool and expiry would otherwise be below the fold.
Under them, the live-quote line of the form says the live quote's prices and countdown.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from textual.markup import escape

from tui.api.lifecycle import clearing_is_final
from tui.desk.clearing import quote_is_open
from tui.desk.widgets.common import fmt
from tui.desk.widgets.quote_form import DEFAULT_EXPIRY_S, NEW_POOL
from tui.desk.widgets.ticket_head import Line, Lines, TicketHead

if TYPE_CHECKING:
    from tui.api.models import RFQ, Quote
    from tui.desk.book import DeskBook

HEIGHT = 2


def live_quotes(book: DeskBook, rfq_id: str, now: datetime) -> list[Quote]:
    """Every quote of mine live on ``rfq_id``, the one ``ctrl+s`` replaces first (the book's
    `DeskBook.live_quote_on`, the maker role's rule, picks the same one)."""
    first = book.live_quote_on(rfq_id, now)
    if first is None:
        return []
    others = [
        q
        for q in book.my_quotes_on(rfq_id)
        if q.parent_quote_id != first.parent_quote_id and quote_is_open(q, now)
    ]
    return [first, *others]


def expiry_words(typed: str, rfq: RFQ, now: datetime) -> str:
    """How long the quote will live: as typed, or the default (never past the RFQ)."""
    if typed.strip():
        return f"lives {typed.strip()} s"
    left = int((rfq.rfq_expires_at - now).total_seconds())
    return f"lives {max(min(DEFAULT_EXPIRY_S, left), 0)} s"


def sends_lines(
    live: list[Quote], pool: str, pool_words: str, expiry: str, closed: str = ""
) -> Lines:
    """Line 1: what ``ctrl+s`` does (replaces which quote, or sends a new one) and how long
    the quote lives; line 2: the pool it settles in, and every live quote when there are
    several."""
    if closed:
        return ((("^s sends nothing: ", ""), (closed, "closed")),)
    if live:
        first: Line = (
            ("^s replaces live quote ", ""),
            (fmt.short_id(live[0].parent_quote_id), "strong"),
        )
        if len(live) > 1:
            first += ((f"  ({len(live)} of mine live!)", "closed"),)
    else:
        first = (("^s sends a new quote", "strong"),)
    first += ((f"  {expiry}", ""),)
    # A new pool (made on acceptance) stands out as a missing pick does: both are easy to miss.
    style = "strong" if pool and pool != NEW_POOL else "closed"
    where: Line = (("into ", ""), (pool_words or "no pool picked", style))
    if len(live) > 1:
        ids = ", ".join(fmt.short_id(q.parent_quote_id) for q in live)
        where = ((f"live: {ids}  ", "closed"), *where)
    return (first, where)


def live_words(book: DeskBook, rfq_id: str, now: datetime) -> str:
    """The form's live-quote line (markup): the live quote's prices and countdown (each live
    one, should there be several); else whether one of mine was accepted, or none is live."""
    live = live_quotes(book, rfq_id, now)
    if live:
        return "\n".join(
            f"live quote {fmt.short_id(q.parent_quote_id)}  "
            f"bid [$bid]{fmt.price(q.aggregated_bid)}[/]  "
            f"ask [$ask]{fmt.price(q.aggregated_ask)}[/]  "
            f"expires {fmt.countdown(q.expires_at, now)}"
            for q in live
        )
    accepted = next((q for q in book.my_quotes_on(rfq_id) if q.clearing_status is not None), None)
    if accepted is None:
        return "[$text-muted]no live quote on this RFQ[/]"
    status = accepted.clearing_status
    state = fmt.status_words(str(status)) if clearing_is_final(status) else "clearing"
    return f"[b]your quote was accepted[/b] — {escape(state)}: see tracker (t)"


class TicketSends(TicketHead):
    """The lines saying what ``ctrl+s`` will do (see module docs), drawn as the head is."""

    DEFAULT_CSS = """
    TicketSends {
        height: 2;
    }
    """
