"""`ServiceClient`: the signed async client of the trading API, one typed method per endpoint.

Method names are the catalogue names of `tui.api.endpoints` (``rfqs_received``, ``quotes_new``
...). Every call:

- is refused locally when an argument is bad (`InvalidArgument` naming the field), before any
  token is spent;
- waits for its request tokens in the shared `TokenBudget` (so the client itself never causes
  a 429), and obeys the server's reset time if one comes back anyway;
- is signed with the server-corrected clock (`ServerClock`), which learns from every response's
  ``X-Request-Received-Ms``; a 401 "timestamp skew" resynchronises once and retries once;
- sends a POST body serialised once to compact JSON bytes, so the signed bytes are the sent bytes.

Retries. A GET is idempotent: connection failures, timeouts and 5xx are retried with jittered
exponential backoff, up to ``max_attempts``; a 429 on a GET waits for the reset and retries. A
POST is resent only when the server provably did not act on it: a failure to connect (the
request never left), or a 401 skew refusal (refused before acting). Any other POST failure is
raised (`ConnectionLost.maybe_sent` tells the desk to check before trying again), and a 429 on a
POST is raised as `RateLimited` so the user decides whether a quote is still worth sending.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import Any, TypeVar, overload
from uuid import UUID

import httpx
from pydantic import BaseModel, SecretStr, TypeAdapter, ValidationError

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.api.clock import RECEIVED_HEADER, ServerClock
from tui.api.endpoints import Endpoint, Method, endpoint_named
from tui.api.errors import (
    InvalidArgument,
    MalformedResponse,
    RateLimited,
    ServerError,
    TimestampSkew,
    backoff_delay,
    error_from_response,
    transport_error,
)
from tui.api.jsonwire import decode_json
from tui.api.models import (
    RFQ,
    AcceptQuoteRequest,
    AggregatedPosition,
    Asset,
    CancelRequest,
    Company,
    MakerLastLookRequest,
    MakerLastLookResponse,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    Page,
    PermitTemplateRequest,
    PortfolioSummary,
    Position,
    Quote,
    QuoteAcceptResponse,
    ReplaceQuoteRequest,
    Request,
    SettlementPool,
    Status,
    SubmitPermitRequest,
    SupportedAssetDetails,
    Trade,
    Transfer,
)
from tui.api.signing import ServiceAuth
from tui.api.types import decimal_to_wire, format_timestamp

__all__ = ["PAGED_ENDPOINTS", "CallInfo", "ServiceClient", "encode_body", "encode_query"]

_log = logging.getLogger(__name__)

_KEEP_FREE: ContextVar[int] = ContextVar("rfq_desk_keep_free", default=0)
"""Tokens the calls of the current task must leave free (set by `ServiceClient.keeping_free`)."""

R = TypeVar("R")
RequestT = TypeVar("RequestT", bound=Request)


@dataclass(frozen=True, slots=True)
class _Paged:
    record: type[BaseModel]
    endpoint: Endpoint

    @property
    def filters(self) -> tuple[str, ...]:
        """The query filters the endpoint takes besides limit/offset (from the catalogue)."""
        return self.endpoint.filters


def _paged(name: str, record: type[BaseModel]) -> tuple[str, _Paged]:
    return name, _Paged(record, endpoint_named(name))


PAGED_ENDPOINTS: dict[str, _Paged] = dict(
    [
        _paged("companies", Company),
        _paged("portfolio_assets", Asset),
        _paged("portfolio_positions", Position),
        _paged("portfolio_aggregated_positions", AggregatedPosition),
        _paged("portfolio_trades", Trade),
        _paged("quotes", Quote),
        _paged("quotes_sent", Quote),
        _paged("quotes_received", Quote),
        _paged("rfqs_sent", RFQ),
        _paged("rfqs_received", RFQ),
        _paged("settlement_pools", SettlementPool),
        _paged("transfers", Transfer),
    ]
)
"""Every list endpoint: the record it pages over (its filters come from the catalogue)."""

_BOOL = TypeAdapter(bool)
_DICT = TypeAdapter(dict[str, Any])
_SUPPORTED_ASSETS = TypeAdapter(dict[str, list[SupportedAssetDetails]])
_STATUS = TypeAdapter(Status)
_QUOTE = TypeAdapter(Quote)
_RFQ = TypeAdapter(RFQ)
_SUMMARY = TypeAdapter(PortfolioSummary)
_ACCEPTED = TypeAdapter(QuoteAcceptResponse)
_LAST_LOOK = TypeAdapter(MakerLastLookResponse)
_POOL = TypeAdapter(SettlementPool)
_TRANSFER = TypeAdapter(Transfer)


@dataclass(frozen=True, slots=True)
class CallInfo:
    """What one HTTP exchange cost and how it went, for the desk's status bar.

    ``status`` is 0 when no response came back; ``attempt`` counts from 1 within one call.
    """

    endpoint: str
    status: int
    latency_ms: float
    attempt: int
    tokens_used: int
    clock_offset_ms: int


@dataclass(frozen=True, slots=True)
class _Reply:
    data: Any
    sent_local_ms: int
    received_local_ms: int


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Decimal):
        return decimal_to_wire(value)
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, UUID):
        return str(value)
    return str(value)


def encode_query(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Query parameters as sent: None omitted, booleans ``true``/``false``, strings as given."""
    return [(key, _query_value(value)) for key, value in params.items() if value is not None]


