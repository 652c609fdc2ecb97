"""The endpoint catalogue against the interface's tables, and the two layers that read it."""

from __future__ import annotations

from tui.api.client import ServiceClient
from tui.api.endpoints import ENDPOINTS, Method, endpoint_for
from tui.sandbox.http.query import FILTER_PARSERS

# The interface's "Request-token costs" table, transcribed row by row.
_COSTS = {
    1: {
        "GET /v1/companies",
        "GET /v1/portfolio/assets",
        "GET /v1/portfolio/positions",
        "GET /v1/portfolio/trades",
        "GET /v1/quotes",
        "GET /v1/quotes/sent",
        "GET /v1/quotes/received",
        "GET /v1/transfers",
        "POST /v1/transfers/permit/template",
        # contract.md: status and supported assets cost 1
        "GET /v1/status",
        "GET /v1/metadata/supported_assets",
    },
    10: {
        "GET /v1/portfolio/positions/aggregated",
        "GET /v1/portfolio/summary",
        "GET /v1/rfqs/sent",
        "GET /v1/rfqs/received",
        "GET /v1/settlement_pools",
    },
    20: {
        "POST /v1/quotes/new",
        "POST /v1/quotes/cancel",
        "POST /v1/quotes/cancel_all",
        "POST /v1/quotes/replace",
        "POST /v1/quotes/accept",
        "POST /v1/quotes/maker_last_look",
        "POST /v1/rfqs/new",
        "POST /v1/rfqs/cancel",
        "POST /v1/settlement_pools/new",
        "POST /v1/transfers/new",
        "POST /v1/transfers/permit",
    },
}


def test_every_endpoint_costs_what_the_interface_says() -> None:
    catalogue = {f"{e.method.value} {e.path}": e.cost for e in ENDPOINTS}
    expected = {route: cost for cost, routes in _COSTS.items() for route in routes}
    assert catalogue == expected


def test_page_limits_follow_the_interface() -> None:
    big = {"companies", "portfolio_assets", "portfolio_positions", "transfers"}
    big |= {"portfolio_aggregated_positions", "portfolio_trades"}
    for endpoint in ENDPOINTS:
        if endpoint.name in big:
            assert endpoint.max_limit == 10_000, endpoint.name
        elif getattr(ServiceClient, endpoint.name).__annotations__["return"].startswith("Page["):
            assert endpoint.max_limit == 1000, endpoint.name
        else:
            assert endpoint.max_limit is None, endpoint.name


def test_only_posts_write_and_only_status_and_assets_skip_auth() -> None:
    for endpoint in ENDPOINTS:
        assert endpoint.writes is (endpoint.method is Method.POST)
        assert endpoint.auth is (endpoint.name not in {"status", "supported_assets"})
        assert endpoint_for(endpoint.method.value, endpoint.path) is endpoint


def test_client_has_a_method_per_endpoint_and_sandbox_parses_every_filter() -> None:
    for endpoint in ENDPOINTS:
        assert callable(getattr(ServiceClient, endpoint.name, None)), endpoint.name
        assert set(endpoint.filters) <= set(FILTER_PARSERS), endpoint.name
