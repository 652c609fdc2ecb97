"""Who is calling: HMAC request verification, the skew window and refusing replays.

Independent pieces the HTTP layer (`tui.sandbox.http.app`) strings together (the limits on how
much a caller may do are `tui.sandbox.http.limits`):

- `read_signed_headers` and `authenticate`: the interface's three headers, the signed message
  ``key|timestamp|METHOD|path?query[|body]`` (built by `tui.api.signing.signing_message`, the
  client's own function) over the *raw* request target and body bytes, the hex-decoded secret
  as the HMAC key, and the 5 s timestamp window against the sandbox clock.
- `ReplayGuard`: a signed write is carried out at most once. The signature covers key,
  timestamp, method, target and body, so the same signature again *is* the same request; while
  its timestamp is inside the skew window it would pass every other check, so the guard
  remembers the signatures of writes that reached the engine and refuses a second arrival
  (401/2000, "replayed request"). Reads are not guarded: a GET changes nothing, and a desk
  polling on a coarse clock may legitimately send the same signed read twice.

Nothing here touches the network or the database, so all of it is testable on its own.
"""

from __future__ import annotations

import heapq
import hmac
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from tui.api.endpoints import MAX_SKEW_MS
from tui.api.models import ApiRole, ErrorCode
from tui.api.signing import (
    KEY_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    message_signature,
    signing_message,
)
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "REPLAY_MARGIN_MS",
    "KeyRecord",
    "ReplayGuard",
    "SignedHeaders",
    "authenticate",
    "read_signed_headers",
]

_AUTH_HEADERS = (TIMESTAMP_HEADER, KEY_HEADER, SIGNATURE_HEADER)


class KeyRecord(Protocol):
    """What authentication needs to know about a stored API key (the engine's ``ApiKey``)."""

    @property
    def key_id(self) -> str: ...

    @property
    def company_id(self) -> str: ...

    @property
    def role(self) -> ApiRole | str: ...

    @property
    def secret(self) -> bytes: ...


@dataclass(frozen=True, slots=True)
class SignedHeaders:
    """The three authentication headers of one request, parsed but not yet verified."""

    api_key: str
    timestamp_ms: int
    signature: str

    def __repr__(self) -> str:
        return f"SignedHeaders(api_key={self.api_key!r}, timestamp_ms={self.timestamp_ms})"


def _unauthenticated(message: str) -> ServiceError:
    return ServiceError(ErrorCode.UNAUTHENTICATED, message)


def read_signed_headers(headers: Mapping[str, str]) -> SignedHeaders | None:
    """The authentication headers of a request; None when none of the three was sent.

    ``headers`` maps lower-case header names to values. Some but not all of the headers, or a
    timestamp that is not an integer, is refused (401/2000) with the header named.
    """
    values = {name: headers.get(name.lower()) for name in _AUTH_HEADERS}
    if all(value is None for value in values.values()):
        return None
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise _unauthenticated(f"missing authentication header {', '.join(missing)}")
    raw_ts = (values[TIMESTAMP_HEADER] or "").strip()
    if not raw_ts.isascii() or not raw_ts.isdigit() or len(raw_ts) > 16:
        raise _unauthenticated(f"{TIMESTAMP_HEADER} must be Unix time in whole milliseconds")
    return SignedHeaders(
        api_key=(values[KEY_HEADER] or "").strip(),
        timestamp_ms=int(raw_ts),
        signature=(values[SIGNATURE_HEADER] or "").strip().lower(),
    )


def authenticate(
    signed: SignedHeaders,
    lookup: Callable[[str], KeyRecord | None],
    *,
    method: str,
    raw_target: bytes,
    body: bytes,
    now_ms: int,
    max_skew_ms: int = MAX_SKEW_MS,
) -> KeyRecord:
    """The API key that signed this request, or a 401 `ServiceError`.

    ``raw_target`` is the path and query exactly as they arrived on the wire. The signature is
    checked before the timestamp so that a stranger learns nothing about the server's clock
    from the error; then a timestamp more than ``max_skew_ms`` away from ``now_ms`` (either
    direction; exactly ``max_skew_ms`` is still accepted) is refused as 2001.
    """
    key = lookup(signed.api_key) if signed.api_key else None
    expected = None
    if key is not None:
        message = signing_message(signed.api_key, signed.timestamp_ms, method, raw_target, body)
        expected = message_signature(key.secret, message)
    # Compare even for an unknown key, so both failures take the same path and time.
    ok = hmac.compare_digest(
        (expected or "0" * 64).encode("ascii"),
        signed.signature.encode("ascii", errors="replace"),
    )
    if key is None or expected is None or not ok:
        raise _unauthenticated("invalid API key or signature")
    skew = abs(now_ms - signed.timestamp_ms)
    if skew > max_skew_ms:
        raise ServiceError(
            ErrorCode.TIMESTAMP_SKEW,
            f"{TIMESTAMP_HEADER} is {skew} ms from server time {now_ms} "
            f"(at most {max_skew_ms} ms allowed); sync with GET /v1/status",
        )
    return key


REPLAY_MARGIN_MS = 1_000
"""How much longer than the skew window a write's signature is remembered (the wall clock
under the sandbox clock may step back a little)."""


class ReplayGuard:
    """The signatures of signed writes that reached the engine, remembered while they could
    still pass the skew check, so an exact replay is refused.

    A request stamped ``ts`` passes the skew check until server time ``ts + max_skew_ms``; its
    signature is kept until ``ts + max_skew_ms + margin_ms`` and then forgotten (pruned on every
    `check`), so memory holds only the writes of the last few seconds: at most what the
    request-token budget let through in that time.
    """

    def __init__(self, max_skew_ms: int = MAX_SKEW_MS, margin_ms: int = REPLAY_MARGIN_MS) -> None:
        self._keep_ms = max_skew_ms + margin_ms
        self._seen: set[tuple[str, str]] = set()
        self._expiry: list[tuple[int, str, str]] = []  # heap of (forget at, key, signature)

    def __len__(self) -> int:
        return len(self._seen)

    def _prune(self, now_ms: int) -> None:
        while self._expiry and self._expiry[0][0] < now_ms:
            _, key, signature = heapq.heappop(self._expiry)
            self._seen.discard((key, signature))

    def check(self, signed: SignedHeaders, now_ms: int) -> None:
        """Refuse (401/2000) a write whose exact signed request has been carried out already."""
        self._prune(now_ms)
        if (signed.api_key, signed.signature) in self._seen:
            raise _unauthenticated(
                "replayed request: this exact signed request (same key, timestamp, signature "
                "and body) was already received; sign every request afresh"
            )

    def remember(self, signed: SignedHeaders) -> None:
        """Record a write that passed every check and goes to the engine now."""
        entry = (signed.api_key, signed.signature)
        if entry not in self._seen:
            self._seen.add(entry)
            heapq.heappush(
                self._expiry,
                (signed.timestamp_ms + self._keep_ms, signed.api_key, signed.signature),
            )
