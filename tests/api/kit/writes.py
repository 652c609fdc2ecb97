"""The writes kit: a wire that loses answers on cue, and one scenario per kind of write.

`LossyWire` is an httpx transport in front of the real sandbox. Told to, it loses the next POST
to a path: ``lose`` lets the request through (the venue commits) and then raises
`httpx.ReadError` instead of returning the answer; ``drop`` raises `httpx.RemoteProtocolError`
without letting it through (sent, never reached the engine); ``refuse`` raises
`httpx.ConnectError` (never left); ``drop_after``, ``drop_before`` and ``5xx`` switch the
sandbox's own ``--faults`` on for that one request. `Venue` holds a sandbox, a taker (DESK) and
a maker (ALPHA) client on such wires, and a `WriteDesk` each with its own journal, waiting on
sandbox time. Each `Scenario` prepares one write and measures on the venue what it changes, so a
test can count duplicates by reading the venue.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

from tests.sandbox.kit import quote_request, rfq_request, seed_pool_id
from tui.api.client import ServiceClient
from tui.api.models import (
    AcceptQuoteRequest,
    DecimalAllowance,
    MakerLastLookRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    Quote,
    ReplaceQuoteRequest,
    RequestAction,
    TradeSide,
    TransferType,
)
from tui.api.permits import sign_permit
from tui.api.writes import Intent, Journal, WriteDesk, WriteKind
from tui.sandbox.engine.seed import default_margin_params
from tui.sandbox.faults import FaultInjector, parse_faults

D = Decimal


SERVER_FAULTS = {"drop_after": "drop_after=1", "drop_before": "drop_before=1", "5xx": "5xx=1"}
"""Ways the sandbox itself loses a request (its ``--faults``), switched on for one request."""


class LossyWire(httpx.AsyncBaseTransport):
    """The real network to the sandbox, losing the requests it is told to lose."""

    def __init__(self, sandbox: Any) -> None:
        self.sandbox = sandbox
        self.inner = httpx.AsyncHTTPTransport()
        self._plan: dict[str, deque[str]] = defaultdict(deque)
        self.reached: list[str] = []

    def next(self, path: str, how: str) -> None:
        """Lose the next request to ``path``: client side ``lose``, ``drop`` or ``refuse``, or
        by the sandbox's own faults (``drop_after``, ``drop_before``, ``5xx``)."""
        assert how in ("lose", "drop", "refuse", *SERVER_FAULTS)
        self._plan[path].append(how)

    def _faults(self, spec: str | None) -> None:
        injector = FaultInjector(parse_faults(spec)) if spec is not None else None
        self.sandbox.call(lambda _ex: setattr(self.sandbox.app, "faults", injector))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        plan = self._plan.get(request.url.path)
        how = plan.popleft() if plan else None
        if how == "refuse":
            raise httpx.ConnectError("connection refused", request=request)
        if how == "drop":
            raise httpx.RemoteProtocolError("server disconnected", request=request)
        self.reached.append(request.url.path)
        if how in SERVER_FAULTS:
            self._faults(SERVER_FAULTS[how])
            try:
                return await self.inner.handle_async_request(request)
            finally:
                self._faults(None)
        response = await self.inner.handle_async_request(request)
        if how == "lose":
            await response.aread()
            await response.aclose()
            raise httpx.ReadError("connection reset after the request was sent", request=request)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class Venue:
    """A sandbox with a taker and a maker on lossy wires, each with a `WriteDesk`."""

    sandbox: Any
    folder: Path
    wires: dict[str, LossyWire] = field(default_factory=dict)
    clients: dict[str, ServiceClient] = field(default_factory=dict)
    desks: dict[str, WriteDesk] = field(default_factory=dict)
    pool_id: str = ""

    async def __aenter__(self) -> Venue:
        for name in ("DESK", "ALPHA"):
            wire = self.wires[name] = LossyWire(self.sandbox)
            client = self.sandbox.client(name, transport=wire, max_attempts=1)
            self.clients[name] = client
            self.desks[name] = self.writes_desk(name)
        self.pool_id = await seed_pool_id(self.taker)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        for client in self.clients.values():
            await client.aclose()

    def journal_path(self, name: str) -> Path:
        """Where the journal of ``name``'s writes is kept."""
        return self.folder / f"journal-{name}" / "writes.jsonl"

    def writes_desk(self, name: str) -> WriteDesk:
        """A `WriteDesk` for ``name`` on a freshly opened journal, waiting on sandbox time."""

        async def sandbox_sleep(seconds: float) -> None:
            self.sandbox.advance(seconds)
            await asyncio.sleep(0)

        journal = Journal(self.journal_path(name))
        return WriteDesk(self.clients[name], journal, sleep=sandbox_sleep)

    @property
    def taker(self) -> ServiceClient:
        """DESK, the taker."""
        return self.clients["DESK"]

    @property
    def maker(self) -> ServiceClient:
        """ALPHA, the maker."""
        return self.clients["ALPHA"]

    async def open_quote(self) -> Quote:
        """An RFQ of DESK's with one open quote of ALPHA's on it."""
        rfq = await self.taker.rfqs_new(rfq_request(self.sandbox))
        return await self.maker.quotes_new(quote_request(self.sandbox, rfq, self.pool_id))

    async def accepted_quote(self) -> Quote:
        """A quote DESK accepted, waiting for ALPHA's last look."""
        quote = await self.open_quote()
        await self.taker.quotes_accept(_accept(quote))
        return quote

    async def own_quotes(self) -> list[Quote]:
        """Every quote ALPHA ever made."""
        return [q async for q in self.maker.iterate("quotes")]

    async def canceled_quotes(self) -> int:
        """How many of ALPHA's quotes are cancelled."""
        quotes = await self.own_quotes()
        return sum((q.model_extra or {}).get("quote_status") == "canceled" for q in quotes)

    async def permit_nonce(self) -> int:
        """DESK's wallet permit nonce, as the template shows it."""
        template = await self.taker.transfers_permit_template(await self._permit_template())
        return int(template["message"]["nonce"])

    async def signed_permit(self, amount: str = "1000") -> Any:
        """A permit of DESK's wallet for the seed pool, signed."""
        template = await self.taker.transfers_permit_template(await self._permit_template(amount))
        key = self.sandbox.credentials["DESK"]["wallet_private_key"]
        return sign_permit(template, key)

    async def _permit_template(self, amount: str = "1") -> PermitTemplateRequest:
        (pool,) = (await self.taker.settlement_pools(id=self.pool_id)).result
        assert pool.data is not None and pool.data.address
        return PermitTemplateRequest(
            pool_address=pool.data.address, allowance=DecimalAllowance(value=D(amount))
        )


