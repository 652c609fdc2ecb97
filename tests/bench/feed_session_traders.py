"""Who trades in `bench_feed_session`: a scripted counterparty over the API, and the desk's
trader acting through the desk's own roles (on demand only).

`Counterparty` is another seeded company (ALPHA, which shares the funded opening pool with
DESK) on a `ServiceClient` of its own (its own 100-token budget): it sends DESK an RFQ for a
BTC perpetual at a steady pace (each gap the mean, jittered by a seeded +-30 %, so the
sends do not lock onto the desk's polling phase), writes down each RFQ's id and the venue's
``created_at``, and buys at the ask of every quote DESK makes on one of them.

`DeskTrader` is the person at the desk, acting through the desk's roles exactly as the keys
would after their confirmations (`TakerRole.send_rfq`, `TakerRole.accept_now`,
`MakerRole.send_quote_now`, `MakerRole.last_look`, `PoolsRole.approve_now`), so every write
goes through the desk's client and spends the desk's budget. It asks the simulated makers for
a price now and then and buys the best ask, quotes every other RFQ the counterparty sent once
the desk shows it, and answers every last look and deposit the desk says waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from tui.api.client import CallInfo, ServiceClient
from tui.api.errors import ApiError
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    LegQuote,
    NewQuoteRequest,
    NewRfqRequest,
    RequestAction,
    RFQStatus,
    Structure,
    TradeSide,
    UseExistingPool,
)
from tui.desk.clearing import NextStep, quote_is_open

if TYPE_CHECKING:
    from tui.desk.app import DeskApp

QTY = Decimal("0.5")
"""Every RFQ's quantity: small beside the pool's margin, so a long session keeps trading."""
SPREAD = Decimal("0.001")
"""The desk's quotes: the structure price -+ 0.1 %."""
POOL_NAME = "DESK-ALPHA main"
"""The seeded pool DESK and ALPHA share (`tui.sandbox.engine.seed.SEED_POOL_NAME`)."""


def btc_perp_rfq(
    qty: Decimal, now: datetime, lifetime_s: float, targets: list[str]
) -> NewRfqRequest:
    """An RFQ to buy ``qty`` BTC perpetuals, open for ``lifetime_s``, asked of ``targets``."""
    leg = {
        "side": "buy",
        "ratio": 1,
        "instrument": {"instrument_type": "perpetual_future", "underlying": "BTC"},
    }
    return NewRfqRequest(
        structure=Structure.model_validate({"legs": [leg]}),
        qty=qty,
        expires_at=now + timedelta(seconds=lifetime_s),
        target_companies=targets,
    )


async def pause(stop: asyncio.Event, seconds: float) -> None:
    """Wait ``seconds``, or less when ``stop`` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


def server_now(client: ServiceClient) -> datetime:
    """Now on the venue's clock, as ``client`` estimates it."""
    return datetime.fromtimestamp(client.clock.now_ms() / 1000, tz=UTC)


@dataclass
class SentRfq:
    """One RFQ the counterparty sent: when the venue made it, and when the desk showed it."""

    rfq_id: str
    index: int
    created_ms: int
    seen_ms: int | None = None
    seen_row: int | None = None


@dataclass
class Counterparty:
    """The scripted counterparty (see module docs)."""

    client: ServiceClient
    desk_id: str
    every_s: float
    rng: random.Random = field(default_factory=lambda: random.Random(11))
    sent: dict[str, SentRfq] = field(default_factory=dict)
    accepted: set[str] = field(default_factory=set)
    statuses: Counter[int] = field(default_factory=Counter)
    problems: Counter[str] = field(default_factory=Counter)

    def on_call(self, info: CallInfo) -> None:
        """Every HTTP exchange of the counterparty's client, by status."""
        self.statuses[info.status] += 1

    async def send_rfqs(self, stop: asyncio.Event) -> None:
        """An RFQ to the desk, then a jittered gap, until ``stop``."""
        while not stop.is_set():
            request = btc_perp_rfq(QTY, server_now(self.client), 90, [self.desk_id])
            try:
                rfq = await self.client.rfqs_new(request)
            except ApiError as error:
                self.problems[f"rfqs_new: {error.message}"] += 1
            else:
                created_ms = round(rfq.created_at.timestamp() * 1000)
                self.sent[rfq.rfq_id] = SentRfq(rfq.rfq_id, len(self.sent), created_ms)
            gap = self.every_s * self.rng.uniform(0.7, 1.3)
            await pause(stop, gap)

    async def take_quotes(self, stop: asyncio.Event, every_s: float = 2.0) -> None:
        """Buy at the ask of each open quote on my RFQs (they are all from the desk)."""
        while not stop.is_set():
            try:
                page = await self.client.quotes_received(limit=1000)
            except ApiError as error:
                self.problems[f"quotes_received: {error.message}"] += 1
            else:
                now = server_now(self.client)
                for quote in page.result:
                    if (
                        quote.parent_quote_id in self.accepted
                        or quote.target_rfq_id not in self.sent
                    ):
                        continue
                    if not quote_is_open(quote, now) or quote.aggregated_ask is None:
                        continue
                    self.accepted.add(quote.parent_quote_id)
                    request = AcceptQuoteRequest(
                        parent_quote_id=quote.parent_quote_id,
                        rfq_id=quote.target_rfq_id,
                        side=TradeSide.BUY,
                    )
                    try:
                        await self.client.quotes_accept(request)
                    except ApiError as error:
                        self.problems[f"quotes_accept: {error.message}"] += 1
            await pause(stop, every_s)


