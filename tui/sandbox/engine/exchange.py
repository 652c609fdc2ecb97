"""The sandbox exchange's facade: one method per endpoint, over SQLite, on the sandbox clock.

The HTTP layer (`tui.sandbox.http`) authenticates, parses and calls the method named like the
endpoint (`tui.api.endpoints`). This facade runs what sandbox time made due first, runs each
write in ONE transaction (a `ServiceError` rolls it back whole; the machinery is
`tui.sandbox.engine.venue`'s) and hands the request to the room whose rules it is:

- ``/companies``: `tui.sandbox.engine.companies`; ``/portfolio/*``: `.statements`
- ``/rfqs*``: `.rfqs`; ``/quotes``, ``/quotes/new|cancel|replace``: `.quotes`;
  ``/quotes/accept``, ``/quotes/maker_last_look``: `.accepts`, then `.clearing`
- ``/settlement_pools*``: `.pools`; ``/transfers*`` and permits: `.transfers`
- ``/market_stats``: `.activity`; what falls due: `.timers`; rendering per viewer: `.views`

Rules every room shares (the contract leaves them open; decided here):

- **Scoping.** Every read is the caller's company's; an id of another company's record answers
  exactly like an unknown id (404/3000 for ids in POST bodies; an empty page for ``id=`` and
  ``pool=`` filters). The company directory (``/companies``) is public to every key.
- **Paging** is in creation order, oldest first (``ORDER BY seq``), so a page stays stable
  while new records are appended after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    AggregatedPosition,
    ApiRole,
    Asset,
    AuthInfo,
    CancelRequest,
    Company,
    MakerLastLookRequest,
    MakerLastLookResponse,
    MarketStats,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    PortfolioSummary,
    Position,
    Quote,
    QuoteAcceptResponse,
    ReplaceQuoteRequest,
    SettlementPool,
    Status,
    SubmitPermitRequest,
    SupportedAssetDetails,
    Trade,
    Transfer,
)
from tui.sandbox.engine import companies
from tui.sandbox.engine.activity import market_activity
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.venue import Venue

__all__ = ["Caller", "Exchange", "PageSlice"]

T = TypeVar("T")


@dataclass(frozen=True)
class Caller:
    """The authenticated key making a request."""

    company_id: str
    key_id: str
    role: ApiRole


@dataclass
class PageSlice(Generic[T]):
    """One page of records and whether more follow it."""

    items: list[T]
    has_more: bool


class Exchange(Venue):
    """The whole venue behind the HTTP layer: one method per endpoint (see the module docstring
    for the rooms that hold their rules, and `Venue` for the machinery under them)."""

    # -- companies and portfolio --------------------------------------------------------------

    def companies(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Company]:
        """Every company of the venue (a public directory), optionally one by id."""
        self._read()
        return PageSlice(*companies.company_page(self.store, limit=limit, offset=offset, id=id))

    def portfolio_assets(
        self, caller: Caller, *, limit: int, offset: int, pool: str | None = None
    ) -> PageSlice[Asset]:
        """USDC held in one pool, or (no ``pool``) one row per asset summed over all pools."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._statements.assets(me, limit=limit, offset=offset, pool=pool))

    def portfolio_positions(
        self, caller: Caller, *, limit: int, offset: int, pool: str | None = None
    ) -> PageSlice[Position]:
        """Open positions of the caller (one pool, or all), oldest first."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._statements.positions(me, limit=limit, offset=offset, pool=pool))

    def portfolio_aggregated_positions(
        self, caller: Caller, *, limit: int, offset: int
    ) -> PageSlice[AggregatedPosition]:
        """Open positions valued at the mark (greeks times qty, uPNL, notional)."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._statements.aggregated_positions(me, limit=limit, offset=offset))

    def portfolio_trades(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        pool: str | None = None,
        id: str | None = None,
    ) -> PageSlice[Trade]:
        """The caller's side of every booked trade leg, oldest first."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._statements.trades(me, limit=limit, offset=offset, pool=pool, id=id))

    def portfolio_summary(self, caller: Caller) -> PortfolioSummary:
        """Balance over all pools, and uPNL, notional and greeks of every open position."""
        self._read()
        return self._statements.summary(caller.company_id)

    # -- quotes -------------------------------------------------------------------------------

    def quotes(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Quote]:
        """Every quote the caller can see: its own (maker) and those on its RFQs (taker)."""
        self._read()
        me = caller.company_id
        return PageSlice(
            *self._quotes.page(me, "(maker = ? OR taker = ?)", [me, me], limit, offset, id)
        )

    def quotes_sent(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Quote]:
        """The caller's own quotes, whatever their state (canceled and replaced ones too)."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._quotes.page(me, "maker = ?", [me], limit, offset, id))

    def quotes_received(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Quote]:
        """Quotes other companies made on the caller's RFQs."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._quotes.page(me, "taker = ?", [me], limit, offset, id))

    def quotes_new(self, caller: Caller, body: NewQuoteRequest) -> Quote:
        """A maker's quote on an RFQ it was asked for."""
        with self._write() as now:
            return self._quotes.new(caller.company_id, body, now)

    def quotes_cancel(self, caller: Caller, body: CancelRequest) -> bool:
        """The maker withdraws one open quote (409 once it is no longer open)."""
        with self._write():
            self._quotes.cancel(caller.company_id, body)
        return True

    def quotes_cancel_all(self, caller: Caller) -> bool:
        """The maker withdraws every open quote it has (true even when there were none)."""
        with self._write():
            self._quotes.cancel_all(caller.company_id)
        return True

    def quotes_replace(self, caller: Caller, body: ReplaceQuoteRequest) -> Quote:
        """Cancel an open quote and quote anew on the same RFQ, atomically."""
        with self._write() as now:
            return self._quotes.replace(caller.company_id, body, now)

    def quotes_accept(self, caller: Caller, body: AcceptQuoteRequest) -> QuoteAcceptResponse:
        """The taker takes a quote's ask (``buy``) or bid (``sell``): a trade starts clearing.

        The refusals and their order are `tui.sandbox.engine.accepts`'s. A refusal recorded
        on the quote (``rejected_*``) commits before its 409 is raised.
        """
        with self._write() as now:
            outcome = self._accepts.accept(caller.company_id, body, now)
        if isinstance(outcome, ServiceError):
            raise outcome
        return outcome

    def quotes_maker_last_look(
        self, caller: Caller, body: MakerLastLookRequest
    ) -> MakerLastLookResponse:
        """The maker's final word on a trade in ``pending_maker_last_look`` (else 409)."""
        with self._write() as now:
            return self._accepts.last_look(caller.company_id, body, now)

    # -- RFQs ---------------------------------------------------------------------------------

    def rfqs_sent(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        id: str | None = None,
        price: bool = True,
    ) -> PageSlice[RFQ]:
        """The caller's own RFQs with every open quote on them and its margin for each."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._rfqs.sent(me, limit=limit, offset=offset, id=id, price=price))

    def rfqs_received(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        id: str | None = None,
        price: bool = True,
    ) -> PageSlice[RFQ]:
        """RFQs the caller was asked to quote, with its own quotes on them."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._rfqs.received(me, limit=limit, offset=offset, id=id, price=price))

    def rfqs_new(self, caller: Caller, body: NewRfqRequest) -> RFQ:
        """A taker asks the targeted companies for quotes on a structure."""
        with self._write() as now:
            return self._rfqs.new(caller.company_id, body, now)

    def rfqs_cancel(self, caller: Caller, body: CancelRequest) -> bool:
        """The taker withdraws an open RFQ (not while a trade is clearing on it)."""
        with self._write():
            self._rfqs.cancel(caller.company_id, body)
        return True

    # -- settlement pools and transfers -------------------------------------------------------

    def settlement_pools(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[SettlementPool]:
        """Pools the caller is a party of (pending, open and failed ones), oldest first."""
        self._read()
        return PageSlice(*self._pools.page(caller.company_id, limit=limit, offset=offset, id=id))

    def settlement_pools_new(
        self, caller: Caller, body: NewSettlementPoolRequest
    ) -> SettlementPool:
        """A new pool with one counterparty; it opens one block later."""
        with self._write() as now:
            return self._pools.new(caller.company_id, body, now)

    def transfers(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        pool: str | None = None,
        id: str | None = None,
    ) -> PageSlice[Transfer]:
        """The caller's deposits and withdrawals (its clearing deposits too), oldest first."""
        self._read()
        me = caller.company_id
        return PageSlice(*self._transfers.page(me, limit=limit, offset=offset, pool=pool, id=id))

    def transfers_new(self, caller: Caller, body: NewTransferRequest) -> Transfer:
        """A USDC deposit into, or withdrawal from, a pool; it confirms one block later."""
        with self._write() as now:
            return self._transfers.new(caller.company_id, body, now)

    def transfers_permit_template(self, caller: Caller, body: PermitTemplateRequest) -> dict:
        """The EIP-712 ERC-2612 permit for a pool of the caller to spend its wallet's USDC."""
        self._read()
        return self._transfers.permit_template(caller.company_id, body, self.clock.now_ms())

    def transfers_permit(self, caller: Caller, body: SubmitPermitRequest) -> bool:
        """Submit a signed permit: the pool address may then spend up to its value."""
        with self._write() as now:
            self._transfers.permit(caller.company_id, body, now)
        return True

    # -- utility ------------------------------------------------------------------------------

    def status(self, caller: Caller | None) -> Status:
        """The caller's identity (null when anonymous) and the server time in ms."""
        self.tick()
        auth = None
        if caller is not None:
            auth = AuthInfo(key_id=caller.key_id, company_id=caller.company_id, role=caller.role)
        return Status(auth=auth, server_timestamp_ms=self.clock.now_ms())

    def supported_assets(
        self, *, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """Token metadata of every listed underlying and of USDC, keyed by ticker."""
        return self.market.supported_assets(verified)

    def market_stats(self) -> MarketStats:
        """The public statistics record, from the venue's activity (`.activity`)."""
        self._read()
        now = self.clock.now_ms()
        return self.market.stats(market_activity(self.store, self.portfolio, self.market, now))
