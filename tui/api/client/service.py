"""`ServiceClient`: the signed async client of the trading API, one typed method per endpoint.

Method names are the catalogue names of `tui.api.endpoints` (``rfqs_received``, ``quotes_new``
...) and each is a thin wrapper: a bad argument is refused locally (`InvalidArgument` naming the
field) before any token is spent, then `Sender` sends the call (budget, signing, server clock,
retries: see `tui.api.client.transport` and `tui.api.client.retry`) and the answer is read as
the catalogue's response type says. The list endpoints and `iterate`, which pages through them,
come from `tui.api.client.lists`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import httpx

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget, asyncio_sleep
from tui.api.client.lists import ListCalls
from tui.api.client.retry import RetryPolicy
from tui.api.client.transport import CallInfo, Sender, keeping_free
from tui.api.client.wire import request_body
from tui.api.clock import ServerClock
from tui.api.endpoints import endpoint_named
from tui.api.signing import ServiceAuth

if TYPE_CHECKING:
    from pydantic import SecretStr

    from tui.api.models import (
        RFQ,
        AcceptQuoteRequest,
        MakerLastLookRequest,
        MakerLastLookResponse,
        NewQuoteRequest,
        NewRfqRequest,
        NewSettlementPoolRequest,
        NewTransferRequest,
        PermitTemplateRequest,
        PortfolioSummary,
        Quote,
        QuoteAcceptResponse,
        ReplaceQuoteRequest,
        Request,
        SettlementPool,
        Status,
        SubmitPermitRequest,
        SupportedAssetDetails,
        Transfer,
    )

__all__ = ["ServiceClient"]


class ServiceClient(ListCalls):
    """The signed client of the trading API; one per profile, shared by the whole desk.

    Use as ``async with ServiceClient(...) as client:`` (or call `aclose`). ``budget`` and
    ``clock`` may be shared with the desk's feed; ``transport`` replaces the network (tests);
    ``sleep`` and ``rng`` make retry waits testable; ``sleep`` and ``monotonic`` (seconds) are
    also what a budget made here (when ``budget`` is None) waits with. ``on_call`` is called
    after every HTTP exchange with a `CallInfo`.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        api_secret: str | SecretStr,
        *,
        budget: TokenBudget | None = None,
        clock: ServerClock | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float | httpx.Timeout = 10.0,
        max_attempts: int = 3,
        max_rate_limit_waits: int = 3,
        backoff_base_s: float = 0.25,
        backoff_cap_s: float = 4.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio_sleep,
        rng: random.Random | None = None,
        on_call: Callable[[CallInfo], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        # A budget made here waits with the injected ``sleep`` and ``monotonic`` (they go
        # together: a fake sleep must move the clock the budget reads), so tests never wait.
        self.budget = budget if budget is not None else TokenBudget(clock=monotonic, sleep=sleep)
        self.clock = clock if clock is not None else ServerClock()
        self._auth = ServiceAuth(api_key, api_secret, timestamp_ms=self.clock.now_ms)
        self._sender = Sender(
            self.base_url,
            self._auth,
            budget=self.budget,
            clock=self.clock,
            policy=RetryPolicy(max_attempts, max_rate_limit_waits),
            transport=transport,
            timeout=timeout,
            backoff_base_s=backoff_base_s,
            backoff_cap_s=backoff_cap_s,
            sleep=sleep,
            rng=rng or random.Random(),
            on_call=on_call,
        )

    def __repr__(self) -> str:
        return f"ServiceClient(base_url={self.base_url!r}, api_key={self.api_key!r})"

    __str__ = __repr__

    async def __aenter__(self) -> ServiceClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._sender.aclose()

    # -- what the desk reads -----------------------------------------------------------------

    @property
    def on_call(self) -> Callable[[CallInfo], None] | None:
        """Called after every HTTP exchange with its `CallInfo` (settable at any time)."""
        return self._sender.on_call

    @on_call.setter
    def on_call(self, hook: Callable[[CallInfo], None] | None) -> None:
        self._sender.on_call = hook

    @property
    def last_call(self) -> CallInfo | None:
        """The `CallInfo` of the latest HTTP exchange, if any."""
        return self._sender.last_call

    @property
    def last_latency_ms(self) -> float | None:
        """Round-trip time of the latest exchange that got a response, in ms."""
        return self._sender.last_latency_ms

    @property
    def tokens_used(self) -> int:
        """Request tokens spent in the current budget window."""
        return self.budget.used()

    @property
    def clock_offset_ms(self) -> int:
        """Server time minus local time as last learnt."""
        return self.clock.offset_ms

    @staticmethod
    def keeping_free(tokens: int = DESK_RESERVE_TOKENS) -> AbstractContextManager[None]:
        """Make the calls of the current task leave ``tokens`` of every budget window free.

        For background polling: ``with client.keeping_free(): await client.rfqs_received()``
        waits until the poll fits *and* 40 tokens stay free, so the user's own actions (made
        from other tasks, which are not affected) never wait behind a poll. It is a context
        variable, so it follows the task, not the client.
        """
        return keeping_free(tokens)

    # -- the calls ---------------------------------------------------------------------------

    async def _single(
        self, name: str, *, params: Mapping[str, Any] | None = None, body: Request | None = None
    ) -> Any:
        return await self._sender.single(endpoint_named(name), params=params, body=body)

    async def sync_clock(self) -> int:
        """Learn the server clock from an unsigned ``GET /v1/status``; returns the offset in ms.

        Unsigned, so a wrong clock cannot make the resynchronisation itself fail.
        """
        return await self._sender.sync_clock()

    # -- companies and portfolio -------------------------------------------------------------

    async def portfolio_summary(self) -> PortfolioSummary:
        """``GET /v1/portfolio/summary``: balance, uPNL and greeks of the whole book (cost 10)."""
        return await self._single("portfolio_summary")

    # -- quotes ------------------------------------------------------------------------------

    async def quotes_new(self, request: NewQuoteRequest) -> Quote:
        """``POST /v1/quotes/new``: quote every leg of an RFQ."""
        return await self._single("quotes_new", body=request)

    async def quotes_cancel(self, quote_id: str) -> bool:
        """``POST /v1/quotes/cancel``: withdraw one open quote."""
        body = request_body(endpoint_named("quotes_cancel"), id=quote_id)
        return await self._single("quotes_cancel", body=body)

    async def quotes_cancel_all(self) -> bool:
        """``POST /v1/quotes/cancel_all``: withdraw every open quote of this company (no body)."""
        return await self._single("quotes_cancel_all")

    async def quotes_replace(self, request: ReplaceQuoteRequest) -> Quote:
        """``POST /v1/quotes/replace``: cancel ``parent_quote_id`` and quote the RFQ anew."""
        return await self._single("quotes_replace", body=request)

    async def quotes_accept(self, request: AcceptQuoteRequest) -> QuoteAcceptResponse:
        """``POST /v1/quotes/accept``: the taker takes a quote; a trade starts clearing."""
        return await self._single("quotes_accept", body=request)

    async def quotes_maker_last_look(self, request: MakerLastLookRequest) -> MakerLastLookResponse:
        """``POST /v1/quotes/maker_last_look``: the maker's final accept or reject."""
        return await self._single("quotes_maker_last_look", body=request)

    # -- RFQs --------------------------------------------------------------------------------

    async def rfqs_new(self, request: NewRfqRequest) -> RFQ:
        """``POST /v1/rfqs/new``: ask the target companies for quotes on a structure."""
        return await self._single("rfqs_new", body=request)

    async def rfqs_cancel(self, rfq_id: str) -> bool:
        """``POST /v1/rfqs/cancel``: withdraw one open RFQ."""
        body = request_body(endpoint_named("rfqs_cancel"), id=rfq_id)
        return await self._single("rfqs_cancel", body=body)

    # -- pools and transfers -----------------------------------------------------------------

    async def settlement_pools_new(self, request: NewSettlementPoolRequest) -> SettlementPool:
        """``POST /v1/settlement_pools/new``: open a pool with one counterparty."""
        return await self._single("settlement_pools_new", body=request)

    async def transfers_new(self, request: NewTransferRequest) -> Transfer:
        """``POST /v1/transfers/new``: deposit USDC into, or withdraw it from, a pool."""
        return await self._single("transfers_new", body=request)

    async def transfers_permit_template(self, request: PermitTemplateRequest) -> dict[str, Any]:
        """``POST /v1/transfers/permit/template``: the EIP-712 permit to sign (cost 1)."""
        return await self._single("transfers_permit_template", body=request)

    async def transfers_permit(self, request: SubmitPermitRequest) -> bool:
        """``POST /v1/transfers/permit``: submit a signed permit so the pool may spend funds."""
        return await self._single("transfers_permit", body=request)

    async def write(self, name: str, body: Request | None = None) -> Any:
        """Send the write ``name`` of the catalogue with a body already built; its answer.

        The one door for code that handles every kind of write alike (`tui.api.writes`).
        """
        endpoint = endpoint_named(name)
        if not endpoint.writes:
            raise ValueError(f"{name} is not a write")
        return await self._sender.single(endpoint, body=body)

    # -- utility -----------------------------------------------------------------------------

    async def status(self) -> Status:
        """``GET /v1/status``: server time, and who the credentials belong to (signed)."""
        return await self._single("status")

    async def supported_assets(
        self, *, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """``GET /v1/metadata/supported_assets``: token metadata by asset."""
        return await self._single("supported_assets", params={"verified": verified})
