"""Scorecards from the history: how each maker treats my RFQs, how I treat each taker's.

Per maker (for me as taker): response rate (RFQs it quoted of those sent to it; None when
the venue does not say whom an RFQ went to), median seconds to its first quote on an RFQ,
its share of best prices (the sides it quoted where its price was the best on the RFQ), win
rate (RFQs I traded with it of those it quoted) and last-look reject rate (accepts it
declined or let lapse, of those that reached its last look).

Per taker (for me as maker): RFQs it sent me, my response rate, my median response time,
and my hit ratio (RFQs I traded of those I quoted). Rates are Decimal fractions (0 to 1),
None when nothing was counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from statistics import median

from tui.desk.analytics.history import EntryKind, HistoryEntry, Outcome


def _rate(part: int, whole: int) -> Decimal | None:
    return None if whole == 0 else Decimal(part) / Decimal(whole)


def _median(values: list[Decimal]) -> Decimal | None:
    return median(values) if values else None


@dataclass(frozen=True)
class MakerCard:
    """One maker's record on my RFQs (module docstring)."""

    maker: str
    asked: int
    answered: int
    response_rate: Decimal | None
    median_first_quote_s: Decimal | None
    best_sides: int
    quoted_sides: int
    best_share: Decimal | None
    wins: int
    win_rate: Decimal | None
    last_looks: int
    last_look_rejects: int
    last_look_reject_rate: Decimal | None


@dataclass(frozen=True)
class TakerCard:
    """My record on one taker's RFQs (module docstring)."""

    taker: str
    asked: int
    quoted: int
    response_rate: Decimal | None
    median_response_s: Decimal | None
    traded: int
    hit_ratio: Decimal | None


def maker_cards(entries: Iterable[HistoryEntry]) -> list[MakerCard]:
    """A card per maker that was asked or quoted, fastest median first quote first."""
    entries = list(entries)
    sent = [e for e in entries if e.kind is EntryKind.RFQ_SENT]
    quotes = [e for e in entries if e.kind is EntryKind.QUOTE_RECEIVED and e.maker]
    makers = {m for e in sent for m in e.targets} | {e.maker for e in quotes if e.maker}
    targets_known = any(e.targets for e in sent)
    cards = []
    for maker in makers:
        mine = [q for q in quotes if q.maker == maker]
        answered = {q.rfq_id for q in mine}
        asked = {e.rfq_id for e in sent if maker in e.targets}
        firsts: dict[str, Decimal] = {}
        for q in mine:
            if q.response_s is not None:
                firsts[q.rfq_id] = min(firsts.get(q.rfq_id, q.response_s), q.response_s)
        quoted_sides = sum((q.bid is not None) + (q.ask is not None) for q in mine)
        best_sides = sum(q.best_bid + q.best_ask for q in mine)
        wins = {q.rfq_id for q in mine if q.outcome is Outcome.TRADED}
        looks = [q for q in mine if q.reached_last_look]
        rejects = [q for q in looks if q.outcome is Outcome.LAST_LOOK_REJECTED]
        cards.append(
            MakerCard(
                maker=maker,
                asked=len(asked),
                answered=len(answered),
                response_rate=_rate(len(answered & asked), len(asked)) if targets_known else None,
                median_first_quote_s=_median(list(firsts.values())),
                best_sides=best_sides,
                quoted_sides=quoted_sides,
                best_share=_rate(best_sides, quoted_sides),
                wins=len(wins),
                win_rate=_rate(len(wins), len(answered)),
                last_looks=len(looks),
                last_look_rejects=len(rejects),
                last_look_reject_rate=_rate(len(rejects), len(looks)),
            )
        )
    return sorted(
        cards,
        key=lambda c: (c.median_first_quote_s is None, c.median_first_quote_s or 0, c.maker),
    )


def taker_cards(entries: Iterable[HistoryEntry]) -> list[TakerCard]:
    """A card per taker that sent me RFQs, most RFQs first."""
    entries = list(entries)
    received = [e for e in entries if e.kind is EntryKind.RFQ_RECEIVED]
    made = [e for e in entries if e.kind is EntryKind.QUOTE_MADE]
    cards = []
    for taker in {e.taker for e in received} | {e.taker for e in made if e.taker}:
        asked = {e.rfq_id for e in received if e.taker == taker}
        mine = [q for q in made if q.taker == taker]
        quoted = {q.rfq_id for q in mine}
        firsts: dict[str, Decimal] = {}
        for q in mine:
            if q.response_s is not None:
                firsts[q.rfq_id] = min(firsts.get(q.rfq_id, q.response_s), q.response_s)
        traded = {q.rfq_id for q in mine if q.outcome is Outcome.TRADED}
        cards.append(
            TakerCard(
                taker=taker,
                asked=len(asked),
                quoted=len(quoted),
                response_rate=_rate(len(quoted & asked), len(asked)),
                median_response_s=_median(list(firsts.values())),
                traded=len(traded),
                hit_ratio=_rate(len(traded), len(quoted)),
            )
        )
    return sorted(cards, key=lambda c: (-c.asked, c.taker))
