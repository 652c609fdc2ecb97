"""Sending one call of the trading API: budget, signing, clock, retries, notification, decoding.

`Sender` owns the httpx connection pool of one `ServiceClient`. For every call it waits for
the request tokens in the shared `TokenBudget` (leaving the task's `keeping_free` reserve),
signs with `ServiceAuth` on the server-corrected `ServerClock` (which learns from every
response's ``X-Request-Received-Ms``), sends the body as the exact bytes that were signed,
reports each HTTP exchange as a `CallInfo`, lets `RetryPolicy` decide what a failure leads to,
and decodes the JSON envelope of the answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar
from uuid import UUID

import httpx
from pydantic import ValidationError

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget
from tui.api.client.retry import Action, RetryPolicy, Tries, outcome_of
from tui.api.clock import RECEIVED_HEADER, ServerClock
from tui.api.endpoints import Endpoint, endpoint_named
from tui.api.errors import (
    ApiError,
    InvalidArgument,
    MalformedResponse,
    RateLimited,
    backoff_delay,
    error_from_response,
    transport_error,
)
from tui.api.jsonwire import decode_json
from tui.api.models import Request
from tui.api.signing import ServiceAuth
from tui.api.types import decimal_to_wire, format_timestamp

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = [
    "CallInfo",
    "Reply",
    "Sender",
    "encode_body",
    "encode_query",
    "endpoint_label",
    "keeping_free",
    "parse",
    "parse_result",
    "read_result",
    "request_body",
    "validation_summary",
]

_log = logging.getLogger(__name__)

R = TypeVar("R")

_KEEP_FREE: ContextVar[int] = ContextVar("rfq_desk_keep_free", default=0)
"""Tokens the calls of the current task must leave free (set by `keeping_free`)."""


@contextmanager
def keeping_free(tokens: int = DESK_RESERVE_TOKENS) -> Iterator[None]:
    """Make the calls of the current task leave ``tokens`` of every budget window free.

    A context variable, so it follows the task, not the client: calls made from other tasks
    (the user's own actions) are not affected.
    """
    if tokens < 0:
        raise ValueError("tokens must not be negative")
    marker = _KEEP_FREE.set(tokens)
    try:
        yield
    finally:
        _KEEP_FREE.reset(marker)


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


class Reply(NamedTuple):
    """The decoded JSON of a 200 answer, and the local times (ms) it was sent and received."""

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


def request_body(endpoint: Endpoint, **values: Any) -> Request:
    """The endpoint's body model made from plain arguments (an id to cancel), checked now.

    A bad value is refused as `InvalidArgument` naming the field, before any token is spent.
    """
    if endpoint.request is None:
        raise TypeError(f"{endpoint.name} takes no body")
    try:
        return endpoint.request(**values)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        field = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        raise InvalidArgument(
            field or "request", validation_summary(exc), endpoint=endpoint_label(endpoint)
        ) from None


def endpoint_label(endpoint: Endpoint) -> str:
    """How errors name an endpoint: method and path (``GET /v1/companies``), never the query."""
    return f"{endpoint.method.value} {endpoint.path}"


def validation_summary(exc: ValidationError, limit: int = 3) -> str:
    """The first ``limit`` problems of a validation error, each with where it is, on one line."""
    parts = []
    for error in exc.errors(include_url=False, include_input=False)[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "result"
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def parse(adapter: TypeAdapter[R], value: Any, label: str) -> R:
    """``value`` read by ``adapter``; an answer that does not fit is a `MalformedResponse`."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise MalformedResponse(
            f"unexpected response: {validation_summary(exc)}", status=200, endpoint=label
        ) from None


_RESULT_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


def _result_adapter(endpoint: Endpoint) -> TypeAdapter[Any]:
    # Built on first use (not at import) and kept: one per endpoint of the catalogue.
    adapter = _RESULT_ADAPTERS.get(endpoint.name)
    if adapter is None:
        from pydantic import TypeAdapter  # loaded with the first adapter, not at import

        adapter = TypeAdapter(endpoint.response)
        _RESULT_ADAPTERS[endpoint.name] = adapter
    return adapter


def _decode(response: httpx.Response, label: str) -> Any:
    try:
        return decode_json(response.content)
    except (ValueError, UnicodeDecodeError):
        raise MalformedResponse(
            "the response is not JSON", status=response.status_code, endpoint=label
        ) from None


def parse_result(endpoint: Endpoint, value: Any) -> Any:
    """A ``result`` value read as the catalogue's response type (a `MalformedResponse` if it
    does not fit): an answer's, or a copy of one kept as JSON (the writes journal's)."""
    return parse(_result_adapter(endpoint), value, endpoint_label(endpoint))


def read_result(endpoint: Endpoint, reply: Reply) -> Any:
    """The ``result`` of a ``{"result": ...}`` answer, read as the catalogue's response type."""
    data = reply.data
    if not isinstance(data, dict) or "result" not in data:
        raise MalformedResponse(
            "the response has no 'result'", status=200, endpoint=endpoint_label(endpoint)
        )
    return parse_result(endpoint, data["result"])


