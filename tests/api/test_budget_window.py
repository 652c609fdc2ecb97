"""The client's budget agrees with the server's window (issue 10), on fake time.

The venue here meters with the sandbox's own `CompanyTokenMeter` behind fake latencies
(`tests.api.kit.metered`), so the server's rule is the real one: a charge stamped ``s`` (the
``X-Request-Received-Ms`` of its answer) counts until ``s + 10 000``; a 429 charges nothing and
says when the call fits again, counted from that stamp.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.api.kit import FakeTime, LocalClock
from tests.api.kit.metered import Leg, MeteredVenue, metered_client
from tui.api.budget import TokenBudget
from tui.api.clock import ServerClock
from tui.api.endpoints import BUDGET_WINDOW_S
from tui.api.errors import ApiError, RateLimited

QUIET_S = 30.0
"""Long enough for every earlier charge to have left the window, on both sides."""


async def _prime(venue: MeteredVenue, client: object) -> None:
    """One instant exchange, so the client knows the venue's clock exactly; then quiet."""
    await client.companies()  # type: ignore[attr-defined]
    venue.time.advance(QUIET_S)


def test_the_server_clock_bounds_a_wait_on_the_safe_side() -> None:
    """The true offset may be anything the sample allows: the wait is for the smallest."""
    clock = ServerClock(local_ms=LocalClock(10_000))
    assert clock.most_ms_between(10_000, 20_000) is None  # no sample: nothing to say
    clock.observe(server_ms=13_050, sent_local_ms=9_900, received_local_ms=10_000)
    # Offset 3100 +- 50 (and 1 ms of resolution): the server may read as little as 13_049 now.
    assert clock.most_ms_between(10_000, 23_000) == 23_000 - (10_000 + 3049)
    assert clock.most_ms_between(10_000, 13_000) < 0  # already past, whatever the offset


async def test_a_charge_counts_until_the_server_stamp_plus_the_window(
    fake_time: FakeTime,
) -> None:
    """The request took 2 s to reach the venue: its tokens are the venue's until 12 s after
    it was sent, not 10.25 s."""
    venue = MeteredVenue(fake_time).plan([Leg(up_ms=2000)])
    async with metered_client(venue) as client:
        sent = fake_time.now
        await client.companies()
        fake_time.advance(sent + 11.99 - fake_time.now)
        assert client.budget.used() == 1
        fake_time.advance(0.02)
        assert client.budget.used() == 0


async def test_a_charge_is_free_again_when_the_server_frees_it(fake_time: FakeTime) -> None:
    """Stamped 0.1 s after sending, answered 3 s later: free at 10.1 s, not later (nor at
    the 10.25 s the old slack guessed)."""
    venue = MeteredVenue(fake_time)
    async with metered_client(venue) as client:
        await _prime(venue, client)
        venue.plan([Leg(up_ms=100, down_ms=3000)])
        sent = fake_time.now
        await client.companies()
        fake_time.advance(sent + 10.05 - fake_time.now)
        assert client.budget.used() == 1
        fake_time.advance(0.06)
        assert client.budget.used() == 0


async def test_a_429_refunds_its_charge_and_waits_from_the_server_stamp(
    fake_time: FakeTime,
) -> None:
    """The venue charged nothing, so neither does the client; the reset counts from when the
    venue took the request in (the answer came 1 s later), not from when it arrived."""
    venue = MeteredVenue(fake_time)
    async with metered_client(venue) as client:
        await _prime(venue, client)
        venue.meter.charge("company", 95, venue.server_ms())  # another desk of the company
        fake_time.advance(2.0)
        venue.plan([Leg(down_ms=1000)])
        with pytest.raises(RateLimited) as refused:
            await client.quotes_cancel_all()
        assert refused.value.resets_in_ms == 8000
        assert client.budget.used() == 0
        assert client.budget.blocked_for() == pytest.approx(7.0, abs=0.01)


