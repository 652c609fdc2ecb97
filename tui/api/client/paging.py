"""The list endpoints: one page, every page, and the checks of ``limit``, ``offset`` and filters.

Which endpoints page, what their records are and which filters they take all come from the
catalogue (`Endpoint.pages`, `Endpoint.response`, `Endpoint.filters`). A page's adapter is built
the first time that endpoint is read and kept, and reads the page straight from its bytes
(`tui.api.client.wire.parse_json`). Further pages are asked with the caller's filters plus the
``next_page`` values, sent back exactly as the server gave them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from tui.api.client.transport import Sender
from tui.api.client.wire import encode_query, endpoint_label, parse_json
from tui.api.endpoints import Endpoint, endpoint_named
from tui.api.errors import InvalidArgument, MalformedResponse

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from tui.api.models import Page

__all__ = ["check_paging", "fetch_page", "iterate", "page_adapter"]

_PAGE_ADAPTERS: dict[str, TypeAdapter[Page[Any]]] = {}


def page_adapter(endpoint: Endpoint) -> TypeAdapter[Page[Any]]:
    """The adapter that reads one page of list endpoint ``endpoint``, built on first use."""
    adapter = _PAGE_ADAPTERS.get(endpoint.name)
    if adapter is None:
        if not endpoint.pages:
            raise ValueError(f"{endpoint.name} is not a list endpoint")
        # Loaded with the first adapter, not at import.
        from pydantic import TypeAdapter

        from tui.api.models import Page

        record = endpoint.response
        adapter = TypeAdapter(Page[record])  # type: ignore[valid-type]
        _PAGE_ADAPTERS[endpoint.name] = adapter
    return adapter


def check_paging(endpoint: Endpoint, limit: Any, offset: Any) -> None:
    """Refuse a ``limit`` or ``offset`` the endpoint would refuse, before any token is spent."""
    label = endpoint_label(endpoint)
    maximum = endpoint.max_limit
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int):
            raise InvalidArgument("limit", "must be a whole number", endpoint=label)
        if limit < 1:
            raise InvalidArgument("limit", "must be at least 1", endpoint=label)
        if maximum is not None and limit > maximum:
            raise InvalidArgument(
                "limit",
                f"must be at most {maximum} for {endpoint.name} (got {limit})",
                endpoint=label,
            )
    if offset is not None:
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise InvalidArgument("offset", "must be a whole number", endpoint=label)
        if offset < 0:
            raise InvalidArgument("offset", "must not be negative", endpoint=label)


async def fetch_page(sender: Sender, endpoint: Endpoint, params: Mapping[str, Any]) -> Page[Any]:
    """One page of a list endpoint, its records read as the catalogue's record type."""
    reply = await sender.call(endpoint, params=params)
    return parse_json(page_adapter(endpoint), reply.content, reply.label)


def _list_endpoint(name: str) -> Endpoint:
    try:
        endpoint = endpoint_named(name)
    except KeyError:
        endpoint = None
    if endpoint is None or not endpoint.pages:
        raise InvalidArgument("endpoint", f"{name!r} is not a list endpoint")
    return endpoint


def iterate(sender: Sender, name: str, filters: Mapping[str, Any]) -> AsyncIterator[Any]:
    """Every record of list endpoint ``name``, page after page, following ``next_page``.

    The name, the filters and the paging values are checked now, so a mistake raises at the
    call rather than at the first iteration.
    """
    endpoint = _list_endpoint(name)
    allowed = (*endpoint.filters, "limit", "offset")
    for key in filters:
        if key not in allowed:
            raise InvalidArgument(key, f"is not a filter of {name} (allowed: {', '.join(allowed)})")
    check_paging(endpoint, filters.get("limit"), filters.get("offset"))
    return _records(sender, endpoint, dict(filters))


async def _records(
    sender: Sender, endpoint: Endpoint, filters: dict[str, Any]
) -> AsyncIterator[Any]:
    params = filters
    seen: set[tuple[tuple[str, str], ...]] = set()
    while True:
        page = await fetch_page(sender, endpoint, params)
        for record in page.result:
            yield record
        next_page = page.pagination.next_page
        if not next_page:
            return
        key = tuple(sorted(encode_query(next_page)))
        if key in seen:
            raise MalformedResponse(
                "pagination points back to a page already read",
                status=200,
                endpoint=endpoint_label(endpoint),
            )
        seen.add(key)
        params = {**filters, **next_page}
