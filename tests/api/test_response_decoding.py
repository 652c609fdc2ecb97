"""Bodies with unpaired surrogates or absurd nesting never escape the client as crashes.

A ``\\ud800`` escape decodes to a string UTF-8 cannot encode (a terminal, a log, an export
fail on it) and that pydantic refuses as a key, which failed a whole page; JSON nested deeper
than the decoder's recursion limit raised RecursionError out of the client.
"""

from __future__ import annotations

import json
import sys

import httpx
import pytest

from tests.api.kit import FakeTime, FakeVenue, make_client
from tests.api.kit import records as rec
from tui.api.client import encode_body
from tui.api.errors import InvalidArgument, MalformedResponse, NotFound
from tui.api.jsonwire import MAX_JSON_DEPTH, decode_json, replace_lone_surrogates
from tui.api.models import NewRfqRequest
from tui.api.stats import STATS_PATH, StatsClient


def _raw(status: int, value: object) -> httpx.Response:
    # json.dumps escapes lone surrogates as \udXXX, as a server in any language might.
    return httpx.Response(status, content=json.dumps(value).encode("ascii"))


def test_decode_replaces_only_unpaired_surrogates() -> None:
    body = json.dumps({"k\ud800": ["a\udc00b", "\U0001f600", {"x": "\ud83d"}]}).encode()
    assert b"\\ud83d\\ude00" in body  # the emoji travels as a valid escaped pair
    assert decode_json(body) == {"k\ufffd": ["a\ufffdb", "\U0001f600", {"x": "\ufffd"}]}
    assert decode_json(b'{"plain": "text"}') == {"plain": "text"}
    assert replace_lone_surrogates([1, None, True, "ok"]) == [1, None, True, "ok"]


async def test_a_page_with_unpaired_surrogates_reads_and_can_be_written(
    fake_time: FakeTime,
) -> None:
    odd = dict(rec.COMPANY, legal_name="Bad \ud800 Name", **{"note\udc00": {"v": "\ud801"}})
    venue = FakeVenue().on(
        "GET", "/v1/companies", _raw(200, {"result": [rec.COMPANY, odd], "pagination": {}})
    )
    async with make_client(venue, fake_time) as client:
        companies = (await client.companies()).result
    assert companies[1].legal_name == "Bad \ufffd Name"
    assert companies[1].model_extra == {"note\ufffd": {"v": "\ufffd"}}
    assert companies[1].model_dump_json().encode("utf-8")


async def test_an_error_message_with_a_surrogate_is_printable(fake_time: FakeTime) -> None:
    body = {"error": {"code": 3000, "message": "no such pool \ud800"}}
    venue = FakeVenue().on("GET", "/v1/settlement_pools", _raw(404, body))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(NotFound) as caught:
            await client.settlement_pools()
    assert str(caught.value).encode("utf-8")
    assert "no such pool \ufffd" in str(caught.value)


@pytest.mark.parametrize(
    "deep",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"result": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001,
        b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1),
        b"[" * 100_000,  # unbalanced too
    ],
)
async def test_absurdly_nested_json_is_a_malformed_response(
    fake_time: FakeTime, deep: bytes
) -> None:
    # With a raised recursion limit (some libraries raise it) the C decoder would run off the
    # C stack and kill the process: the body must be refused before it is decoded.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000_000)
    try:
        venue = FakeVenue().on("GET", "/v1/companies", httpx.Response(200, content=deep))
        async with make_client(venue, fake_time) as client:
            with pytest.raises(MalformedResponse):
                await client.companies()
        with pytest.raises(ValueError, match="nested deeper"):
            decode_json(deep)
    finally:
        sys.setrecursionlimit(limit)


def test_brackets_in_strings_and_moderate_nesting_still_decode() -> None:
    inside = {"name": "[{" * 5_000, "deep": json.loads("[" * 60 + "]" * 60)}
    assert decode_json(json.dumps(inside).encode()) == inside
    at_limit = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert decode_json(at_limit) == json.loads(at_limit)


async def test_stats_with_a_surrogate_read(fake_time: FakeTime) -> None:
    stats = json.loads(json.dumps(rec.MARKET_STATS))
    stats["listings"][0]["name"] = "Bit\udc00coin"
    venue = FakeVenue().on("GET", STATS_PATH, _raw(200, stats))
    async with StatsClient(
        "http://stats.test",
        httpx.MockTransport(venue.handler),
        sleep=fake_time.sleep,
        monotonic=fake_time.clock,
    ) as client:
        parsed = await client.stats()
    assert parsed.listings[0].name == "Bit\ufffdcoin"


async def test_a_request_text_utf8_cannot_carry_is_refused_before_sending(
    fake_time: FakeTime,
) -> None:
    request = NewRfqRequest(
        structure={
            "legs": [{"side": "buy", "instrument": dict(rec.PERP, settlement_asset="\ud800")}]
        },
        qty="1",
        expires_at="2030-01-01T00:00:00Z",
        target_companies=[rec.MAKER],
    )
    with pytest.raises(InvalidArgument) as caught:
        encode_body(request)
    assert caught.value.field == "body"
    venue = FakeVenue()
    async with make_client(venue, fake_time) as client:
        with pytest.raises(InvalidArgument):
            await client.rfqs_new(request)
    assert venue.requests == []
