"""A scripted stand-in for the venue on httpx.MockTransport: canned replies, requests kept."""

from __future__ import annotations

import json
import random
from collections import defaultdict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from tests.api.kit.clocks import FakeTime, LocalClock
from tui.api.budget import TokenBudget
from tui.api.client import ServiceClient
from tui.api.clock import ServerClock

# The public test credentials of the interface's signing vectors, never a real key.
_VECTORS = json.loads((Path(__file__).parents[2] / "data" / "signing-vectors.json").read_text())
API_KEY: str = _VECTORS["api_key"]
API_SECRET: str = _VECTORS["api_secret"]
BASE_URL = "http://venue.test"

Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


def ok(result: Any, **headers: str) -> httpx.Response:
    """A 200 with ``{"result": ...}``."""
    return httpx.Response(200, json={"result": result}, headers=headers)


def page(records: list[Any], next_page: dict[str, str] | None = None) -> httpx.Response:
    """A 200 page envelope."""
    return httpx.Response(200, json={"result": records, "pagination": {"next_page": next_page}})


def fail(status: int, code: int | None, message: str = "refused", **headers: str) -> httpx.Response:
    """An error envelope."""
    body = {"error": {"code": code, "message": message}} if code is not None else None
    return httpx.Response(status, json=body, headers=headers)


class FakeVenue:
    """Answers each (method, path) from a queue of replies; the last reply repeats."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self._replies: dict[tuple[str, str], deque[Reply]] = defaultdict(deque)

    def on(self, method: str, path: str, *replies: Reply) -> FakeVenue:
        """Queue ``replies`` for ``method`` on ``path``; returns the venue, for chaining."""
        self._replies[(method, path)].extend(replies)
        return self

    def handler(self, request: httpx.Request) -> httpx.Response:
        """The `httpx.MockTransport` handler: keep the request, answer the next reply."""
        self.requests.append(request)
        queue = self._replies.get((request.method, request.url.path))
        if not queue:
            return httpx.Response(404, json={"error": {"code": 3000, "message": "no route"}})
        reply = queue.popleft() if len(queue) > 1 else queue[0]
        if isinstance(reply, Exception):
            raise reply
        if callable(reply) and not isinstance(reply, httpx.Response):
            return reply(request)
        return reply

    def sent(self, path: str | None = None) -> list[httpx.Request]:
        """The requests received, all of them or those to ``path``."""
        return [r for r in self.requests if path is None or r.url.path == path]

    @staticmethod
    def body(request: httpx.Request) -> Any:
        """A request's JSON body, or None when it has none."""
        return json.loads(request.content) if request.content else None


def make_client(
    venue: FakeVenue, fake_time: FakeTime, local: LocalClock | None = None, **kwargs: Any
) -> ServiceClient:
    """A ServiceClient on the fake venue, with fake time for the budget and the retry waits."""
    budget = TokenBudget(clock=fake_time.clock, sleep=fake_time.sleep)
    clock = ServerClock(local_ms=local or LocalClock())
    return ServiceClient(
        BASE_URL,
        API_KEY,
        API_SECRET,
        budget=budget,
        clock=clock,
        transport=httpx.MockTransport(venue.handler),
        sleep=fake_time.sleep,
        rng=random.Random(1),
        **kwargs,
    )
