"""The chaos kit: a taker and a maker trading through `WriteDesk` against a faulty sandbox.

`Floor` holds the test sandbox (its clock frozen and moved only by waiting: every budget wait,
backoff and resolution wait of the clients advances it, so a minute of faults costs seconds),
the ``--faults`` of a spec injected into the running app, and a `Trader` for DESK (the taker)
and for ALPHA (the maker): a `ServiceClient` whose own clock is the sandbox's less the spec's
skew, and a `WriteDesk` with a journal of its own.

A `Trader` is an impatient user: `Trader.insist` submits an intent again, at once, after any
outcome but `Landed` (giving up only on a refusal that will not change, which fails the test);
`Trader.patiently` does the same for a read. The script's steps (`open_pool`, `permit`,
`transfer`, `trade`) are what a trader does at the desk. `Books` is the money and the records
as the engine holds them, read without faults.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from tests.sandbox.kit import quote_request, rfq_request
from tui.api.budget import TokenBudget
from tui.api.client import ServiceClient
from tui.api.clock import ServerClock
from tui.api.errors import ConnectionLost, RateLimited, ServerError
from tui.api.models import (
    AcceptQuoteRequest,
    ClearingStatus,
    DecimalAllowance,
    MakerLastLookRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    RequestAction,
    TradeSide,
    TransferType,
)
from tui.api.permits import sign_permit
from tui.api.writes import Intent, Journal, Landed, NotLanded, Outcome, Resolution, WriteDesk
from tui.api.writes import WriteKind as Kind
from tui.sandbox.engine.seed import default_margin_params
from tui.sandbox.faults import FaultInjector, FaultSpec, parse_faults

T = TypeVar("T")
D = Decimal

IMPATIENCE = 40
"""How many times a trader tries one intent (or one read) before the test gives up on it."""
BLOCK_S = 2.0
"""Enough sandbox time for one block of the test sandbox (1 s) to be mined."""


class Stuck(AssertionError):
    """An intent (or a read) that would not go through however often it was tried."""


@dataclass
class Trader:
    """One company at the desk: its client, its `WriteDesk`, and what became of its intents."""

    name: str
    company_id: str
    wallet_key: str
    client: ServiceClient
    desk: WriteDesk
    outcomes: dict[str, list[Outcome]] = field(default_factory=lambda: defaultdict(list))
    landed: dict[Kind, list[Landed]] = field(default_factory=lambda: defaultdict(list))

    async def insist(self, intent: Intent) -> Landed:
        """Submit ``intent`` until it lands, again at once after any other outcome."""
        for _ in range(IMPATIENCE):
            outcome = await self.desk.submit(intent)
            self.outcomes[intent.id].append(outcome)
            if isinstance(outcome, Landed):
                self.landed[intent.kind].append(outcome)
                return outcome
            refused = isinstance(outcome, NotLanded) and outcome.how is Resolution.REFUSED
            if refused and not isinstance(outcome.error, RateLimited):
                raise Stuck(f"{self.name}: {intent.kind.value} refused: {outcome.reason}")
        raise Stuck(f"{self.name}: {intent.kind.value} never landed: {outcome}")

    async def patiently(self, read: Callable[[], Awaitable[T]]) -> T:
        """``read()``, tried again at once after a lost answer, a 5xx or a 429."""
        for _ in range(IMPATIENCE):
            try:
                return await read()
            except (ConnectionLost, ServerError, RateLimited):
                continue
        raise Stuck(f"{self.name}: a read never went through")

    def hits(self) -> Counter[Kind]:
        """Per kind of write, how many intents met trouble (anything but one plain answer)."""
        counted: Counter[Kind] = Counter()
        for outcomes in self.outcomes.values():
            first = outcomes[0]
            at_once = isinstance(first, Landed) and first.how is Resolution.ANSWERED
            if len(outcomes) > 1 or not at_once:
                counted[first.intent.kind] += 1
        return counted


class Floor:
    """The sandbox with faults, DESK and ALPHA at their desks (an async context manager)."""

    def __init__(self, sandbox: Any, folder: Path, faults: str) -> None:
        self.sandbox = sandbox
        self.folder = folder
        self.spec: FaultSpec = parse_faults(faults)
        self.traders: dict[str, Trader] = {}
        self.addresses: dict[str, str] = {}

    async def __aenter__(self) -> Floor:
        for name in ("DESK", "ALPHA"):
            self.traders[name] = self._trader(name)
        self.faults(on=True)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.faults(on=False)
        for trader in self.traders.values():
            await trader.client.aclose()
            trader.desk.journal.close()

    @property
    def taker(self) -> Trader:
        """DESK."""
        return self.traders["DESK"]

    @property
    def maker(self) -> Trader:
        """ALPHA."""
        return self.traders["ALPHA"]

    def journal_path(self, name: str) -> Path:
        """Where ``name``'s journal is kept."""
        return self.folder / f"journal-{name}" / "writes.jsonl"

    def faults(self, *, on: bool) -> None:
        """Switch the spec's faults on (a fresh, seeded injector) or off."""
        injector = FaultInjector(self.spec) if on else None
        self.sandbox.call(lambda _ex: setattr(self.sandbox.app, "faults", injector))

    async def wait(self, seconds: float) -> None:
        """Every wait of the clients and desks: sandbox time moves on, nobody sleeps."""
        self.sandbox.advance(seconds)
        await asyncio.sleep(0)

    def _trader(self, name: str) -> Trader:
        entry = self.sandbox.credentials[name]
        sandbox, skew = self.sandbox, self.spec.skew_ms
        budget = TokenBudget(
            slack_s=0, clock=lambda: sandbox.clock.now_ms() / 1000, sleep=self.wait
        )
        client = ServiceClient(
            sandbox.base_url,
            entry["api_key"],
            entry["api_secret"],
            budget=budget,
            clock=ServerClock(local_ms=lambda: sandbox.clock.now_ms() - skew),
            sleep=self.wait,
            rng=random.Random(self.spec.seed),
        )
        desk = WriteDesk(client, Journal(self.journal_path(name)), sleep=self.wait)
        return Trader(name, entry["id"], entry["wallet_private_key"], client, desk)