@dataclass
class DeskTrader:
    """The trader at the desk, acting through its roles (see module docs)."""

    app: DeskApp
    makers: list[str]
    counterparty: Counterparty
    rfq_every_s: float
    first_rfq_s: float = 5.0
    wait_for_quotes_s: float = 3.0
    done: Counter[str] = field(default_factory=Counter)
    """What the trader did, by action."""
    _quoted: set[str] = field(default_factory=set)
    _answered: set[tuple[str, str]] = field(default_factory=set)
    _bought: set[str] = field(default_factory=set)
    _first_quote: dict[str, float] = field(default_factory=dict)

    async def run(self, stop: asyncio.Event, every_s: float = 0.5) -> None:
        """Look at the book every ``every_s`` and act, until ``stop``."""
        loop = asyncio.get_running_loop()
        next_rfq = loop.time() + self.first_rfq_s
        while not stop.is_set():
            if loop.time() >= next_rfq:
                self.ask_makers()
                next_rfq += self.rfq_every_s
            self.buy_best_asks(loop.time())
            self.quote_counterparty()
            self.answer_what_waits()
            await pause(stop, every_s)

    def _act(self, what: str) -> None:
        self.done[what] += 1

    def ask_makers(self) -> None:
        """A new RFQ to the simulated makers (the builder's ``ctrl+s``)."""
        request = btc_perp_rfq(QTY, self.app.clock(), 60, self.makers)
        self.app.taker.send_rfq(None, request)  # type: ignore[arg-type]  # no builder waits
        self._act("RFQs sent")

    def buy_best_asks(self, now_s: float) -> None:
        """On each open RFQ of mine, buy the best ask once quotes have had a moment to come."""
        book, now = self.app.book, self.app.clock()
        for rfq in list(book.rfqs_sent.values()):
            if rfq.rfq_id in self._bought or rfq.rfq_status != RFQStatus.OPEN:
                continue
            quotes = [
                q
                for q in book.quotes_received.values()
                if q.target_rfq_id == rfq.rfq_id
                and q.aggregated_ask is not None
                and quote_is_open(q, now)
            ]
            if not quotes:
                continue
            first = self._first_quote.setdefault(rfq.rfq_id, now_s)
            if len(quotes) < len(self.makers) and now_s - first < self.wait_for_quotes_s:
                continue
            best = min(quotes, key=lambda q: q.aggregated_ask or Decimal(0))
            self._bought.add(rfq.rfq_id)
            self.app.taker.accept_now(rfq.rfq_id, best.parent_quote_id, TradeSide.BUY)
            self._act("accepts (taker)")

    def quote_counterparty(self) -> None:
        """Quote every other RFQ the counterparty sent, once the desk shows it."""
        book, now = self.app.book, self.app.clock()
        pool_id = next(
            (p.pool_id for p in book.pools.values() if p.data and p.data.name == POOL_NAME), None
        )
        if pool_id is None:
            return
        for rfq in list(book.rfqs_received.values()):
            sent = self.counterparty.sent.get(rfq.rfq_id)
            if sent is None or sent.index % 2 or rfq.rfq_id in self._quoted:
                continue
            if rfq.rfq_status != RFQStatus.OPEN or rfq.rfq_expires_at <= now:
                continue
            request = quote_request(rfq, pool_id, now)
            if request is None:
                continue
            self._quoted.add(rfq.rfq_id)
            self.app.maker.send_quote_now(request)
            self._act("quotes (maker)")

    def answer_what_waits(self) -> None:
        """Accept every last look, approve every deposit the desk says waits for me (once)."""
        book = self.app.book
        for trade in book.needs_me():
            step = (trade.key, str(trade.next_step))
            if step in self._answered:
                continue
            if trade.next_step is NextStep.LAST_LOOK:
                self._answered.add(step)
                self.app.maker.last_look(trade, RequestAction.ACCEPT)
                self._act("last looks (maker)")
            elif trade.next_step is NextStep.APPROVE_DEPOSIT:
                hint = book.deposit_hint(trade)
                if hint.amount is None or hint.amount <= 0 or hint.pool_address is None:
                    continue  # the next polls will say how much, and where
                self._answered.add(step)
                self.app.pools.approve_now(trade, hint.pool_address, hint.amount)
                self._act("deposits approved")


def quote_request(rfq: RFQ, pool_id: str, now: datetime) -> NewQuoteRequest | None:
    """The desk's two-way quote on a one-leg RFQ around its structure price (None: no price
    yet), settling in ``pool_id``, good for a minute."""
    price = rfq.structure_price.price if rfq.structure_price else None
    if price is None or len(rfq.rfq_legs) != 1:
        return None
    mark = abs(price)
    leg_quotes = [
        LegQuote(
            target_rfq_leg_id=rfq.rfq_legs[0].rfq_leg_id,
            bid=(mark * (1 - SPREAD)).quantize(Decimal("0.01")),
            ask=(mark * (1 + SPREAD)).quantize(Decimal("0.01")),
        )
    ]
    return NewQuoteRequest(
        rfq_id=rfq.rfq_id,
        expires_at=now + timedelta(seconds=60),
        leg_quotes=leg_quotes,
        pool_strategy=UseExistingPool(pool_id=pool_id),
    )


def outcome_words(outcomes: Counter[str]) -> str:
    """The desk's action outcomes, ``kind ok/failed``, for the report."""
    return ", ".join(f"{kind} {n}" for kind, n in sorted(outcomes.items())) or "none"
