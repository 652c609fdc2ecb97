"""From a routed, authenticated request to the engine call and its JSON envelope.

The endpoint catalogue (`tui.api.endpoints`) says which engine method serves a request (the
method has the endpoint's name), what its body decodes into (`Endpoint.request`) and whether it
answers a page (`Endpoint.pages`). Pages become ``{"result": [...], "pagination": {"next_page":
{"limit": "..", "offset": ".."} | null}}``, everything else ``{"result": ...}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from tui.api.endpoints import Endpoint, Method
from tui.api.types import decimal_to_wire, format_timestamp
from tui.sandbox.http.query import parse_body, parse_query

__all__ = ["call_endpoint", "jsonable", "page_envelope", "single_envelope"]


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON data: models dumped in wire form, decimals as strings."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Decimal):
        return decimal_to_wire(value)
    if isinstance(value, datetime):
        return format_timestamp(value)
    return value


def page_envelope(items: list[Any], *, has_more: bool, limit: int, offset: int) -> dict[str, Any]:
    """An ``ApiPage``: the records and, when more exist, the query values of the next page."""
    next_page = {"limit": str(limit), "offset": str(offset + limit)} if has_more else None
    return {"result": [jsonable(item) for item in items], "pagination": {"next_page": next_page}}


def single_envelope(value: Any) -> dict[str, Any]:
    """An ``ApiSingle``: ``{"result": value}``."""
    return {"result": jsonable(value)}


def call_endpoint(
    exchange: Any, endpoint: Endpoint, caller: Any, query_string: bytes, body: bytes
) -> dict[str, Any]:
    """Parse the request for ``endpoint``, call the engine method of that name, wrap the result.

    ``caller`` is the authenticated `Caller` (None only for the endpoints without auth). Bad
    input raises a 400 `ServiceError`; the engine's own refusals pass through unchanged.
    """
    if endpoint.method is Method.POST:
        request = parse_body(endpoint.name, body)
        handler = getattr(exchange, endpoint.name)
        result = handler(caller) if request is None else handler(caller, request)
        return single_envelope(result)

    query = parse_query(endpoint, query_string)
    if endpoint.name == "supported_assets":  # public token metadata: the one read without a caller
        return single_envelope(exchange.supported_assets(verified=query.filters.get("verified")))
    handler = getattr(exchange, endpoint.name)
    if not endpoint.pages or query.limit is None or query.offset is None:
        return single_envelope(handler(caller, **query.filters))
    page = handler(caller, limit=query.limit, offset=query.offset, **query.filters)
    return page_envelope(page.items, has_more=page.has_more, limit=query.limit, offset=query.offset)
