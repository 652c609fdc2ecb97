"""What the client makes of a call's arguments: the query and body encodings, and bad
arguments refused before anything is sent."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from tests.api.kit import FakeTime, FakeVenue, make_client
from tests.api.kit.calls import NEW_POOL, Call
from tui.api.client import encode_body, encode_query
from tui.api.errors import InvalidArgument


def test_query_encoding() -> None:
    assert encode_query(
        {"a": None, "b": True, "c": False, "d": 5, "e": "x", "f": Decimal("1E+2")}
    ) == [
        ("b", "true"),
        ("c", "false"),
        ("d", "5"),
        ("e", "x"),
        ("f", "100"),
    ]


def test_body_is_compact_utf8_json_of_the_wire_form() -> None:
    raw = encode_body(NEW_POOL)
    assert raw.startswith(b'{"pool_name":"D\xc3\xa9sk \xe2\x86\x94 Alpha","company_other":')
    assert json.loads(raw) == NEW_POOL.to_wire()


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.rfqs_received(limit=1001), "limit"),
        (lambda c: c.companies(limit=10_001), "limit"),
        (lambda c: c.quotes(limit=0), "limit"),
        (lambda c: c.transfers(offset=-1), "offset"),
        (lambda c: c.quotes_cancel("not-a-uuid"), "id"),
        (lambda c: c.rfqs_cancel(""), "id"),
    ],
)
async def test_bad_arguments_are_refused_before_sending(
    fake_time: FakeTime, call: Call, field: str
) -> None:
    venue = FakeVenue()
    async with make_client(venue, fake_time) as client:
        with pytest.raises(InvalidArgument) as caught:
            await call(client)
        assert client.tokens_used == 0
    assert caught.value.field == field
    assert field in str(caught.value)
    assert venue.requests == []


async def test_limit_error_names_the_maximum(fake_time: FakeTime) -> None:
    async with make_client(FakeVenue(), fake_time) as client:
        with pytest.raises(InvalidArgument, match="at most 1000"):
            await client.settlement_pools(limit=5000)
