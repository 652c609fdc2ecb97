"""The test kit of the api layer: fake time, example wire records, and a scripted venue.

`clocks` (`FakeTime`, `LocalClock`) makes waits instant and clocks movable by hand; `records`
holds an example wire record of every record type (``from tests.api.kit import records as
rec``); `venue` is the mock venue on ``httpx.MockTransport`` (`FakeVenue`, the reply builders
`ok`, `page`, `fail`) and `make_client`, a `ServiceClient` wired to it with fake time;
`writes` (imported by its own name: it needs the sandbox) loses writes on cue against the real
sandbox, with one scenario per kind of write. Also imported by their own names: `calls`, one
example call of every endpoint with what it must send (`CASES`); `metered`, a venue on fake
time that meters tokens with the sandbox's own meter behind fake latencies;
`live`, a sandbox on real time with ``--faults``; `chaos`, a taker and a maker trading through
their `WriteDesk`s against a faulty sandbox.
"""

from __future__ import annotations

from tests.api.kit.clocks import LOCAL_MS, FakeTime, LocalClock
from tests.api.kit.venue import (
    API_KEY,
    API_SECRET,
    BASE_URL,
    FakeVenue,
    Reply,
    fail,
    make_client,
    ok,
    page,
)

__all__ = [
    "API_KEY",
    "API_SECRET",
    "BASE_URL",
    "LOCAL_MS",
    "FakeTime",
    "FakeVenue",
    "LocalClock",
    "Reply",
    "fail",
    "make_client",
    "ok",
    "page",
]
