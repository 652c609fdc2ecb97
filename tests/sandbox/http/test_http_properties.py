"""Hostile input to every endpoint over real HTTP: never a 500, never a hang, and every refusal
is the contract's error envelope naming what was wrong (the field, the parameter, the header).

Bounded example counts keep the whole file to a few seconds. The company budget is raised so
the properties are about input, not limits; each signed write signs a timestamp of its own
(inside the skew window), since the same signed write twice is a replay.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.sandbox.kit import rfq_request
from tui.api.endpoints import ENDPOINTS, Method
from tui.api.jsonwire import MAX_JSON_DEPTH

CODES = {
    400: {1000, 1001},
    401: {2000, 2001},
    403: {2002},
    404: {3000},
    405: {1000},
    409: {4000},
    413: {1001},
    429: {5000},
}
"""The error codes each refusal status may carry (the contract's table)."""
NIL = "00000000-0000-4000-8000-000000000000"
POSTS = [e.path for e in ENDPOINTS if e.method is Method.POST]
GETS = [e for e in ENDPOINTS if e.method is Method.GET]
SETTINGS = settings(
    max_examples=80,
    deadline=2_000,  # a hang shows up as a missed deadline, not a stuck run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_stamps = itertools.count()


@pytest.fixture
def roomy(sandbox_factory: Any) -> Any:
    """A sandbox whose budget never gets in the way of a property."""
    return sandbox_factory(token_budget=1_000_000_000)


def message_of(response: httpx.Response) -> str:
    """The refusal's message, after checking it is the contract's envelope for its status."""
    assert response.status_code != 500, response.text
    assert response.status_code in CODES, response.status_code
    assert response.headers["content-type"] == "application/json"
    assert int(response.headers["X-Request-Received-Ms"]) > 0
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] in CODES[response.status_code], body
    message = body["error"]["message"]
    assert isinstance(message, str) and message.strip()
    return message


def signed(sandbox: Any, method: str, target: str, body: bytes = b"", **kw: Any) -> httpx.Response:
    """``method target`` with ``body``, signed with a timestamp no other request used."""
    stamp = sandbox.clock.now_ms() - next(_stamps) % 4_000
    return sandbox.request(method, target, body, timestamp_ms=stamp, **kw)


@SETTINGS
@given(path=st.sampled_from(POSTS), body=st.binary(max_size=200))
def test_random_bytes_to_every_write(roomy: Any, path: str, body: bytes) -> None:
    response = signed(roomy, "POST", path, body)
    if response.status_code != 200:
        message = message_of(response)
        assert response.status_code in (400, 404, 409), message
        assert "body" in message or ": " in message, message


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=60)
    | st.sampled_from(["", "0", "-1", "1e400", NIL, "buy", "USDC", "2020-01-01T00:00:00Z"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner),
    max_leaves=12,
)
FIELDS = [
    "id",
    "rfq_id",
    "parent_quote_id",
    "side",
    "action",
    "qty",
    "structure",
    "expires_at",
    "leg_quotes",
    "pool_strategy",
    "target_companies",
    "pool_name",
    "company_other",
    "asset",
    "transfer_type",
    "pool_address",
    "allowance",
    "message",
    "signature",
]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    path=st.sampled_from(POSTS),
    body=st.dictionaries(st.sampled_from(FIELDS), JSON_VALUES, max_size=6) | JSON_VALUES,
)
def test_fuzzed_bodies_never_cause_a_500(sandbox: Any, path: str, body: Any) -> None:
    sandbox.advance(10)  # keep the budget fresh: this test is about input, not limits
    response = sandbox.request("POST", path, json.dumps(body).encode())
    assert response.status_code in (200, 400, 403, 404, 409), response.text
    if response.status_code != 200:
        message_of(response)


# One field of a valid RFQ replaced by raw JSON text: huge, tiny or odd numbers, deep nesting,
# long strings, wrong types. A field-level refusal must name the field.
RAW_VALUES = st.one_of(
    st.sampled_from(
        [
            "1e999999",
            "-1e999999",
            "1e-999999",
            "-0",
            "0.00000000000000000000000000000001",
            "9" * 5_000,
            "-" + "9" * 4_000,
            "9" * 400 + "." + "9" * 400,
            "NaN",
            "Infinity",
            "null",
            "true",
            "[]",
            "{}",
            '""',
            '"' + "x" * 5_000 + '"',
            '"\\ud800"',
            '"\\u0000"',
        ]
    ),
    st.integers(min_value=1, max_value=3 * MAX_JSON_DEPTH).map(lambda n: "[" * n + "]" * n),
    st.integers(min_value=1, max_value=3 * MAX_JSON_DEPTH).map(
        lambda n: '{"a":' * n + "1" + "}" * n
    ),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.text(max_size=30).map(json.dumps),
)


