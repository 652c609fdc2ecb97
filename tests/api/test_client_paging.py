"""The client's paging on the wire: `iterate` follows ``next_page`` exactly, keeps the
filters, refuses bad arguments at once and stops on a loop; a single page carries its
``next_page``."""

from __future__ import annotations

import pytest

from tests.api.kit import FakeTime, FakeVenue, make_client, page
from tests.api.kit import records as rec
from tui.api.errors import InvalidArgument, MalformedResponse
from tui.api.models import Company


def _company(n: int) -> dict[str, object]:
    return dict(rec.COMPANY, id=f"a1b2c3d4-0000-4000-8000-{n:012d}", short_name=f"C{n}")


async def test_iterate_follows_next_page_exactly(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/companies",
        page([_company(1), _company(2)], {"limit": "2", "offset": "2"}),
        page([_company(3), _company(4)], {"limit": "2", "offset": "4", "cursor": "Zm9v+/="}),
        page([_company(5)], None),
    )
    async with make_client(venue, fake_time) as client:
        names = [c.short_name async for c in client.iterate(client.companies, limit=2)]
        assert client.tokens_used == 3
    assert names == ["C1", "C2", "C3", "C4", "C5"]
    queries = [list(r.url.params.multi_items()) for r in venue.requests]
    assert queries == [
        [("limit", "2")],
        [("limit", "2"), ("offset", "2")],
        [("limit", "2"), ("offset", "4"), ("cursor", "Zm9v+/=")],
    ]


async def test_iterate_by_name_keeps_the_filters(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET",
        "/v1/rfqs/received",
        page([rec.RFQ], {"limit": "1000", "offset": "1000"}),
        page([rec.RFQ], None),
    )
    async with make_client(venue, fake_time) as client:
        rfqs = [r async for r in client.iterate("rfqs_received", price=False)]
    assert len(rfqs) == 2
    assert [dict(r.url.params) for r in venue.requests] == [
        {"price": "false"},
        {"price": "false", "limit": "1000", "offset": "1000"},
    ]


async def test_iterate_refuses_bad_arguments_at_once(fake_time: FakeTime) -> None:
    async with make_client(FakeVenue(), fake_time) as client:
        with pytest.raises(InvalidArgument) as caught:
            client.iterate(client.quotes, limit=5000)
        assert caught.value.field == "limit"
        with pytest.raises(InvalidArgument) as caught:
            client.iterate("companies", pool="x")
        assert caught.value.field == "pool"
        with pytest.raises(InvalidArgument, match="not a list endpoint"):
            client.iterate("quotes_new")


async def test_iterate_stops_on_a_pagination_loop(fake_time: FakeTime) -> None:
    venue = FakeVenue().on("GET", "/v1/quotes", page([rec.QUOTE], {"offset": "1"}))
    async with make_client(venue, fake_time) as client:
        with pytest.raises(MalformedResponse, match="pagination"):
            _ = [q async for q in client.iterate("quotes")]
    assert len(venue.requests) == 2


async def test_single_page_carries_next_page(fake_time: FakeTime) -> None:
    venue = FakeVenue().on(
        "GET", "/v1/companies", page([rec.COMPANY], {"limit": "1", "offset": "1"})
    )
    async with make_client(venue, fake_time) as client:
        result = await client.companies(limit=1)
    assert result.pagination.next_page == {"limit": "1", "offset": "1"}
    assert isinstance(result.result[0], Company)