async def test_a_get_refused_429_goes_again_once_the_server_has_room(
    fake_time: FakeTime,
) -> None:
    venue = MeteredVenue(fake_time)
    async with metered_client(venue) as client:
        await _prime(venue, client)
        venue.meter.charge("company", 95, venue.server_ms())
        fake_time.advance(2.0)
        started = fake_time.now
        venue.plan([Leg(down_ms=1000)])
        await client.portfolio_summary()
        assert venue.refused == 1
        assert fake_time.now - started == pytest.approx(8.0, abs=0.01)
        assert client.budget.used() == 10


async def test_a_lost_answer_keeps_its_charge_for_the_window_and_the_margin(
    fake_time: FakeTime,
) -> None:
    """No answer: the venue may have stamped the request at any time until the loss, and as
    late as the slowest uplink seen (1.5 s) after it; the charge stays that long."""
    venue = MeteredVenue(fake_time)
    async with metered_client(venue, max_attempts=1) as client:
        await _prime(venue, client)
        venue.plan([Leg(up_ms=1500)])
        await client.companies()
        assert client.budget.margin_s == pytest.approx(1.5, abs=0.01)
        fake_time.advance(QUIET_S)
        venue.plan([Leg(down_ms=3000, lost=True)])
        with pytest.raises(ApiError):
            await client.companies()
        fake_time.advance(BUDGET_WINDOW_S + 1.45)
        assert client.budget.used() == 1
        fake_time.advance(0.1)
        assert client.budget.used() == 0


async def test_a_request_under_way_keeps_its_tokens(fake_time: FakeTime) -> None:
    """However long a request takes to reach the venue, its tokens stay spent meanwhile."""
    venue = MeteredVenue(fake_time)
    held = asyncio.Event()
    async with metered_client(venue) as client:
        await _prime(venue, client)
        venue.plan([Leg(hold=held)])
        call = asyncio.create_task(client.portfolio_summary())
        await asyncio.sleep(0)
        for _ in range(3):
            fake_time.advance(BUDGET_WINDOW_S / 2)
            await asyncio.sleep(0)
            assert client.budget.used() == 10
        held.set()
        await call
        fake_time.advance(BUDGET_WINDOW_S - 0.01)
        assert client.budget.used() == 10
        fake_time.advance(0.02)
        assert client.budget.used() == 0


_CALLS = ("companies", "portfolio_summary", "quotes_cancel_all")


@st.composite
def _traffic(draw: st.DrawFn) -> list[tuple[int, str, Leg, int]]:
    return draw(
        st.lists(
            st.tuples(
                st.integers(min_value=0, max_value=1),  # which client sends
                st.sampled_from(_CALLS),
                st.builds(
                    Leg,
                    up_ms=st.integers(min_value=0, max_value=3000),
                    down_ms=st.integers(min_value=0, max_value=3000),
                    lost=st.sampled_from([False] * 5 + [True]),
                ),
                st.integers(min_value=0, max_value=4000),  # ms of quiet before the call
            ),
            max_size=40,
        )
    )


@settings(max_examples=120, deadline=None)
@given(
    traffic=_traffic(),
    skew_ms=st.sampled_from([-3000, 0, 3000]),
    clients=st.sampled_from([1, 2]),
)
def test_the_venue_never_refuses_a_client_that_keeps_to_its_budget(
    traffic: list[tuple[int, str, Leg, int]], skew_ms: int, clients: int
) -> None:
    """Whatever the latencies, lost answers and clock skew: one client with the whole budget,
    or two clients of one company with half each, never meet a 429."""
    time = FakeTime()
    venue = MeteredVenue(time, skew_ms=skew_ms)
    share = 100 // clients

    async def run() -> None:
        desks = [
            metered_client(venue, TokenBudget(share, clock=time.clock, sleep=time.sleep))
            for _ in range(clients)
        ]
        for who, name, leg, quiet_ms in traffic:
            time.advance(quiet_ms / 1000)
            venue.plan([leg])
            client = desks[who % clients]
            with contextlib.suppress(ApiError):  # a lost answer: charged, or not
                await getattr(client, name)()
            assert client.budget.used() <= share
        for client in desks:
            await client.aclose()

    asyncio.run(run())
    assert venue.refused == 0