@SETTINGS
@given(
    field=st.sampled_from(["qty", "expires_at", "structure", "target_companies"]), raw=RAW_VALUES
)
def test_a_hostile_field_is_refused_by_name(roomy: Any, field: str, raw: str) -> None:
    body = rfq_request(roomy).model_dump(mode="json", exclude_none=True)
    body[field] = "@@RAW@@"
    text = json.dumps(body, separators=(",", ":")).replace('"@@RAW@@"', raw).encode()
    response = signed(roomy, "POST", "/v1/rfqs/new", text)
    if response.status_code != 200:
        message = message_of(response)
        assert response.status_code == 400, message
        assert message.startswith(field) or "not valid JSON" in message, message


# What a query may hold on the wire unencoded (RFC 3986), plus a stray ``%``: the client's
# URL handling would re-encode anything else, and the signature must cover the bytes sent.
QUERY_TEXT = st.text(
    alphabet="ABCXYZabcxyz0123456789-._~!$&'()*+,;=:@/?%",
    max_size=60,
)
QUERY_PAIRS = st.lists(
    st.tuples(
        st.sampled_from(["limit", "offset", "id", "pool", "price", "verified", "x", ""]),
        st.sampled_from(
            ["", "0", "-1", "1.5", "99999999999999", "true", "%ZZ", "%C3%A9", "%FF", "%00"]
        )
        | QUERY_TEXT,
    ),
    max_size=4,
).map(lambda pairs: "&".join(f"{name}={value}" for name, value in pairs))


@SETTINGS
@given(endpoint=st.sampled_from(GETS), query=QUERY_TEXT | QUERY_PAIRS)
def test_bad_query_strings_name_the_parameter(roomy: Any, endpoint: Any, query: str) -> None:
    target = f"{endpoint.path}?{query}" if query else endpoint.path
    response = signed(roomy, "GET", target)
    if response.status_code != 200:
        message = message_of(response)
        assert response.status_code == 400, message
        assert "query parameter" in message or "query string" in message, message


# Any byte a header value may carry (visible ASCII, obs-text, inner spaces): HTTP itself
# refuses the rest before the server sees it.
_HEADER_BYTES = [b for b in range(0x21, 0x100) if b != 0x7F]
HEADER_VALUE = st.lists(st.sampled_from([*_HEADER_BYTES, 0x20]), min_size=1, max_size=80).map(
    lambda values: bytes(values).strip(b" ") or b"x"
)
AUTH_HEADERS = ["X-Request-Timestamp-Ms", "X-Service-Key", "X-Service-Signature"]


@SETTINGS
@given(
    endpoint=st.sampled_from(ENDPOINTS),
    replaced=st.dictionaries(st.sampled_from(AUTH_HEADERS), HEADER_VALUE, min_size=1),
    dropped=st.sets(st.sampled_from(AUTH_HEADERS), max_size=2),
)
def test_bad_auth_headers_are_refused_naming_them(
    roomy: Any, endpoint: Any, replaced: dict[str, bytes], dropped: set[str]
) -> None:
    body = b"{}" if endpoint.method is Method.POST else b""
    headers: dict[str, Any] = dict(roomy.signed_headers(endpoint.method.value, endpoint.path, body))
    for name in dropped:
        del headers[name]
    headers.update(replaced)
    response = roomy.request(
        endpoint.method.value, endpoint.path, body, as_company=None, headers=headers
    )
    if not endpoint.auth:  # status and supported assets answer anyway, without an identity
        assert response.status_code == 200, response.text
        return
    if response.status_code == 200:  # the "bad" value happened to be the right one
        return
    message = message_of(response)
    assert response.status_code in (400, 401, 404, 409), message
    if response.status_code == 401:
        assert any(name in message for name in AUTH_HEADERS) or "API key or signature" in message