def _accept(quote: Quote) -> AcceptQuoteRequest:
    return AcceptQuoteRequest(
        parent_quote_id=quote.parent_quote_id, rfq_id=quote.target_rfq_id, side=TradeSide.BUY
    )


@dataclass(frozen=True)
class Scenario:
    """One kind of write: who sends it, how it is prepared, and what it changes on the venue
    (``measure``, read back after; ``landed`` is the change one landing makes)."""

    kind: WriteKind
    sender: str
    prepare: Callable[[Venue], Awaitable[Intent]]
    measure: Callable[[Venue], Awaitable[Any]]
    landed: Any = 1

    @property
    def path(self) -> str:
        """The path of the write."""
        return self.kind.endpoint.path


async def _rfq(venue: Venue) -> Intent:
    return Intent.of(WriteKind.RFQ, rfq_request(venue.sandbox))


async def _rfq_count(venue: Venue) -> int:
    return len([r async for r in venue.taker.iterate("rfqs_sent", price=False)])


async def _quote(venue: Venue) -> Intent:
    rfq = await venue.taker.rfqs_new(rfq_request(venue.sandbox))
    return Intent.of(WriteKind.QUOTE, quote_request(venue.sandbox, rfq, venue.pool_id))


async def _quote_count(venue: Venue) -> int:
    return len(await venue.own_quotes())


async def _replace(venue: Venue) -> Intent:
    quote = await venue.open_quote()
    (rfq,) = (await venue.maker.rfqs_received(id=quote.target_rfq_id)).result
    fresh = quote_request(venue.sandbox, rfq, venue.pool_id, spread="0.002")
    request = ReplaceQuoteRequest(
        parent_quote_id=quote.parent_quote_id, **fresh.model_dump(by_alias=True)
    )
    return Intent.of(WriteKind.REPLACE_QUOTE, request)


