"""Query strings and JSON bodies of the trading API, parsed into what the engine takes.

Query parameters are checked per endpoint: ``limit`` (1..the endpoint's maximum, default
`DEFAULT_PAGE_SIZE` capped at the maximum), ``offset`` (>= 0), the UUID filters ``id`` and
``pool``, and the booleans ``price`` and ``verified``. A parameter the endpoint does not take is
refused (400) rather than ignored: a misspelt filter silently returning everything is the kind
of bug a desk should hear about. Bodies are validated with the request model the endpoint
catalogue names (`Endpoint.request`) and every refusal names the field path
(``leg_quotes.0.bid: must be greater than 0``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from pydantic import BaseModel, ValidationError

from tui.api.endpoints import DEFAULT_PAGE_SIZE, ENDPOINTS, Endpoint, Method, endpoint_named
from tui.api.jsonwire import JsonTooDeep, check_depth, lone_surrogate_path
from tui.api.types import JsonNumber
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "FILTERS",
    "FILTER_PARSERS",
    "ListQuery",
    "parse_body",
    "parse_json_object",
    "parse_query",
    "validation_error",
]


def _parse_uuid(name: str, raw: str) -> str:
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        raise ServiceError.bad_request(
            f"query parameter {name!r}: {raw[:40]!r} is not a valid UUID"
        ) from None


def _parse_bool(name: str, raw: str) -> bool:
    lowered = raw.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    raise ServiceError.bad_request(f"query parameter {name!r} must be true or false")


_UUID = _parse_uuid
_BOOL = _parse_bool

FILTER_PARSERS: dict[str, Callable[[str, str], Any]] = {
    "id": _UUID,
    "pool": _UUID,
    "price": _BOOL,
    "verified": _BOOL,
}
"""How each filter parameter of the catalogue (`Endpoint.filters`) is parsed."""

FILTERS: dict[str, dict[str, Callable[[str, str], Any]]] = {
    endpoint.name: {name: FILTER_PARSERS[name] for name in endpoint.filters}
    for endpoint in ENDPOINTS
    if endpoint.method is Method.GET
}
"""Per GET endpoint: the filter parameters it takes (besides limit/offset) and their parsers."""


@dataclass(frozen=True, slots=True)
class ListQuery:
    """A parsed query string: the page window (list endpoints only) and the filters given."""

    limit: int | None = None
    offset: int | None = None
    filters: dict[str, Any] = field(default_factory=dict)


def _parse_int(name: str, raw: str) -> int:
    text = raw.strip()
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isascii() or not digits.isdigit() or len(digits) > 12:
        raise ServiceError.bad_request(f"query parameter {name!r} must be an integer")
    return int(text)


def _pairs(query_string: bytes) -> dict[str, str]:
    try:
        text = query_string.decode("ascii")
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=False, errors="strict")
    except (UnicodeDecodeError, ValueError):
        raise ServiceError.bad_request(
            "the query string is not valid percent-encoded ASCII"
        ) from None
    seen: dict[str, str] = {}
    for name, value in pairs:
        if name in seen:
            raise ServiceError.bad_request(f"query parameter {name!r} is given more than once")
        seen[name] = value
    return seen


def parse_query(endpoint: Endpoint, query_string: bytes) -> ListQuery:
    """The limit, offset and filters of a GET request, checked against the endpoint.

    Raises a 400/1000 `ServiceError` naming the parameter for an unknown parameter, a value
    that does not parse, a ``limit`` outside 1..max or a negative ``offset``.
    """
    filters_of = FILTERS.get(endpoint.name, {})
    pages = endpoint.pages
    pairs = _pairs(query_string)
    filters: dict[str, Any] = {}
    limit: int | None = None
    offset: int | None = None
    for name, raw in pairs.items():
        if pages and name == "limit":
            limit = _parse_int(name, raw)
            max_limit = endpoint.max_limit or 0
            if not 1 <= limit <= max_limit:
                raise ServiceError.bad_request(
                    f"query parameter 'limit' must be between 1 and {max_limit}"
                )
        elif pages and name == "offset":
            offset = _parse_int(name, raw)
            if offset < 0:
                raise ServiceError.bad_request("query parameter 'offset' must not be negative")
        elif name in filters_of:
            if raw == "":
                raise ServiceError.bad_request(f"query parameter {name!r} has no value")
            filters[name] = filters_of[name](name, raw)
        else:
            accepted = (["limit", "offset"] if pages else []) + sorted(filters_of)
            known = f" (accepted: {', '.join(accepted)})" if accepted else ""
            raise ServiceError.bad_request(
                f"unknown query parameter {name[:40]!r} for {endpoint.path}{known}"
            )
    if pages:
        default = min(DEFAULT_PAGE_SIZE, endpoint.max_limit or DEFAULT_PAGE_SIZE)
        return ListQuery(limit=limit or default, offset=offset or 0, filters=filters)
    return ListQuery(filters=filters)


class _NotJsonNumber(ValueError):
    """``NaN`` / ``Infinity`` in a body: Python's decoder takes them, JSON does not."""