# -- the script's steps --------------------------------------------------------------------


async def open_pool(floor: Floor, creator: Trader, other: Trader, name: str) -> str:
    """A new pool of ``creator`` with ``other``, open once its block is mined; its id."""
    request = NewSettlementPoolRequest(
        pool_name=name,
        company_other=other.company_id,
        creator_params=default_margin_params(),
        other_params=default_margin_params(),
    )
    landed = await creator.insist(Intent.of(Kind.POOL, request))
    await floor.wait(BLOCK_S)
    return str(landed.record.pool_id)


async def _pool_address(floor: Floor, trader: Trader, pool_id: str) -> str:
    if pool_id not in floor.addresses:
        page = await trader.patiently(lambda: trader.client.settlement_pools(id=pool_id))
        (pool,) = page.result
        assert pool.data is not None and pool.data.address
        floor.addresses[pool_id] = pool.data.address
    return floor.addresses[pool_id]


async def permit(floor: Floor, trader: Trader, pool_id: str, amount: Decimal) -> None:
    """Let the pool spend ``amount`` of the trader's wallet: a permit, signed and submitted."""
    address = await _pool_address(floor, trader, pool_id)
    ask = PermitTemplateRequest(
        pool_address=address,
        allowance=DecimalAllowance(value=amount),
        seconds_until_expiry=3600,
    )
    template = await trader.patiently(lambda: trader.client.transfers_permit_template(ask))
    await trader.insist(Intent.of(Kind.PERMIT, sign_permit(template, trader.wallet_key)))


async def transfer(
    floor: Floor, trader: Trader, other: Trader, pool_id: str, kind: TransferType, qty: str
) -> None:
    """A deposit into (or a withdrawal from) a pool of ``trader`` and ``other``; confirmed."""
    request = NewTransferRequest(
        qty=D(qty), target_pool_location=pool_id, counterparty=other.company_id, transfer_type=kind
    )
    await trader.insist(Intent.of(Kind.TRANSFER, request))
    await floor.wait(BLOCK_S)


