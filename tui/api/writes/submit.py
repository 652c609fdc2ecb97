"""`WriteDesk`: every write sent once, journaled first, and resolved by reading when its answer
is lost.

``outcome = await WriteDesk(client, journal).submit(intent)`` is the one way the desk sends a
write. The intent is written to the journal (and fsynced) before its request leaves. Then:

- an answer: `Landed` (``ANSWERED``) with the venue's record, or, for a refusal (4xx, a 429
  too), `NotLanded` (``REFUSED``) with the error;
- no connection was ever open (`ConnectionLost` with ``maybe_sent`` False): `NotLanded`
  (``NEVER_SENT``);
- the answer was lost (timeout, dropped connection, 5xx): never resent blindly. The venue is
  read (`tui.api.writes.resolve`): the record found gives `Landed` (``FOUND``). Found nothing,
  the desk waits until the request can no longer land (the venue refuses a signature more than
  `MAX_SKEW_MS` old) and reads once more: `NotLanded` (``ABSENT``). If the reads fail too:
  `Unresolved`, and the intent stays open in the journal.

Submitting an intent again is a retry, never a second order: one that landed answers its
journaled record (``EARLIER``) without sending; one left open is resolved first and sent again
only if it did not land. After a crash, ``journal.open_intents()`` lists the intents whose
outcome was never learnt and `WriteDesk.resolve` (or `resolve_open`) settles each by reading
alone. Waiting uses the client's server clock and an injectable ``sleep`` (tests move a frozen
clock with it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from tui.api.client import ServiceClient
from tui.api.client.wire import parse_result
from tui.api.endpoints import MAX_SKEW_MS
from tui.api.errors import ApiError, ConnectionLost, MalformedResponse, ServerError
from tui.api.writes.intents import Intent, Landed, NotLanded, Outcome, Resolution, Unresolved
from tui.api.writes.journal import Journal, JournalEntry
from tui.api.writes.resolve import Lookup, find_landed, from_ms

__all__ = ["IN_FLIGHT_MS", "SETTLE_MS", "WriteDesk"]

SETTLE_MS = MAX_SKEW_MS + 1000
"""How long after its last sending a request may still land: the venue refuses a signature more
than `MAX_SKEW_MS` from its clock; one second more covers the client clock's error."""
IN_FLIGHT_MS = 60_000
"""How long a request a crash cut short may have been under way after it was journaled (budget
wait, retries of a connection that never opened, the timeout): its sending time is not known."""


class WriteDesk:
    """Sends the writes of one `ServiceClient`, journals them, and resolves lost answers."""

    def __init__(
        self,
        client: ServiceClient,
        journal: Journal,
        *,
        settle_ms: int = SETTLE_MS,
        in_flight_ms: int = IN_FLIGHT_MS,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.client = client
        self.journal = journal
        self.settle_ms = settle_ms
        self.in_flight_ms = in_flight_ms
        self._sleep = sleep
        # One submission of an intent at a time: a second (a double press) waits for the
        # first and then answers from the journal instead of sending again.
        self._under_way: dict[str, asyncio.Lock] = {}

    def _now_ms(self) -> int:
        return self.client.clock.now_ms()

    async def submit(self, intent: Intent) -> Outcome:
        """Send ``intent`` once, or answer what became of it if it was sent before."""
        async with self._under_way.setdefault(intent.id, asyncio.Lock()):
            return await self._submit(intent)

    async def resolve(self, intent: Intent) -> Outcome:
        """What became of ``intent``, by the journal or by reading the venue; never sends it."""
        async with self._under_way.setdefault(intent.id, asyncio.Lock()):
            return await self._resolve(intent)

    async def resolve_open(self) -> list[Outcome]:
        """Resolve every intent the journal holds open (after a crash), oldest first."""
        return [await self.resolve(intent) for intent in self.journal.open_intents()]

    async def _submit(self, intent: Intent) -> Outcome:
        entry = self.journal.entry(intent.id)
        if entry is not None and entry.outcome == "landed":
            return self._earlier(intent, entry)
        if entry is not None and entry.open:
            outcome = await self._resolve(intent)
            if not isinstance(outcome, NotLanded):
                return outcome
        if not intent.sendable:
            return NotLanded(intent, Resolution.ABSENT, "not landed; build it again to send it")
        self.journal.sending(intent, self._now_ms())
        try:
            record = await self.client.write(intent.kind.value, intent.body())
        except ConnectionLost as exc:
            if exc.maybe_sent:
                return await self._lost(intent, exc)
            return self._settle(NotLanded(intent, Resolution.NEVER_SENT, str(exc), exc))
        except ServerError as exc:
            # A 5xx, or a 200 this client cannot read: the venue may have acted.
            return await self._lost(intent, exc)
        except ApiError as exc:
            return self._settle(NotLanded(intent, Resolution.REFUSED, str(exc), exc))
        return self._settle(Landed(intent, record, Resolution.ANSWERED))

    async def _resolve(self, intent: Intent) -> Outcome:
        entry = self.journal.entry(intent.id)
        if entry is None:
            return NotLanded(intent, Resolution.NEVER_SENT, "never sent")
        if entry.outcome == "landed":
            return self._earlier(intent, entry)
        if not entry.open:
            how = entry.how or Resolution.ABSENT
            return NotLanded(intent, how, entry.reason or "not landed")
        last_chance_ms = (
            entry.lost_at_ms
            if entry.lost_at_ms is not None
            else entry.sent_at_ms + self.in_flight_ms
        ) + self.settle_ms
        lookup = Lookup(
            self.client,
            intent,
            since=from_ms(entry.sent_at_ms - MAX_SKEW_MS),
            claimed=self.journal.claimed(intent.kind),
        )
        for look in range(2):
            try:
                record = await find_landed(lookup)
            except ApiError as exc:
                return Unresolved(intent, f"the venue could not be read: {exc}", exc)
            except ValueError as exc:
                # A journaled payload this version cannot read (older rules): left open.
                return Unresolved(intent, f"the intent cannot be read back: {exc}")
            if record is not None:
                return self._settle(Landed(intent, record, Resolution.FOUND))
            wait_ms = last_chance_ms - self._now_ms()
            if wait_ms <= 0:
                return self._settle(
                    NotLanded(intent, Resolution.ABSENT, "the venue shows no trace of it")
                )
            if look == 0:
                await self._sleep(wait_ms / 1000)
        return Unresolved(intent, f"it may still land for {wait_ms} ms")

    async def _lost(self, intent: Intent, exc: ApiError) -> Outcome:
        self.journal.lost(intent, self._now_ms(), str(exc))
        return await self._resolve(intent)

    def _settle(self, outcome: Landed | NotLanded) -> Landed | NotLanded:
        self.journal.settled(outcome, self._now_ms())
        return outcome

    @staticmethod
    def _earlier(intent: Intent, entry: JournalEntry) -> Landed:
        record: Any = entry.record
        # A record this client version cannot read stays the journal's JSON as it is.
        with contextlib.suppress(MalformedResponse):
            record = parse_result(intent.kind.endpoint, record)
        return Landed(intent, record, Resolution.EARLIER)
