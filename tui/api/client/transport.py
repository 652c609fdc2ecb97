"""Sending one call of the trading API: budget, signing, clock, retries, notification.

`Sender` owns the httpx connection pools of one `ServiceClient`. For every call it waits for
the request tokens in the shared `TokenBudget` (leaving the task's `keeping_free` reserve),
signs with `ServiceAuth` on the server-corrected `ServerClock` (which learns from every
response's ``X-Request-Received-Ms``), sends the body as the exact bytes that were signed,
reports each HTTP exchange as a `CallInfo`, lets `RetryPolicy` decide what a failure leads to,
and hands back the 200 answer's body as it came (`Reply`): a page is read straight from its
bytes (`tui.api.client.paging`), anything else through its JSON (`read_result`).

Reads and writes go through two pools. A read keeps its connection for `READS_KEEPALIVE_S`, so
the desk's polls, seconds apart, reuse one connection instead of opening one each (a read on
a connection the server closed at that very moment is lost and simply sent again). A write
never goes out on a connection idle for longer than `WRITES_KEEPALIVE_S`, well inside any
server's keep-alive, so it is never written into a socket the server is closing (where it
could not be resent, only resolved by reading).

The budget hears how every attempt went, on the server's terms (`tui.api.budget` has the
rule): an answer re-stamps its charge with the answer's ``X-Request-Received-Ms``, a 429
refunds it and blocks until the server's reset counted from that stamp, no answer keeps it.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import httpx

from tui.api.budget import DESK_RESERVE_TOKENS, TokenBudget, reset_from_now, settle_answer
from tui.api.client.connections import connection_pool
from tui.api.client.retry import Action, RetryPolicy, Tries, outcome_of
from tui.api.client.wire import (
    Reply,
    encode_body,
    encode_query,
    endpoint_label,
    read_result,
)
from tui.api.clock import RECEIVED_HEADER, ServerClock, read_stamp
from tui.api.endpoints import Endpoint, Method, endpoint_named
from tui.api.errors import (
    ApiError,
    RateLimited,
    backoff_delay,
    error_from_response,
    transport_error,
)
from tui.api.signing import ServiceAuth

if TYPE_CHECKING:
    from tui.api.models import Request

__all__ = ["CallInfo", "Sender", "keeping_free"]

_log = logging.getLogger(__name__)

READS_KEEPALIVE_S = 60.0
"""How long an idle connection is kept for reads (a server that closes it earlier is noticed
before the next read: the pool takes a closed connection out)."""
WRITES_KEEPALIVE_S = 2.0
"""How long an idle connection is kept for writes: under a typical server's 5 s keep-alive."""


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
        import asyncio  # not at import: a client is made where a loop runs (issue 11)

        self._sync_lock = asyncio.Lock()
        self._sync_generation = 0
        pool = partial(
            connection_pool,
            base_url,
            transport=transport,
            timeout=timeout,
            headers={"accept": "application/json"},
        )
        self._reads = pool(limits=httpx.Limits(keepalive_expiry=READS_KEEPALIVE_S))
        # A given transport (tests, a proxy) is its own pool: one client over it.
        self._writes = (
            self._reads
            if transport is not None
            else pool(limits=httpx.Limits(keepalive_expiry=WRITES_KEEPALIVE_S))
        )

    async def aclose(self) -> None:
        """Close the connection pools."""
        await self._reads.aclose()
        if self._writes is not self._reads:
            await self._writes.aclose()

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

        Raises the `ApiError` of the last attempt when the policy gives up. The body is read by
        the caller (a 200 answer that is not JSON is a `MalformedResponse` then, never retried).
        """
        label = endpoint_label(endpoint)
        query = tuple(encode_query(params or {}))
        content = encode_body(body) if body is not None else None
        headers = {"content-type": "application/json"} if content is not None else None
        http = self._reads if endpoint.method is Method.GET else self._writes
        tries = Tries()
        while True:
            async with self.budget.spending(endpoint.cost, keep_free=_KEEP_FREE.get()) as charge:
                request = http.build_request(
                    endpoint.method.value,
                    endpoint.path,
                    params=query,
                    content=content,
                    headers=headers,
                )
                generation = self._sync_generation
                sent = self.clock.local_ms()
                started = time.perf_counter()
                cause: httpx.TransportError | None = None
                error: ApiError
                try:
                    response = await http.send(request, auth=self.auth if signed else None)
                except httpx.TransportError as exc:
                    # No answer: the charge is kept (`TokenBudget.lost`) as the block ends.
                    latency = (time.perf_counter() - started) * 1000
                    self._notify(endpoint, 0, latency, tries.attempt)
                    cause, error = exc, transport_error(exc, label)
                else:
                    received = self.clock.local_ms()
                    latency = (time.perf_counter() - started) * 1000
                    self.last_latency_ms = latency
                    self.clock.observe_header(response.headers.get(RECEIVED_HEADER), sent, received)
                    stamp = read_stamp(response.headers.get(RECEIVED_HEADER))
                    if response.status_code == 200:
                        settle_answer(self.budget, charge, self.clock, stamp, sent)
                        self._notify(endpoint, 200, latency, tries.attempt)
                        return Reply(response.content, sent, received, label)
                    error = error_from_response(response, label)
                    if isinstance(error, RateLimited):
                        # Refused uncharged; whether or not the call goes again, the budget
                        # waits for the server's reset.
                        self.budget.refunded(charge)
                        self.budget.penalize(reset_from_now(self.clock, error.resets_in_ms, stamp))
                    else:
                        settle_answer(self.budget, charge, self.clock, stamp, sent)
                    self._notify(endpoint, response.status_code, latency, tries.attempt)

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