def encode_body(body: Request) -> bytes:
    """A request model as the exact bytes to send (and sign): compact UTF-8 JSON.

    Raises `InvalidArgument` for text that UTF-8 cannot carry (an unpaired surrogate in a
    free-text field), rather than a bare UnicodeEncodeError.
    """
    text = json.dumps(body.to_wire(), separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument("body", "text must not contain unpaired surrogates") from None


def _label(endpoint: Endpoint) -> str:
    return f"{endpoint.method.value} {endpoint.path}"


def _validation_summary(exc: ValidationError, limit: int = 3) -> str:
    parts = []
    for error in exc.errors(include_url=False, include_input=False)[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "result"
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def _first_field(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False, include_input=False)
    loc = errors[0]["loc"] if errors else ()
    return ".".join(str(p) for p in loc) or "request"


class ServiceClient:
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
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
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
        self.max_attempts = max_attempts
        self.max_rate_limit_waits = max_rate_limit_waits
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.on_call = on_call
        self.last_latency_ms: float | None = None
        self.last_call: CallInfo | None = None
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._auth = ServiceAuth(api_key, api_secret, timestamp_ms=self.clock.now_ms)
        self._sync_lock = asyncio.Lock()
        self._sync_generation = 0
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            transport=transport,
            timeout=timeout,
            # Idle connections are dropped before a typical server's 5 s keep-alive ends, so a
            # POST is not written into a socket the server is closing (it could not be resent).
            limits=httpx.Limits(keepalive_expiry=2.0),
            headers={"accept": "application/json"},
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
        await self._http.aclose()

    # -- what the desk reads -----------------------------------------------------------------

    @property
    def tokens_used(self) -> int:
        """Request tokens spent in the current budget window."""
        return self.budget.used()

    @property
    def clock_offset_ms(self) -> int:
        """Server time minus local time as last learnt."""
        return self.clock.offset_ms

    @staticmethod
    @contextmanager
    def keeping_free(tokens: int = DESK_RESERVE_TOKENS) -> Iterator[None]:
        """Make the calls of the current task leave ``tokens`` of every budget window free.

        For background polling: ``with client.keeping_free(): await client.rfqs_received()``
        waits until the poll fits *and* 40 tokens stay free, so the user's own actions (made
        from other tasks, which are not affected) never wait behind a poll. It is a context
        variable, so it follows the task, not the client.
        """
        if tokens < 0:
            raise ValueError("tokens must not be negative")
        marker = _KEEP_FREE.set(tokens)
        try:
            yield
        finally:
            _KEEP_FREE.reset(marker)

    # -- the exchange ------------------------------------------------------------------------

    def _notify(self, endpoint: Endpoint, status: int, latency_ms: float, attempt: int) -> None:
        info = CallInfo(
            endpoint=endpoint.name,
            status=status,
            latency_ms=latency_ms,
            attempt=attempt,
            tokens_used=self.budget.used(),
            clock_offset_ms=self.clock.offset_ms,
        )
        self.last_call = info
        if self.on_call is not None:
            try:
                self.on_call(info)
            except Exception:
                # A display hook must never turn a completed trade call into a failure.
                _log.exception("on_call hook failed")

    async def _backoff(self, attempt: int) -> None:
        await self._sleep(
            backoff_delay(
                attempt, base_s=self.backoff_base_s, cap_s=self.backoff_cap_s, rng=self._rng
            )
        )

    async def _request(
        self,
        name: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Request | None = None,
        signed: bool = True,
    ) -> _Reply:
        """Send one call with budget, signing, clock learning, retries and error mapping."""
        endpoint = endpoint_named(name)
        label = _label(endpoint)
        query = tuple(encode_query(params or {}))
        content = encode_body(body) if body is not None else None
        headers = {"content-type": "application/json"} if content is not None else None
        idempotent = endpoint.method is Method.GET
        attempt = 0
        rate_limit_waits = 0
        resynced = False
        while True:
            attempt += 1
            await self.budget.acquire(endpoint.cost, keep_free=_KEEP_FREE.get())
            request = self._http.build_request(
                endpoint.method.value, endpoint.path, params=query, content=content, headers=headers
            )
            generation = self._sync_generation
            sent = self.clock.local_ms()
            started = time.perf_counter()
            try:
                response = await self._http.send(request, auth=self._auth if signed else None)
            except httpx.TransportError as exc:
                latency = (time.perf_counter() - started) * 1000
                self._notify(endpoint, 0, latency, attempt)
                lost = transport_error(exc, label)
                if (idempotent or not lost.maybe_sent) and attempt < self.max_attempts:
                    await self._backoff(attempt)
                    continue
                raise lost from exc
            received = self.clock.local_ms()
            latency = (time.perf_counter() - started) * 1000
            self.last_latency_ms = latency
            self.clock.observe_header(response.headers.get(RECEIVED_HEADER), sent, received)
            self._notify(endpoint, response.status_code, latency, attempt)
            if response.status_code == 200:
                return _Reply(self._decode(response, label), sent, received)

            error = error_from_response(response, label)
            if isinstance(error, RateLimited):
                self.budget.penalize(error.resets_in_ms)
                if idempotent and rate_limit_waits < self.max_rate_limit_waits:
                    rate_limit_waits += 1
                    attempt -= 1  # waiting out the budget is not a failed attempt
                    continue  # the budget now waits for the reset before the next send
                raise error
            if isinstance(error, TimestampSkew) and signed and not resynced:
                # Refused before acting, so even a POST may go again once the clock is right.
                resynced = True
                await self._resync_after(generation)
                attempt -= 1
                continue
            if isinstance(error, ServerError) and idempotent and attempt < self.max_attempts:
                await self._backoff(attempt)
                continue
            raise error

    @staticmethod
    def _decode(response: httpx.Response, label: str) -> Any:
        try:
            return decode_json(response.content)
        except (ValueError, UnicodeDecodeError):
            raise MalformedResponse(
                "the response is not JSON", status=response.status_code, endpoint=label
            ) from None

    @staticmethod
    def _result(reply: _Reply, label: str) -> Any:
        data = reply.data
        if not isinstance(data, dict) or "result" not in data:
            raise MalformedResponse("the response has no 'result'", status=200, endpoint=label)
        return data["result"]

    def _parse(self, adapter: TypeAdapter[R], value: Any, label: str) -> R:
        try:
            return adapter.validate_python(value)
        except ValidationError as exc:
            raise MalformedResponse(
                f"unexpected response: {_validation_summary(exc)}", status=200, endpoint=label
            ) from None

    async def _single(
        self,
        name: str,
        adapter: TypeAdapter[R],
        *,
        params: Mapping[str, Any] | None = None,
        body: Request | None = None,
    ) -> R:
        label = _label(endpoint_named(name))
        reply = await self._request(name, params=params, body=body)
        return self._parse(adapter, self._result(reply, label), label)

    def _check_paging(self, name: str, limit: Any, offset: Any) -> None:
        endpoint = endpoint_named(name)
        label = _label(endpoint)
        maximum = endpoint.max_limit
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int):
                raise InvalidArgument("limit", "must be a whole number", endpoint=label)
            if limit < 1:
                raise InvalidArgument("limit", "must be at least 1", endpoint=label)
            if maximum is not None and limit > maximum:
                raise InvalidArgument(
                    "limit", f"must be at most {maximum} for {name} (got {limit})", endpoint=label
                )
        if offset is not None:
            if isinstance(offset, bool) or not isinstance(offset, int):
                raise InvalidArgument("offset", "must be a whole number", endpoint=label)
            if offset < 0:
                raise InvalidArgument("offset", "must not be negative", endpoint=label)

    async def _page(self, name: str, params: Mapping[str, Any]) -> Page[Any]:
        label = _label(endpoint_named(name))
        reply = await self._request(name, params=params)
        adapter: TypeAdapter[Page[Any]] = _page_adapter(name)
        return self._parse(adapter, reply.data, label)

    async def _list(self, name: str, params: dict[str, Any]) -> Page[Any]:
        self._check_paging(name, params.get("limit"), params.get("offset"))
        return await self._page(name, params)

    @staticmethod
    def _build(model: type[RequestT], label: str, **values: Any) -> RequestT:
        try:
            return model(**values)
        except ValidationError as exc:
            raise InvalidArgument(
                _first_field(exc), _validation_summary(exc), endpoint=label
            ) from None

    async def _post(self, name: str, adapter: TypeAdapter[R], body: Request | None) -> R:
        return await self._single(name, adapter, body=body)

    # -- clock -------------------------------------------------------------------------------

    async def sync_clock(self) -> int:
        """Learn the server clock from an unsigned ``GET /v1/status``; returns the offset in ms.

        Unsigned, so a wrong clock cannot make the resynchronisation itself fail.
        """
        reply = await self._request("status", signed=False)
        label = _label(endpoint_named("status"))
        status = self._parse(_STATUS, self._result(reply, label), label)
        self.clock.reset()
        self.clock.observe(status.server_timestamp_ms, reply.sent_local_ms, reply.received_local_ms)
        self._sync_generation += 1
        return self.clock.offset_ms

    async def _resync_after(self, generation: int) -> None:
        # Many calls refused together resynchronise once: the first one does, the rest see
        # the generation moved on and just retry.
        async with self._sync_lock:
            if self._sync_generation == generation:
                await self.sync_clock()

    # -- paging ------------------------------------------------------------------------------

    @overload
    def iterate(
        self, endpoint: Callable[..., Awaitable[Page[R]]], **filters: Any
    ) -> AsyncIterator[R]: ...

    @overload
    def iterate(self, endpoint: str, **filters: Any) -> AsyncIterator[Any]: ...

    def iterate(
        self, endpoint: str | Callable[..., Awaitable[Page[Any]]], **filters: Any
    ) -> AsyncIterator[Any]:
        """Every record of a list endpoint, page after page, following ``next_page``.

        ``endpoint`` is a catalogue name (``"rfqs_received"``) or the bound list method
        (``client.rfqs_received``); ``filters`` are that method's keyword arguments. Each
        further page is asked with the filters plus the ``next_page`` values, sent back
        exactly as the server gave them.
        """
        name = endpoint if isinstance(endpoint, str) else getattr(endpoint, "__name__", "")
        paged = PAGED_ENDPOINTS.get(name)
        if paged is None:
            raise InvalidArgument("endpoint", f"{name!r} is not a list endpoint")
        allowed = (*paged.filters, "limit", "offset")
        for key in filters:
            if key not in allowed:
                raise InvalidArgument(
                    key, f"is not a filter of {name} (allowed: {', '.join(allowed)})"
                )
        self._check_paging(name, filters.get("limit"), filters.get("offset"))
        return self._iterate(name, dict(filters))

    async def _iterate(self, name: str, filters: dict[str, Any]) -> AsyncIterator[Any]:
        params = filters
        seen: set[tuple[tuple[str, str], ...]] = set()
        while True:
            page = await self._page(name, params)
            for record in page.result:
                yield record
            next_page = page.pagination.next_page
            if not next_page:
                return
            key = tuple(sorted(encode_query(next_page)))
            if key in seen:
                raise MalformedResponse(
                    "pagination points back to a page already read",
                    status=200,
                    endpoint=_label(endpoint_named(name)),
                )
            seen.add(key)
            params = {**filters, **next_page}

    # -- companies and portfolio -------------------------------------------------------------

    async def companies(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Company]:
        """``GET /v1/companies``: companies on the venue, optionally one by id."""
        return await self._list("companies", {"id": id, "limit": limit, "offset": offset})

    async def portfolio_assets(
        self, *, pool: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Asset]:
        """``GET /v1/portfolio/assets``: balances in one pool, or summed over all pools."""
        return await self._list(
            "portfolio_assets", {"pool": pool, "limit": limit, "offset": offset}
        )

    async def portfolio_positions(
        self, *, pool: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Position]:
        """``GET /v1/portfolio/positions``: positions in one pool, or in all pools."""
        return await self._list(
            "portfolio_positions", {"pool": pool, "limit": limit, "offset": offset}
        )

    async def portfolio_aggregated_positions(
        self, *, limit: int | None = None, offset: int | None = None
    ) -> Page[AggregatedPosition]:
        """``GET /v1/portfolio/positions/aggregated``: positions valued at the mark (cost 10)."""
        return await self._list(
            "portfolio_aggregated_positions", {"limit": limit, "offset": offset}
        )

    async def portfolio_trades(
        self,
        *,
        pool: str | None = None,
        id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[Trade]:
        """``GET /v1/portfolio/trades``: the company's trades, by pool or trade id."""
        return await self._list(
            "portfolio_trades", {"pool": pool, "id": id, "limit": limit, "offset": offset}
        )

    async def portfolio_summary(self) -> PortfolioSummary:
        """``GET /v1/portfolio/summary``: balance, uPNL and greeks of the whole book (cost 10)."""
        return await self._single("portfolio_summary", _SUMMARY)

    # -- quotes ------------------------------------------------------------------------------

    async def quotes(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Quote]:
        """``GET /v1/quotes``: the maker's own quotes, including cancelled and replaced ones."""
        return await self._list("quotes", {"id": id, "limit": limit, "offset": offset})

    async def quotes_sent(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Quote]:
        """``GET /v1/quotes/sent``: quotes this company sent as maker."""
        return await self._list("quotes_sent", {"id": id, "limit": limit, "offset": offset})

    async def quotes_received(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Quote]:
        """``GET /v1/quotes/received``: quotes made on this company's RFQs."""
        return await self._list("quotes_received", {"id": id, "limit": limit, "offset": offset})

    async def quotes_new(self, request: NewQuoteRequest) -> Quote:
        """``POST /v1/quotes/new``: quote every leg of an RFQ."""
        return await self._post("quotes_new", _QUOTE, request)

    async def quotes_cancel(self, quote_id: str) -> bool:
        """``POST /v1/quotes/cancel``: withdraw one open quote."""
        body = self._build(CancelRequest, "POST /v1/quotes/cancel", id=quote_id)
        return await self._post("quotes_cancel", _BOOL, body)

    async def quotes_cancel_all(self) -> bool:
        """``POST /v1/quotes/cancel_all``: withdraw every open quote of this company (no body)."""
        return await self._post("quotes_cancel_all", _BOOL, None)

    async def quotes_replace(self, request: ReplaceQuoteRequest) -> Quote:
        """``POST /v1/quotes/replace``: cancel ``parent_quote_id`` and quote the RFQ anew."""
        return await self._post("quotes_replace", _QUOTE, request)

    async def quotes_accept(self, request: AcceptQuoteRequest) -> QuoteAcceptResponse:
        """``POST /v1/quotes/accept``: the taker takes a quote; a trade starts clearing."""
        return await self._post("quotes_accept", _ACCEPTED, request)

    async def quotes_maker_last_look(self, request: MakerLastLookRequest) -> MakerLastLookResponse:
        """``POST /v1/quotes/maker_last_look``: the maker's final accept or reject."""
        return await self._post("quotes_maker_last_look", _LAST_LOOK, request)

    # -- RFQs --------------------------------------------------------------------------------

    async def rfqs_sent(
        self,
        *,
        id: str | None = None,
        price: bool | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[RFQ]:
        """``GET /v1/rfqs/sent``: this company's RFQs (cost 10); ``price`` fills structure_price."""
        return await self._list(
            "rfqs_sent", {"id": id, "price": price, "limit": limit, "offset": offset}
        )

    async def rfqs_received(
        self,
        *,
        id: str | None = None,
        price: bool | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[RFQ]:
        """``GET /v1/rfqs/received``: RFQs that target this company (cost 10)."""
        return await self._list(
            "rfqs_received", {"id": id, "price": price, "limit": limit, "offset": offset}
        )

    async def rfqs_new(self, request: NewRfqRequest) -> RFQ:
        """``POST /v1/rfqs/new``: ask the target companies for quotes on a structure."""
        return await self._post("rfqs_new", _RFQ, request)

    async def rfqs_cancel(self, rfq_id: str) -> bool:
        """``POST /v1/rfqs/cancel``: withdraw one open RFQ."""
        body = self._build(CancelRequest, "POST /v1/rfqs/cancel", id=rfq_id)
        return await self._post("rfqs_cancel", _BOOL, body)

    # -- pools and transfers -----------------------------------------------------------------

    async def settlement_pools(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[SettlementPool]:
        """``GET /v1/settlement_pools``: pools this company is party to (cost 10)."""
        return await self._list("settlement_pools", {"id": id, "limit": limit, "offset": offset})

    async def settlement_pools_new(self, request: NewSettlementPoolRequest) -> SettlementPool:
        """``POST /v1/settlement_pools/new``: open a pool with one counterparty."""
        return await self._post("settlement_pools_new", _POOL, request)

    async def transfers(
        self,
        *,
        pool: str | None = None,
        id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[Transfer]:
        """``GET /v1/transfers``: deposits, withdrawals and clearing movements."""
        return await self._list(
            "transfers", {"pool": pool, "id": id, "limit": limit, "offset": offset}
        )

    async def transfers_new(self, request: NewTransferRequest) -> Transfer:
        """``POST /v1/transfers/new``: deposit USDC into, or withdraw it from, a pool."""
        return await self._post("transfers_new", _TRANSFER, request)

    async def transfers_permit_template(self, request: PermitTemplateRequest) -> dict[str, Any]:
        """``POST /v1/transfers/permit/template``: the EIP-712 permit to sign (cost 1)."""
        return await self._post("transfers_permit_template", _DICT, request)

    async def transfers_permit(self, request: SubmitPermitRequest) -> bool:
        """``POST /v1/transfers/permit``: submit a signed permit so the pool may spend funds."""
        return await self._post("transfers_permit", _BOOL, request)

    # -- utility -----------------------------------------------------------------------------

    async def status(self) -> Status:
        """``GET /v1/status``: server time, and who the credentials belong to (signed)."""
        return await self._single("status", _STATUS)

    async def supported_assets(
        self, *, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """``GET /v1/metadata/supported_assets``: token metadata by asset."""
        return await self._single(
            "supported_assets", _SUPPORTED_ASSETS, params={"verified": verified}
        )


_PAGE_ADAPTERS: dict[str, TypeAdapter[Page[Any]]] = {}


def _page_adapter(name: str) -> TypeAdapter[Page[Any]]:
    adapter = _PAGE_ADAPTERS.get(name)
    if adapter is None:
        record = PAGED_ENDPOINTS[name].record
        adapter = TypeAdapter(Page[record])  # type: ignore[valid-type]
        _PAGE_ADAPTERS[name] = adapter
    return adapter
