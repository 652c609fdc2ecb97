"""`ListCalls`: the list endpoints of the catalogue, one typed method each, and `iterate`.

Each method asks one page (``limit`` and ``offset`` checked locally first, see
`tui.api.client.paging`) and reads it as the catalogue's record type; `iterate` follows
``next_page`` through every page of one of them. `ServiceClient` is built on this room; what it
adds is the rest of the catalogue (single answers and writes) and the link's figures.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

from tui.api.client import paging
from tui.api.endpoints import endpoint_named

if TYPE_CHECKING:
    from tui.api.client.transport import Sender
    from tui.api.models import (
        RFQ,
        AggregatedPosition,
        Asset,
        Company,
        Page,
        Position,
        Quote,
        SettlementPool,
        Trade,
        Transfer,
    )

__all__ = ["ListCalls"]

R = TypeVar("R")


class ListCalls:
    """The catalogue's list endpoints over a `Sender` (``_sender``, set by the subclass)."""

    _sender: Sender

    async def _list(self, name: str, params: dict[str, Any]) -> Page[Any]:
        endpoint = endpoint_named(name)
        paging.check_paging(endpoint, params.get("limit"), params.get("offset"))
        return await paging.fetch_page(self._sender, endpoint, params)

    async def companies(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Company]:
        """``GET /v1/companies``: companies on the venue, optionally one by id."""
        return await self._list("companies", {"id": id, "limit": limit, "offset": offset})

    async def portfolio_assets(
        self, *, pool: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Asset]:
        """``GET /v1/portfolio/assets``: balances in one pool, or summed over all pools."""
        return await self._list(
            "portfolio_assets", {"pool": pool, "limit": limit, "offset": offset}
        )

    async def portfolio_positions(
        self, *, pool: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Position]:
        """``GET /v1/portfolio/positions``: positions in one pool, or in all pools."""
        return await self._list(
            "portfolio_positions", {"pool": pool, "limit": limit, "offset": offset}
        )

    async def portfolio_aggregated_positions(
        self, *, limit: int | None = None, offset: int | None = None
    ) -> Page[AggregatedPosition]:
        """``GET /v1/portfolio/positions/aggregated``: positions valued at the mark (cost 10)."""
        return await self._list(
            "portfolio_aggregated_positions", {"limit": limit, "offset": offset}
        )

    async def portfolio_trades(
        self,
        *,
        pool: str | None = None,
        id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[Trade]:
        """``GET /v1/portfolio/trades``: the company's trades, by pool or trade id."""
        return await self._list(
            "portfolio_trades", {"pool": pool, "id": id, "limit": limit, "offset": offset}
        )

    async def quotes(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Quote]:
        """``GET /v1/quotes``: the maker's own quotes, including cancelled and replaced ones."""
        return await self._list("quotes", {"id": id, "limit": limit, "offset": offset})

    async def quotes_sent(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Quote]:
        """``GET /v1/quotes/sent``: quotes this company sent as maker."""
        return await self._list("quotes_sent", {"id": id, "limit": limit, "offset": offset})

    async def quotes_received(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[Quote]:
        """``GET /v1/quotes/received``: quotes made on this company's RFQs."""
        return await self._list("quotes_received", {"id": id, "limit": limit, "offset": offset})

    async def rfqs_sent(
        self,
        *,
        id: str | None = None,
        price: bool | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[RFQ]:
        """``GET /v1/rfqs/sent``: this company's RFQs (cost 10); ``price`` fills structure_price."""
        return await self._list(
            "rfqs_sent", {"id": id, "price": price, "limit": limit, "offset": offset}
        )

    async def rfqs_received(
        self,
        *,
        id: str | None = None,
        price: bool | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[RFQ]:
        """``GET /v1/rfqs/received``: RFQs that target this company (cost 10)."""
        return await self._list(
            "rfqs_received", {"id": id, "price": price, "limit": limit, "offset": offset}
        )

    async def settlement_pools(
        self, *, id: str | None = None, limit: int | None = None, offset: int | None = None
    ) -> Page[SettlementPool]:
        """``GET /v1/settlement_pools``: pools this company is party to (cost 10)."""
        return await self._list("settlement_pools", {"id": id, "limit": limit, "offset": offset})

    async def transfers(
        self,
        *,
        pool: str | None = None,
        id: str | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Page[Transfer]:
        """``GET /v1/transfers``: deposits, withdrawals and clearing movements."""
        return await self._list(
            "transfers", {"pool": pool, "id": id, "limit": limit, "offset": offset}
        )

    # -- every page -------------------------------------------------------------------------

    @overload
    def iterate(
        self, endpoint: Callable[..., Awaitable[Page[R]]], **filters: Any
    ) -> AsyncIterator[R]: ...

    @overload
    def iterate(self, endpoint: str, **filters: Any) -> AsyncIterator[Any]: ...

    def iterate(
        self, endpoint: str | Callable[..., Awaitable[Page[Any]]], **filters: Any
    ) -> AsyncIterator[Any]:
        """Every record of a list endpoint, page after page, following ``next_page``.

        ``endpoint`` is a catalogue name (``"rfqs_received"``) or the bound list method
        (``client.rfqs_received``); ``filters`` are that method's keyword arguments. Each
        further page is asked with the filters plus the ``next_page`` values, sent back
        exactly as the server gave them.
        """
        name = endpoint if isinstance(endpoint, str) else getattr(endpoint, "__name__", "")
        return paging.iterate(self._sender, name, filters)