class Sender:
    """Sends the calls of one `ServiceClient` and keeps what the desk reads about them.

    ``last_latency_ms`` and ``last_call`` describe the latest exchange; ``on_call`` (may be
    set at any time) is called after every exchange with its `CallInfo`.
    """

    def __init__(
        self,
        base_url: str,
        auth: ServiceAuth,
        *,
        budget: TokenBudget,
        clock: ServerClock,
        policy: RetryPolicy,
        transport: httpx.AsyncBaseTransport | None,
        timeout: float | httpx.Timeout,
        backoff_base_s: float,
        backoff_cap_s: float,
        sleep: Callable[[float], Awaitable[None]],
        rng: random.Random,
        on_call: Callable[[CallInfo], None] | None,
    ) -> None:
        self.auth = auth
        self.budget = budget
        self.clock = clock
        self.policy = policy
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.on_call = on_call
        self.last_latency_ms: float | None = None
        self.last_call: CallInfo | None = None
        self._sleep = sleep
        self._rng = rng
        self._sync_lock = asyncio.Lock()
        self._sync_generation = 0
        self._http = httpx.AsyncClient(
            base_url=base_url,
            transport=transport,
            timeout=timeout,
            # Idle connections are dropped before a typical server's 5 s keep-alive ends, so a
            # POST is not written into a socket the server is closing (it could not be resent).
            limits=httpx.Limits(keepalive_expiry=2.0),
            headers={"accept": "application/json"},
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

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

    async def call(
        self,
        endpoint: Endpoint,
        *,
        params: Mapping[str, Any] | None = None,
        body: Request | None = None,
        signed: bool = True,
    ) -> Reply:
        """Send one call, with as many attempts as `RetryPolicy` allows; the 200 answer's JSON.

        Raises the `ApiError` of the last attempt when the policy gives up, and a
        `MalformedResponse` (never retried) when a 200 answer is not JSON.
        """
        label = endpoint_label(endpoint)
        query = tuple(encode_query(params or {}))
        content = encode_body(body) if body is not None else None
        headers = {"content-type": "application/json"} if content is not None else None
        tries = Tries()
        while True:
            await self.budget.acquire(endpoint.cost, keep_free=_KEEP_FREE.get())
            request = self._http.build_request(
                endpoint.method.value, endpoint.path, params=query, content=content, headers=headers
            )
            generation = self._sync_generation
            sent = self.clock.local_ms()
            started = time.perf_counter()
            cause: httpx.TransportError | None = None
            error: ApiError
            try:
                response = await self._http.send(request, auth=self.auth if signed else None)
            except httpx.TransportError as exc:
                self._notify(endpoint, 0, (time.perf_counter() - started) * 1000, tries.attempt)
                cause, error = exc, transport_error(exc, label)
            else:
                received = self.clock.local_ms()
                latency = (time.perf_counter() - started) * 1000
                self.last_latency_ms = latency
                self.clock.observe_header(response.headers.get(RECEIVED_HEADER), sent, received)
                self._notify(endpoint, response.status_code, latency, tries.attempt)
                if response.status_code == 200:
                    return Reply(_decode(response, label), sent, received)
                error = error_from_response(response, label)
                if isinstance(error, RateLimited):
                    # Whether or not the call goes again, the budget waits for the reset.
                    self.budget.penalize(error.resets_in_ms)

            action = self.policy.decide(endpoint.method, tries, outcome_of(error, signed=signed))
            if action is Action.RAISE:
                if cause is not None:
                    raise error from cause
                raise error
            if action is Action.BACKOFF:
                await self._sleep(
                    backoff_delay(
                        tries.attempt,
                        base_s=self.backoff_base_s,
                        cap_s=self.backoff_cap_s,
                        rng=self._rng,
                    )
                )
            elif action is Action.RESYNC_CLOCK:
                await self._resync_after(generation)
            tries = tries.after(action)

    async def single(
        self,
        endpoint: Endpoint,
        *,
        params: Mapping[str, Any] | None = None,
        body: Request | None = None,
    ) -> Any:
        """Send one call and read its ``result`` as the catalogue's response type says."""
        return read_result(endpoint, await self.call(endpoint, params=params, body=body))

    async def sync_clock(self) -> int:
        """Learn the server clock from an unsigned ``GET /v1/status``; returns the offset in ms.

        Unsigned, so a wrong clock cannot make the resynchronisation itself fail.
        """
        status = endpoint_named("status")
        reply = await self.call(status, signed=False)
        record = read_result(status, reply)
        self.clock.reset()
        self.clock.observe(record.server_timestamp_ms, reply.sent_local_ms, reply.received_local_ms)
        self._sync_generation += 1
        return self.clock.offset_ms

    async def _resync_after(self, generation: int) -> None:
        # Many calls refused together resynchronise once: the first one does, the rest see
        # the generation moved on and just retry.
        async with self._sync_lock:
            if self._sync_generation == generation:
                await self.sync_clock()
