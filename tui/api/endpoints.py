"""The interface's endpoint catalogue: method, path, request-token cost, page limit, writes.

One table that the client (what to charge the budget, which limit to cap), the sandbox (what to
route, what to charge, what a ``reader`` key may not call) and the desk's feed (what a poll costs)
all read, so the numbers of the interface live in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = [
    "BUDGET_TOKENS",
    "BUDGET_WINDOW_S",
    "DEFAULT_PAGE_SIZE",
    "ENDPOINTS",
    "STATS_GLOBAL_PER_MINUTE",
    "STATS_PER_IP",
    "STATS_WINDOW_S",
    "Endpoint",
    "Method",
    "endpoint_for",
    "endpoint_named",
]

BUDGET_TOKENS = 100
"""Request tokens a company may spend in any sliding window of `BUDGET_WINDOW_S` seconds."""
BUDGET_WINDOW_S = 10.0
DEFAULT_PAGE_SIZE = 1000
"""Records per page when ``limit`` is omitted (capped at the endpoint's maximum)."""
STATS_PER_IP = 10
STATS_WINDOW_S = 10.0
STATS_GLOBAL_PER_MINUTE = 1000
MAX_SKEW_MS = 5000
"""How far a request timestamp may be from server time before it is refused."""


class Method(StrEnum):
    """HTTP methods the interface uses."""

    GET = "GET"
    POST = "POST"


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One method+path pair of the trading API.

    ``max_limit`` is set for list endpoints (they page); ``writes`` marks calls a ``reader``
    key may not make; ``auth`` is False for the two endpoints that need no signature.
    """

    name: str
    method: Method
    path: str
    cost: int
    max_limit: int | None = None
    filters: tuple[str, ...] = ()
    writes: bool = False
    auth: bool = True


def _get(
    name: str, path: str, cost: int, max_limit: int | None = None, filters: tuple[str, ...] = ()
) -> Endpoint:
    return Endpoint(name, Method.GET, path, cost, max_limit, filters)


def _post(name: str, path: str, cost: int = 20) -> Endpoint:
    return Endpoint(name, Method.POST, path, cost, writes=True)


ENDPOINTS: tuple[Endpoint, ...] = (
    _get("companies", "/v1/companies", 1, 10_000, ("id",)),
    _get("portfolio_assets", "/v1/portfolio/assets", 1, 10_000, ("pool",)),
    _get("portfolio_positions", "/v1/portfolio/positions", 1, 10_000, ("pool",)),
    _get("portfolio_aggregated_positions", "/v1/portfolio/positions/aggregated", 10, 10_000),
    _get("portfolio_trades", "/v1/portfolio/trades", 1, 10_000, ("pool", "id")),
    _get("portfolio_summary", "/v1/portfolio/summary", 10),
    _get("quotes", "/v1/quotes", 1, 1000, ("id",)),
    _get("quotes_sent", "/v1/quotes/sent", 1, 1000, ("id",)),
    _get("quotes_received", "/v1/quotes/received", 1, 1000, ("id",)),
    _post("quotes_new", "/v1/quotes/new"),
    _post("quotes_cancel", "/v1/quotes/cancel"),
    _post("quotes_cancel_all", "/v1/quotes/cancel_all"),
    _post("quotes_replace", "/v1/quotes/replace"),
    _post("quotes_accept", "/v1/quotes/accept"),
    _post("quotes_maker_last_look", "/v1/quotes/maker_last_look"),
    _get("rfqs_sent", "/v1/rfqs/sent", 10, 1000, ("id", "price")),
    _get("rfqs_received", "/v1/rfqs/received", 10, 1000, ("id", "price")),
    _post("rfqs_new", "/v1/rfqs/new"),
    _post("rfqs_cancel", "/v1/rfqs/cancel"),
    _get("settlement_pools", "/v1/settlement_pools", 10, 1000, ("id",)),
    _post("settlement_pools_new", "/v1/settlement_pools/new"),
    _get("transfers", "/v1/transfers", 1, 10_000, ("pool", "id")),
    _post("transfers_new", "/v1/transfers/new"),
    # The template only reads (it signs nothing and moves nothing), hence cost 1, but it is a
    # POST that prepares a write, so a reader key may not ask for one either.
    Endpoint(
        "transfers_permit_template", Method.POST, "/v1/transfers/permit/template", 1, writes=True
    ),
    _post("transfers_permit", "/v1/transfers/permit"),
    Endpoint("status", Method.GET, "/v1/status", 1, auth=False),
    Endpoint(
        "supported_assets",
        Method.GET,
        "/v1/metadata/supported_assets",
        1,
        filters=("verified",),
        auth=False,
    ),
)
"""Every method+path pair of the trading API, in the interface's order."""

_BY_ROUTE = {(e.method.value, e.path): e for e in ENDPOINTS}
_BY_NAME = {e.name: e for e in ENDPOINTS}


def endpoint_for(method: str, path: str) -> Endpoint | None:
    """The endpoint serving ``method`` on ``path`` (no query string), or None."""
    return _BY_ROUTE.get((method.upper(), path))


def endpoint_named(name: str) -> Endpoint:
    """The endpoint with this catalogue name; a KeyError names an unknown one."""
    return _BY_NAME[name]