async def _cancel_quote(venue: Venue) -> Intent:
    quote = await venue.open_quote()
    return Intent.of(WriteKind.CANCEL_QUOTE, id=quote.parent_quote_id)


async def _cancel_all(venue: Venue) -> Intent:
    await venue.open_quote()
    await venue.open_quote()
    return Intent.of(WriteKind.CANCEL_ALL_QUOTES)


async def _accept_quote(venue: Venue) -> Intent:
    return Intent.of(WriteKind.ACCEPT, _accept(await venue.open_quote()))


async def _clearing_events(venue: Venue) -> int:
    return sum(len(q.clearing_events) for q in await venue.own_quotes())


async def _last_look(venue: Venue) -> Intent:
    quote = await venue.accepted_quote()
    request = MakerLastLookRequest(
        parent_quote_id=quote.parent_quote_id,
        rfq_id=quote.target_rfq_id,
        action=RequestAction.ACCEPT,
    )
    return Intent.of(WriteKind.LAST_LOOK, request)


async def _trade_count(venue: Venue) -> int:
    return len([t async for t in venue.taker.iterate("portfolio_trades")])


async def _cancel_rfq(venue: Venue) -> Intent:
    rfq = await venue.taker.rfqs_new(rfq_request(venue.sandbox))
    return Intent.of(WriteKind.CANCEL_RFQ, id=rfq.rfq_id)


async def _canceled_rfqs(venue: Venue) -> int:
    rfqs = [r async for r in venue.taker.iterate("rfqs_sent", price=False)]
    return sum(r.rfq_status == "canceled" for r in rfqs)


async def _pool(venue: Venue) -> Intent:
    request = NewSettlementPoolRequest(
        pool_name="DESK-BORE",
        company_other=venue.sandbox.company_ids["BORE"],
        creator_params=default_margin_params(),
        other_params=default_margin_params(),
    )
    return Intent.of(WriteKind.POOL, request)


async def _pool_count(venue: Venue) -> int:
    return len([p async for p in venue.taker.iterate("settlement_pools")])


async def _deposit(venue: Venue) -> Intent:
    assert await venue.taker.transfers_permit(await venue.signed_permit()) is True
    request = NewTransferRequest(
        qty=D(10),
        target_pool_location=venue.pool_id,
        counterparty=venue.sandbox.company_ids["ALPHA"],
        transfer_type=TransferType.DEPOSIT,
    )
    return Intent.of(WriteKind.TRANSFER, request)


async def _deposited(venue: Venue) -> Decimal:
    transfers = [t async for t in venue.taker.iterate("transfers", pool=venue.pool_id)]
    return sum((t.qty for t in transfers if t.transfer_type == "deposit"), D(0))


async def _permit(venue: Venue) -> Intent:
    return Intent.of(WriteKind.PERMIT, await venue.signed_permit())


async def _nonce(venue: Venue) -> int:
    return await venue.permit_nonce()


SCENARIOS = (
    Scenario(WriteKind.RFQ, "DESK", _rfq, _rfq_count),
    Scenario(WriteKind.QUOTE, "ALPHA", _quote, _quote_count),
    Scenario(WriteKind.REPLACE_QUOTE, "ALPHA", _replace, _quote_count),
    Scenario(WriteKind.CANCEL_QUOTE, "ALPHA", _cancel_quote, lambda v: v.canceled_quotes()),
    Scenario(WriteKind.CANCEL_ALL_QUOTES, "ALPHA", _cancel_all, lambda v: v.canceled_quotes(), 2),
    Scenario(WriteKind.ACCEPT, "DESK", _accept_quote, _clearing_events),
    Scenario(WriteKind.LAST_LOOK, "ALPHA", _last_look, _trade_count),
    Scenario(WriteKind.CANCEL_RFQ, "DESK", _cancel_rfq, _canceled_rfqs),
    Scenario(WriteKind.POOL, "DESK", _pool, _pool_count),
    Scenario(WriteKind.TRANSFER, "DESK", _deposit, _deposited, D(10)),
    Scenario(WriteKind.PERMIT, "DESK", _permit, _nonce),
)
"""One scenario per kind of write."""