def _reject_constant(name: str) -> Any:
    raise _NotJsonNumber(f"{name} is not a JSON number")


def parse_json_object(body: bytes, *, required: bool = True) -> dict[str, Any]:
    """The body as a JSON object; numbers with a fraction become `Decimal`, never float.

    An empty body is ``{}`` when not ``required``. Anything that is not a JSON object is 400/1000,
    and so is a body nested deeper than the shared guard allows or holding a lone surrogate
    (`tui.api.jsonwire`): such text could never be encoded again in a later answer.
    """
    if not body.strip():
        if required:
            raise ServiceError.bad_request("a JSON object body is required")
        return {}
    try:
        check_depth(body)
    except JsonTooDeep as exc:
        raise ServiceError.bad_request(
            f"the body is not valid JSON: nested deeper than {exc.limit} levels"
        ) from None
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ServiceError.bad_request(
            f"the body is not valid JSON: byte {exc.start} is not UTF-8 text"
        ) from None
    try:
        value = json.loads(text, parse_float=JsonNumber, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        if isinstance(exc, json.JSONDecodeError):
            detail = f": {exc.msg} at position {exc.pos}"
        elif isinstance(exc, RecursionError):
            detail = ": nested too deeply"
        elif isinstance(exc, _NotJsonNumber):
            detail = f": {exc}"
        else:  # the decoder's own words name its internals (an integer over 4300 digits ...)
            detail = ": a number has too many digits"
        raise ServiceError.bad_request(f"the body is not valid JSON{detail}") from None
    if not isinstance(value, dict):
        raise ServiceError.bad_request("the body must be a JSON object")
    bad = lone_surrogate_path(value)
    if bad is not None:
        raise ServiceError.bad_request(
            f"{bad or 'body'}: contains an invalid unicode character (a lone surrogate escape "
            "such as \\ud800); send valid UTF-8 text"
        )
    return value


# Pydantic error types that mean "not the right shape" (400/1000); every other type means
# "the right shape but a value the service will not take" (400/1001).
_SHAPE_ERRORS = frozenset(
    {
        "missing",
        "model_type",
        "model_attributes_type",
        "dataclass_type",
        "union_tag_not_found",
        "is_instance_of",
        "none_required",
        "json_invalid",
        "json_type",
    }
)


def _is_shape_error(error_type: str) -> bool:
    return (
        error_type in _SHAPE_ERRORS
        or error_type.endswith("_type")
        or error_type.endswith("_parsing")
        or error_type.endswith("_from_float")
    )


def _field_path(loc: tuple[int | str, ...], data: Any) -> str:
    """The location of an error as a path through the *input* (union tags dropped).

    Pydantic puts the tag of a discriminated union into the location
    (``pool_strategy.create_new.name``); walking the input keeps only real keys and indexes:
    a step that is not a key of the input object but equals one of its string values (the
    discriminator's) is the tag.
    """
    parts: list[str] = []
    node: Any = data
    for step in loc:
        if isinstance(node, Mapping):
            if step in node:
                parts.append(str(step))
                node = node[step]
                continue
            if isinstance(step, str) and any(v == step for v in node.values()):
                continue
            parts.append(str(step))
            node = None
        elif isinstance(node, list) and isinstance(step, int):
            parts.append(str(step))
            node = node[step] if 0 <= step < len(node) else None
        else:
            parts.append(str(step))
            node = None
    return ".".join(parts) or "body"


def _message(error: Mapping[str, Any]) -> str:
    text = str(error.get("msg", "invalid value"))
    for prefix in ("Value error, ", "Assertion failed, "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    if error.get("type") == "missing":
        text = "field required"
    return text[:1].lower() + text[1:]


def validation_error(exc: ValidationError, data: Any, *, shown: int = 3) -> ServiceError:
    """A pydantic `ValidationError` as the service's 400: each field path with its problem.

    The code is 1000 when any error is about shape (missing key, wrong type, unparsable), else
    1001 (too long, not positive, unknown asset ...). Input values are never echoed back.
    """
    errors = exc.errors(include_url=False, include_input=False)
    parts = [f"{_field_path(tuple(e['loc']), data)}: {_message(e)}" for e in errors[:shown]]
    if len(errors) > shown:
        parts.append(f"and {len(errors) - shown} more")
    message = "; ".join(parts) or "invalid body"
    if any(_is_shape_error(str(e["type"])) for e in errors):
        return ServiceError.bad_request(message)
    return ServiceError.out_of_range(message)


def parse_body(endpoint_name: str, body: bytes) -> BaseModel | None:
    """The validated request model of a POST body, or None for an endpoint without payload.

    The model is the catalogue's (`Endpoint.request`); an endpoint without one takes an empty
    body or ``{}``.
    """
    model = endpoint_named(endpoint_name).request
    if model is None:
        parse_json_object(body, required=False)
        return None
    data = parse_json_object(body)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, data) from None
