"""The ``--faults`` spec and its injector, without a server (over HTTP: ``test_faults_http``)."""

from __future__ import annotations

import time

import pytest

from tui.sandbox.faults import (
    DEFAULT_STORM_MS,
    FaultDraw,
    FaultInjector,
    FaultSpec,
    FaultSpecError,
    fault_clock,
    parse_faults,
)

NOW = 1_767_614_400_000
FULL = (
    "latency=50ms,spike=0.05:2s,5xx=0.05,429=0.02:3s,drop_before=0.03,drop_after=0.03,"
    "skew=+3s,seed=7"
)


def test_the_full_grammar() -> None:
    spec = parse_faults(FULL)
    assert spec == FaultSpec(
        latency_ms=50,
        spike_rate=0.05,
        spike_ms=2000,
        error_rate=0.05,
        storm_rate=0.02,
        storm_ms=3000,
        drop_before_rate=0.03,
        drop_after_rate=0.03,
        skew_ms=3000,
        seed=7,
    )
    assert parse_faults(str(spec)) == spec  # what the sandbox prints reads back the same


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("latency=1.5s", FaultSpec(latency_ms=1500)),
        (" 5xx = 1 , seed=3 ", FaultSpec(error_rate=1.0, seed=3)),
        ("429=0.5", FaultSpec(storm_rate=0.5, storm_ms=DEFAULT_STORM_MS)),
        ("skew=-250ms", FaultSpec(skew_ms=-250)),
        ("skew=2s", FaultSpec(skew_ms=2000)),
        ("drop_after=0", FaultSpec()),
    ],
)
def test_items(text: str, expected: FaultSpec) -> None:
    assert parse_faults(text) == expected


@pytest.mark.parametrize(
    ("text", "named", "says"),
    [
        ("", "", "empty"),
        ("latency", "'latency'", "NAME=VALUE"),
        ("latency=", "'latency='", "NAME=VALUE"),
        ("lag=5ms", "'lag=5ms'", "unknown fault 'lag'"),
        ("latency=5", "'latency=5'", "not a duration"),
        ("latency=-5ms", "'latency=-5ms'", "not a duration"),
        ("latency=2min", "'latency=2min'", "not a duration"),
        ("latency=61s", "'latency=61s'", "at most"),
        ("5xx=1.5", "'5xx=1.5'", "probability"),
        ("5xx=nan", "'5xx=nan'", "probability"),
        ("5xx=-0.1", "'5xx=-0.1'", "probability"),
        ("spike=0.1", "'spike=0.1'", "P:DUR"),
        ("spike=0.1:0ms", "'spike=0.1:0ms'", "more than 0"),
        ("429=x:1s", "'429=x:1s'", "probability"),
        ("seed=-1", "'seed=-1'", "whole number"),
        ("5xx=0.1,latency=5ms,5xx=0.2", "'5xx=0.2'", "given twice"),
        ("latency=5ms,,seed=1", "''", "NAME=VALUE"),
    ],
)
def test_errors_name_the_bad_item(text: str, named: str, says: str) -> None:
    with pytest.raises(FaultSpecError) as info:
        parse_faults(text)
    assert named in str(info.value) and says in str(info.value)


def draws(spec: str, count: int = 200) -> list[tuple[float, FaultDraw]]:
    injector = FaultInjector(parse_faults(spec))
    return [(injector.delay_s(), injector.decide(NOW + i * 10_000)) for i in range(count)]


def test_the_same_seed_draws_the_same_faults_and_another_seed_others() -> None:
    spec = "spike=0.2:1s,5xx=0.1,429=0.1:1ms,drop_before=0.1,drop_after=0.1"
    first = draws(f"{spec},seed=5")
    assert first == draws(f"{spec},seed=5")
    assert first != draws(f"{spec},seed=6")
    kinds = [d for _, d in first]
    for name in ("drop_before", "server_error", "drop_after"):
        assert 5 < sum(getattr(d, name) for d in kinds) < 45, name
    assert 5 < sum(d.storm_wait_ms > 0 for d in kinds) < 45
    assert {delay for delay, _ in first} == {0.0, 1.0}


def test_at_most_one_fault_before_the_engine_and_drop_after_only_without_one() -> None:
    for _, draw in draws("5xx=0.5,429=0.5:1ms,drop_before=0.5,drop_after=0.5,seed=1"):
        early = [draw.drop_before, draw.server_error, draw.storm_wait_ms > 0]
        assert sum(early) <= 1
        assert draw.reaches_engine == (sum(early) == 0)
        assert not (draw.drop_after and not draw.reaches_engine)


def test_rate_one_always_and_rate_zero_never() -> None:
    assert all(d.server_error for _, d in draws("5xx=1", 50))
    assert all(d == FaultDraw() for _, d in draws("5xx=0,drop_after=0,latency=0ms", 50))
    assert all(delay == 0.25 for delay, _ in draws("latency=200ms,spike=1:50ms", 5))


def test_a_storm_started_again_lasts_from_the_last_start() -> None:
    injector = FaultInjector(parse_faults("429=1:3s"))
    assert injector.decide(NOW).storm_wait_ms == 3_000
    assert injector.decide(NOW + 1_000).storm_wait_ms == 3_000  # every request starts one


def test_a_storm_refuses_with_the_time_left_until_it_ends() -> None:
    injector = FaultInjector(parse_faults("429=1:3s"))
    injector.decide(NOW)
    injector.spec = parse_faults("429=0")  # no new storm from now on
    assert injector.decide(NOW + 1_000).storm_wait_ms == 2_000
    assert injector.decide(NOW + 2_999).storm_wait_ms == 1
    assert injector.decide(NOW + 3_000).storm_wait_ms == 0


def test_skew_moves_the_sandbox_clock_off_real_time() -> None:
    for text, offset in (("skew=+3s", 3_000), ("skew=-1500ms", -1_500), ("seed=1", 0)):
        clock = fault_clock(parse_faults(text))
        wall = time.time_ns() // 1_000_000
        assert abs(clock.now_ms() - wall - offset) < 50
    assert fault_clock(None).offset_ms == 0