async def _clearing(trader: Trader, quote_id: str) -> str | None:
    page = await trader.patiently(lambda: trader.client.quotes(id=quote_id))
    (quote,) = page.result
    return quote.clearing_status


async def trade(floor: Floor, pool_id: str, side: TradeSide, qty: str) -> str | None:
    """RFQ -> quote -> accept -> (taker permit) -> last look -> (maker permit) -> booked.

    Each write goes through the trader's `WriteDesk`; a deposit approval is answered with a
    permit for a round allowance. Returns where the trade ended.
    """
    sandbox, taker, maker = floor.sandbox, floor.taker, floor.maker
    asked = rfq_request(sandbox, qty=qty, expires_in_s=3600)
    rfq = (await taker.insist(Intent.of(Kind.RFQ, asked))).record
    page = await maker.patiently(lambda: maker.client.rfqs_received(id=rfq.rfq_id, price=False))
    (seen,) = page.result
    offer = quote_request(sandbox, seen, pool_id, expires_in_s=1800)
    quote = (await maker.insist(Intent.of(Kind.QUOTE, offer))).record
    accept = AcceptQuoteRequest(parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, side=side)
    await taker.insist(Intent.of(Kind.ACCEPT, accept))
    if (
        await _clearing(taker, quote.parent_quote_id)
        == ClearingStatus.PENDING_TAKER_DEPOSIT_APPROVAL
    ):
        await permit(floor, taker, pool_id, D(50_000))
    look = MakerLastLookRequest(
        parent_quote_id=quote.parent_quote_id, rfq_id=rfq.rfq_id, action=RequestAction.ACCEPT
    )
    await maker.insist(Intent.of(Kind.LAST_LOOK, look))
    if (
        await _clearing(maker, quote.parent_quote_id)
        == ClearingStatus.PENDING_MAKER_DEPOSIT_APPROVAL
    ):
        await permit(floor, maker, pool_id, D(200_000))
    await floor.wait(BLOCK_S)  # the atomic deposit's block
    return await _clearing(taker, quote.parent_quote_id)


# -- the books, read from the engine ----------------------------------------------------------


@dataclass(frozen=True)
class Books:
    """Every company's wallet, pool balances and permit nonce, as the engine holds them."""

    wallets: dict[str, Decimal]
    balances: dict[tuple[str, str], Decimal]
    nonces: dict[str, int]

    @property
    def usdc(self) -> Decimal:
        """All the USDC there is: every wallet and every pool balance."""
        return sum(self.wallets.values(), D(0)) + sum(self.balances.values(), D(0))

    def held_by(self, company_id: str) -> Decimal:
        """A company's wallet and pool balances together."""
        pools = sum((v for (_, c), v in self.balances.items() if c == company_id), D(0))
        return self.wallets[company_id] + pools

    def pool_total(self, pool_id: str) -> Decimal:
        """The money in one pool, both parties'."""
        return sum((v for (p, _), v in self.balances.items() if p == pool_id), D(0))


def read_books(sandbox: Any) -> Books:
    """The `Books` now (between requests, on the server's thread)."""
    ids = [entry["id"] for entry in sandbox.credentials.values()]

    def read(ex: Any) -> Books:
        wallets, balances, nonces = {}, {}, {}
        for company_id in ids:
            wallet = ex.chain.wallet(company_id)
            wallets[company_id], nonces[company_id] = wallet.usdc, wallet.nonce
            for pool_id, asset, qty in ex.portfolio.balances_of(company_id):
                assert asset == "USDC", asset
                balances[(pool_id, company_id)] = qty
        return Books(wallets, balances, nonces)

    books: Books = sandbox.call(read)
    return books


def engine_records(sandbox: Any, name: str, method: str, **filters: Any) -> list[Any]:
    """Every record a list endpoint of the engine gives ``name``'s writer key (no faults)."""
    caller = sandbox.caller(name)
    found: list[Any] = sandbox.call(
        lambda ex: getattr(ex, method)(caller, limit=1_000_000, offset=0, **filters).items
    )
    return found
