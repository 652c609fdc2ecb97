"""The server-clock estimate: midpoint of the round trip, tightest sample wins, jumps reset it."""

from __future__ import annotations

from tests.api.kit import LocalClock
from tui.api.clock import ServerClock


def test_unsynced_clock_is_local_time() -> None:
    local = LocalClock(1_000_000)
    clock = ServerClock(local_ms=local)
    assert not clock.synced
    assert clock.offset_ms == 0
    assert clock.uncertainty_ms is None
    assert clock.now_ms() == 1_000_000


def test_offset_is_taken_at_the_middle_of_the_round_trip() -> None:
    local = LocalClock(1_000_000)
    clock = ServerClock(local_ms=local)
    clock.observe(server_ms=1_003_050, sent_local_ms=999_900, received_local_ms=1_000_000)
    assert clock.synced
    assert clock.offset_ms == 3100
    assert clock.uncertainty_ms == 50
    assert clock.now_ms() == 1_003_100


def test_the_tightest_sample_wins() -> None:
    clock = ServerClock(local_ms=LocalClock(0))
    clock.observe(10_500, 0, 400)  # offset 10300 +- 200
    clock.observe(10_310, 0, 20)  # offset 10300 +- 10
    clock.observe(10_600, 0, 300)  # offset 10450 +- 150: consistent, but looser
    assert clock.offset_ms == 10_300
    assert clock.uncertainty_ms == 10


def test_a_sample_that_proves_the_estimate_wrong_resets_it() -> None:
    clock = ServerClock(local_ms=LocalClock(0))
    clock.observe(5_000, 0, 10)
    assert clock.offset_ms == 4995
    # The server clock jumped an hour ahead (the sandbox can do that): even a loose sample
    # that cannot contain the old offset replaces it.
    clock.observe(3_605_000, 1000, 1400)
    assert clock.offset_ms == 3_605_000 - 1200


def test_old_samples_age_out() -> None:
    clock = ServerClock(local_ms=LocalClock(0))
    clock.observe(1000, 0, 0)
    for n in range(16):
        clock.observe(1000 + 10 * n + 5, 10 * n, 10 * n + 10)
    assert clock.uncertainty_ms == 5


def test_headers_are_read_tolerantly() -> None:
    clock = ServerClock(local_ms=LocalClock(0))
    clock.observe_header(None, 0, 10)
    clock.observe_header("not a number", 0, 10)
    assert not clock.synced
    clock.observe_header(" 2005 ", 0, 10)
    assert clock.offset_ms == 2000


def test_reset_forgets_everything() -> None:
    clock = ServerClock(local_ms=LocalClock(0))
    clock.observe(2000, 0, 0)
    clock.reset()
    assert not clock.synced and clock.offset_ms == 0
