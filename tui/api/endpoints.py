"""The interface's endpoint catalogue: method, path, cost, page limit, writes, and models.

One table that the client (what to charge the budget, which limit to cap, what a page or an
answer parses into), the sandbox (what to route, what to charge, what a ``reader`` key may not
call, what a body decodes into) and the desk's feed (what a poll costs) all read, so the facts
of the interface live in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.api.models import Request

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


def _resolve(ref: Any) -> Any:
    """A catalogue type: a model named by a string is looked up in `tui.api.models` (loaded
    then, not when the catalogue is imported); anything else is the type itself."""
    if isinstance(ref, str):
        from tui.api import models

        return getattr(models, ref)
    return ref


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One method+path pair of the trading API.

    ``max_limit`` is set for list endpoints (they page); ``writes`` marks calls a ``reader``
    key may not make; ``auth`` is False for the two endpoints that need no signature.
    `request` is the body model of a POST (None: no body). `response` is what the ``result``
    holds: for a list endpoint the model of one record of a page, otherwise the type of the
    whole result (a model, ``bool``, or a typing form such as ``dict[str, Any]``). The table
    names models by string (``response_ref``, ``request_ref``), so importing the catalogue
    builds no model: the client, the sandbox and the desk load a model when they first use it.
    """

    name: str
    method: Method
    path: str
    cost: int
    response_ref: Any
    max_limit: int | None = None
    filters: tuple[str, ...] = ()
    writes: bool = False
    auth: bool = True
    request_ref: str | None = None

    @property
    def pages(self) -> bool:
        """True for a list endpoint: it takes ``limit``/``offset`` and answers a page."""
        return self.max_limit is not None

    @property
    def response(self) -> Any:
        """The type of one record of a page (list endpoint) or of the whole ``result``."""
        return _resolve(self.response_ref)

    @property
    def request(self) -> type[Request] | None:
        """The body model of a POST, or None when it takes no body."""
        return None if self.request_ref is None else _resolve(self.request_ref)


def _get(
    name: str,
    path: str,
    cost: int,
    response: Any,
    max_limit: int | None = None,
    filters: tuple[str, ...] = (),
) -> Endpoint:
    return Endpoint(name, Method.GET, path, cost, response, max_limit, filters)


def _post(name: str, path: str, request: str | None, response: Any, cost: int = 20) -> Endpoint:
    return Endpoint(name, Method.POST, path, cost, response, writes=True, request_ref=request)


ENDPOINTS: tuple[Endpoint, ...] = (
    _get("companies", "/v1/companies", 1, "Company", 10_000, ("id",)),
    _get("portfolio_assets", "/v1/portfolio/assets", 1, "Asset", 10_000, ("pool",)),
    _get("portfolio_positions", "/v1/portfolio/positions", 1, "Position", 10_000, ("pool",)),
    _get(
        "portfolio_aggregated_positions",
        "/v1/portfolio/positions/aggregated",
        10,
        "AggregatedPosition",
        10_000,
    ),
    _get("portfolio_trades", "/v1/portfolio/trades", 1, "Trade", 10_000, ("pool", "id")),
    _get("portfolio_summary", "/v1/portfolio/summary", 10, "PortfolioSummary"),
    _get("quotes", "/v1/quotes", 1, "Quote", 1000, ("id",)),
    _get("quotes_sent", "/v1/quotes/sent", 1, "Quote", 1000, ("id",)),
    _get("quotes_received", "/v1/quotes/received", 1, "Quote", 1000, ("id",)),
    _post("quotes_new", "/v1/quotes/new", "NewQuoteRequest", "Quote"),
    _post("quotes_cancel", "/v1/quotes/cancel", "CancelRequest", bool),
    _post("quotes_cancel_all", "/v1/quotes/cancel_all", None, bool),
    _post("quotes_replace", "/v1/quotes/replace", "ReplaceQuoteRequest", "Quote"),
    _post("quotes_accept", "/v1/quotes/accept", "AcceptQuoteRequest", "QuoteAcceptResponse"),
    _post(
        "quotes_maker_last_look",
        "/v1/quotes/maker_last_look",
        "MakerLastLookRequest",
        "MakerLastLookResponse",
    ),
    _get("rfqs_sent", "/v1/rfqs/sent", 10, "RFQ", 1000, ("id", "price")),
    _get("rfqs_received", "/v1/rfqs/received", 10, "RFQ", 1000, ("id", "price")),
    _post("rfqs_new", "/v1/rfqs/new", "NewRfqRequest", "RFQ"),
    _post("rfqs_cancel", "/v1/rfqs/cancel", "CancelRequest", bool),
    _get("settlement_pools", "/v1/settlement_pools", 10, "SettlementPool", 1000, ("id",)),
    _post(
        "settlement_pools_new",
        "/v1/settlement_pools/new",
        "NewSettlementPoolRequest",
        "SettlementPool",
    ),
    _get("transfers", "/v1/transfers", 1, "Transfer", 10_000, ("pool", "id")),
    _post("transfers_new", "/v1/transfers/new", "NewTransferRequest", "Transfer"),
    # The template only reads (it signs nothing and moves nothing), hence cost 1, but it is a
    # POST that prepares a write, so a reader key may not ask for one either.
    _post(
        "transfers_permit_template",
        "/v1/transfers/permit/template",
        "PermitTemplateRequest",
        dict[str, Any],
        cost=1,
    ),
    _post("transfers_permit", "/v1/transfers/permit", "SubmitPermitRequest", bool),
    Endpoint("status", Method.GET, "/v1/status", 1, "Status", auth=False),
    Endpoint(
        "supported_assets",
        Method.GET,
        "/v1/metadata/supported_assets",
        1,
        "SupportedAssets",
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
