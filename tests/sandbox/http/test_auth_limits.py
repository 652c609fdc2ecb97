"""Signature verification, the skew window, replays and the sliding-window limits, without a
server."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

import pytest

from tui.api.models import ApiRole, ErrorCode
from tui.api.signing import sign, signing_message
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.http.auth import ReplayGuard, SignedHeaders, authenticate, read_signed_headers
from tui.sandbox.http.limits import (
    RATE_LIMIT_RESET_HEADER,
    CompanyTokenMeter,
    SlidingWindowLimiter,
    StatsLimiter,
)

SECRET_HEX = "8b1f4e2a9c7d3b6e5f0a1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5"
NOW = 1_767_614_400_000


@dataclass(frozen=True)
class Key:
    key_id: str
    company_id: str
    role: ApiRole
    secret: bytes


KEY = Key("key-a", "company-a", ApiRole.WRITER, bytes.fromhex(SECRET_HEX))


def lookup(api_key: str) -> Key | None:
    return KEY if api_key == KEY.key_id else None


def headers_for(ts: int, method: str, target: str, body: bytes | None) -> dict[str, str]:
    return {
        "x-request-timestamp-ms": str(ts),
        "x-service-key": KEY.key_id,
        "x-service-signature": sign(KEY.key_id, SECRET_HEX, ts, method, target, body),
    }


def check(ts: int, method: str, target: bytes, body: bytes, signed_target: str) -> Key:
    signed = read_signed_headers(headers_for(ts, method, signed_target, body or None))
    assert signed is not None
    result = authenticate(signed, lookup, method=method, raw_target=target, body=body, now_ms=NOW)
    assert isinstance(result, Key)
    return result


def test_server_message_matches_the_client_signing_function() -> None:
    body = b'{"id":"x"}'
    expected = sign(KEY.key_id, SECRET_HEX, 5, "POST", "/v1/rfqs/cancel", body)
    message = signing_message(KEY.key_id, 5, "post", b"/v1/rfqs/cancel", body)
    assert hmac.new(KEY.secret, message, hashlib.sha256).hexdigest() == expected


def test_valid_signature_over_raw_target_and_body() -> None:
    target = "/v1/companies?limit=10&id=a%20b"
    assert check(NOW, "GET", target.encode(), b"", target) is KEY
    assert check(NOW, "POST", b"/v1/quotes/cancel", b'{"id":1}', "/v1/quotes/cancel") is KEY


@pytest.mark.parametrize(
    ("target", "body", "signed_target"),
    [
        (b"/v1/companies?limit=11", b"", "/v1/companies?limit=10"),
        (b"/v1/companies?id=a+b", b"", "/v1/companies?id=a%20b"),  # same meaning, other bytes
        (b"/v1/quotes/cancel", b'{"id":2}', "/v1/quotes/cancel"),
    ],
)
def test_signature_over_anything_else_is_refused(
    target: bytes, body: bytes, signed_target: str
) -> None:
    signed_body = b'{"id":1}' if body else None
    signed = read_signed_headers(headers_for(NOW, "GET", signed_target, signed_body))
    assert signed is not None
    with pytest.raises(ServiceError) as info:
        authenticate(signed, lookup, method="GET", raw_target=target, body=body, now_ms=NOW)
    assert info.value.code is ErrorCode.UNAUTHENTICATED


def test_unknown_key_is_the_same_refusal_as_a_bad_signature() -> None:
    signed = SignedHeaders("nobody", NOW, "0" * 64)
    with pytest.raises(ServiceError) as unknown:
        authenticate(signed, lookup, method="GET", raw_target=b"/v1/x", body=b"", now_ms=NOW)
    bad = SignedHeaders(KEY.key_id, NOW, "0" * 64)
    with pytest.raises(ServiceError) as wrong:
        authenticate(bad, lookup, method="GET", raw_target=b"/v1/x", body=b"", now_ms=NOW)
    assert unknown.value.code is wrong.value.code is ErrorCode.UNAUTHENTICATED
    assert unknown.value.message == wrong.value.message


@pytest.mark.parametrize(
    ("offset_ms", "accepted"),
    [(0, True), (5000, True), (-5000, True), (5001, False), (-5001, False)],
)
def test_skew_window_is_five_seconds_inclusive(offset_ms: int, accepted: bool) -> None:
    target = "/v1/companies"
    if accepted:
        assert check(NOW + offset_ms, "GET", target.encode(), b"", target) is KEY
        return
    with pytest.raises(ServiceError) as info:
        check(NOW + offset_ms, "GET", target.encode(), b"", target)
    assert info.value.code is ErrorCode.TIMESTAMP_SKEW
    assert info.value.http_status == 401


def test_skewed_and_badly_signed_is_a_signature_failure() -> None:
    signed = SignedHeaders(KEY.key_id, NOW + 60_000, "f" * 64)
    with pytest.raises(ServiceError) as info:
        authenticate(signed, lookup, method="GET", raw_target=b"/v1/x", body=b"", now_ms=NOW)
    assert info.value.code is ErrorCode.UNAUTHENTICATED


def test_header_parsing() -> None:
    assert read_signed_headers({}) is None
    full = headers_for(NOW, "GET", "/v1/status", None)
    parsed = read_signed_headers(full)
    assert parsed is not None and parsed.timestamp_ms == NOW
    assert parsed.signature not in repr(parsed)
    for missing in full:
        partial = {k: v for k, v in full.items() if k != missing}
        with pytest.raises(ServiceError, match="missing authentication header"):
            read_signed_headers(partial)
    for bad_ts in ("12.5", "-1", "soon", "1e12", "9" * 20):
        with pytest.raises(ServiceError, match="X-Request-Timestamp-Ms") as info:
            read_signed_headers({**full, "x-request-timestamp-ms": bad_ts})
        assert info.value.code is ErrorCode.UNAUTHENTICATED


def test_limiter_refuses_at_the_boundary_and_charges_nothing_when_refused() -> None:
    limiter = SlidingWindowLimiter(100, 10_000)
    for i in range(5):
        assert limiter.try_spend("a", 20, NOW + i) == 0
    assert limiter.used("a", NOW + 5) == 100
    wait = limiter.try_spend("a", 20, NOW + 5)
    assert wait == 10_000 - 5  # the first spend leaves the window at NOW + 10 000
    assert limiter.used("a", NOW + 5) == 100  # the refusal cost nothing
    assert limiter.try_spend("b", 20, NOW + 5) == 0  # other keys are unaffected
    assert limiter.try_spend("a", 20, NOW + 10_000) == 0  # first spend expired exactly then
    assert limiter.try_spend("a", 1, NOW + 10_000) == 1  # full again until NOW + 10 001


def test_limiter_wait_covers_enough_spends_for_a_big_call() -> None:
    limiter = SlidingWindowLimiter(100, 10_000)
    for i in range(10):
        limiter.spend("a", 9, NOW + i * 100)  # 90 used
    assert limiter.wait_ms("a", 10, NOW + 1000) == 0
    # 25 needs 15 freed: the first two spends (18 tokens), the second leaves at NOW + 10 100.
    assert limiter.wait_ms("a", 25, NOW + 1000) == 9_100
    assert limiter.wait_ms("a", 101, NOW + 1000) == 10_000  # never fits: a full window


def test_token_budget_error_carries_the_reset_header() -> None:
    budget = CompanyTokenMeter()
    for _ in range(99):
        budget.charge("a", 1, NOW)
    budget.charge("a", 1, NOW)
    with pytest.raises(ServiceError) as info:
        budget.charge("a", 20, NOW + 2500)
    assert info.value.code is ErrorCode.RATE_LIMITED and info.value.http_status == 429
    assert info.value.headers[RATE_LIMIT_RESET_HEADER] == "7500"
    assert budget.used("a", NOW + 2500) == 100


def test_stats_limits_per_ip_and_global() -> None:
    limiter = StatsLimiter(per_ip=10, per_ip_window_s=10, global_per_minute=25)
    for _ in range(10):
        limiter.admit("10.0.0.1", NOW)
    with pytest.raises(ServiceError) as info:
        limiter.admit("10.0.0.1", NOW)
    assert info.value.headers[RATE_LIMIT_RESET_HEADER] == "10000"
    for _ in range(10):
        limiter.admit("10.0.0.2", NOW)
    for _ in range(5):
        limiter.admit("10.0.0.3", NOW)
    with pytest.raises(ServiceError, match="per minute"):
        limiter.admit("10.0.0.4", NOW)  # 25 in all this minute
    limiter.admit("10.0.0.1", NOW + 60_000)  # both windows have moved on


def test_a_charge_booked_late_leaves_the_window_at_its_own_stamp() -> None:
    limiter = SlidingWindowLimiter(100, 10_000)
    limiter.spend("a", 50, NOW + 300)
    limiter.spend("a", 50, NOW)  # taken in first, charged second (its body came in later)
    assert limiter.wait_ms("a", 50, NOW + 500) == 9_500  # the NOW charge leaves at NOW + 10 000
    assert limiter.try_spend("a", 50, NOW + 9_999) == 1
    assert limiter.try_spend("a", 50, NOW + 10_000) == 0
    assert limiter.used("a", NOW + 10_300) == 50  # the NOW + 300 charge left in its turn


CHARGES = ((0, 20), (1_000, 10), (2_200, 20), (2_500, 20), (2_750, 20))  # 90 of 100


def metered() -> CompanyTokenMeter:
    meter = CompanyTokenMeter(100, 10)
    for offset, cost in CHARGES:
        meter.charge("a", cost, NOW + offset)
    return meter


@pytest.mark.parametrize(
    ("cost", "fits_at"), [(20, 10_000), (30, 10_000), (40, 11_000), (60, 12_200)]
)
def test_the_reset_header_is_the_least_wait(cost: int, fits_at: int) -> None:
    with pytest.raises(ServiceError) as info:
        metered().charge("a", cost, NOW + 3_000)
    assert NOW + 3_000 + int(info.value.headers[RATE_LIMIT_RESET_HEADER]) == NOW + fits_at
    with pytest.raises(ServiceError) as early:
        metered().charge("a", cost, NOW + fits_at - 1)
    assert early.value.headers[RATE_LIMIT_RESET_HEADER] == "1"
    metered().charge("a", cost, NOW + fits_at)


def signed_write(timestamp_ms: int, signature: str = "ab" * 32) -> SignedHeaders:
    return SignedHeaders(KEY.key_id, timestamp_ms, signature)


def test_replay_guard_refuses_a_remembered_signature_until_it_is_stale() -> None:
    guard = ReplayGuard(max_skew_ms=5_000, margin_ms=1_000)
    first = signed_write(NOW)
    guard.check(first, NOW)
    guard.remember(first)
    with pytest.raises(ServiceError, match="replayed request") as info:
        guard.check(first, NOW + 5_000)
    assert info.value.code is ErrorCode.UNAUTHENTICATED and info.value.http_status == 401
    guard.check(signed_write(NOW, "cd" * 32), NOW)  # another signature: another request
    guard.check(SignedHeaders("key-b", NOW, "ab" * 32), NOW)  # the same bytes from another key
    guard.remember(signed_write(NOW + 3_000, "ef" * 32))
    assert len(guard) == 2
    guard.check(signed_write(NOW + 1), NOW + 6_001)  # the first is forgotten after ts + 6 s
    assert len(guard) == 1
    guard.check(signed_write(NOW + 1), NOW + 9_001)
    assert len(guard) == 0
