"""What goes on the wire and what comes back: request encoding, and reading the answers.

The exact bytes a call sends (`encode_query`, `encode_body`, a body model made from plain
arguments by `request_body`), how errors name an endpoint (`endpoint_label`), and how an answer
is read: a page straight from its bytes on pydantic's JSON path (`parse_json`), anything else
as JSON (`decode_answer`) and its ``result`` as the catalogue's response type (`read_result`,
`parse_result`). `tui.api.client.transport` sends what this encodes.

Both readers keep the guards of `tui.api.jsonwire`: nothing nested deeper than
`MAX_JSON_DEPTH` is decoded, and an unpaired surrogate reads as U+FFFD.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar
from uuid import UUID

from pydantic import ValidationError

from tui.api.endpoints import Endpoint
from tui.api.errors import InvalidArgument, MalformedResponse
from tui.api.jsonwire import JsonTooDeep, check_depth, decode_json

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from tui.api.models import Request

__all__ = [
    "Reply",
    "decode_answer",
    "encode_body",
    "encode_query",
    "endpoint_label",
    "parse",
    "parse_json",
    "parse_result",
    "read_result",
    "request_body",
    "validation_summary",
]

R = TypeVar("R")


class Reply(NamedTuple):
    """The body of a 200 answer as it came, the local times (ms) it was sent and received, and
    how errors name its endpoint."""

    content: bytes
    sent_local_ms: int
    received_local_ms: int
    label: str

    @property
    def data(self) -> Any:
        """The body's JSON (decoded at each read; a body that is not JSON is a
        `MalformedResponse`)."""
        return decode_answer(self.content, self.label)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Decimal | datetime):
        # The wire scalars' module loads pydantic's validators: only a query that needs it.
        from tui.api.types import decimal_to_wire, format_timestamp

        return decimal_to_wire(value) if isinstance(value, Decimal) else format_timestamp(value)
    if isinstance(value, UUID):
        return str(value)
    return str(value)


def encode_query(params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Query parameters as sent: None omitted, booleans ``true``/``false``, strings as given."""
    return [(key, _query_value(value)) for key, value in params.items() if value is not None]


def encode_body(body: Request) -> bytes:
    """A request model as the exact bytes to send (and sign): compact UTF-8 JSON.

    Raises `InvalidArgument` for text that UTF-8 cannot carry (an unpaired surrogate in a
    free-text field), rather than a bare UnicodeEncodeError.
    """
    text = json.dumps(body.to_wire(), separators=(",", ":"), ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument("body", "text must not contain unpaired surrogates") from None


def request_body(endpoint: Endpoint, **values: Any) -> Request:
    """The endpoint's body model made from plain arguments (an id to cancel), checked now.

    A bad value is refused as `InvalidArgument` naming the field, before any token is spent.
    """
    if endpoint.request is None:
        raise TypeError(f"{endpoint.name} takes no body")
    try:
        return endpoint.request(**values)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        field = ".".join(str(p) for p in errors[0]["loc"]) if errors else ""
        raise InvalidArgument(
            field or "request", validation_summary(exc), endpoint=endpoint_label(endpoint)
        ) from None


def endpoint_label(endpoint: Endpoint) -> str:
    """How errors name an endpoint: method and path (``GET /v1/companies``), never the query."""
    return f"{endpoint.method.value} {endpoint.path}"


def validation_summary(exc: ValidationError, limit: int = 3) -> str:
    """The first ``limit`` problems of a validation error, each with where it is, on one line."""
    from tui.api.models.base import plain_errors  # only when an answer did not fit

    errors = plain_errors(exc)
    parts = []
    for error in errors[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "result"
        parts.append(f"{where}: {error['msg']}")
    more = len(errors) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def parse(adapter: TypeAdapter[R], value: Any, label: str) -> R:
    """``value`` read by ``adapter``; an answer that does not fit is a `MalformedResponse`."""
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise MalformedResponse(
            f"unexpected response: {validation_summary(exc)}", status=200, endpoint=label
        ) from None


_RESULT_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


def _result_adapter(endpoint: Endpoint) -> TypeAdapter[Any]:
    # Built on first use (not at import) and kept: one per endpoint of the catalogue.
    adapter = _RESULT_ADAPTERS.get(endpoint.name)
    if adapter is None:
        from pydantic import TypeAdapter  # loaded with the first adapter, not at import

        adapter = TypeAdapter(endpoint.response)
        _RESULT_ADAPTERS[endpoint.name] = adapter
    return adapter


def _not_json(label: str) -> MalformedResponse:
    return MalformedResponse("the response is not JSON", status=200, endpoint=label)


def decode_answer(content: bytes, label: str) -> Any:
    """The JSON of a 200 answer's body; a body that is not JSON is a `MalformedResponse`."""
    try:
        return decode_json(content)
    except (ValueError, UnicodeDecodeError):
        raise _not_json(label) from None


def parse_json(adapter: TypeAdapter[R], content: bytes, label: str) -> R:
    """A body read by ``adapter`` straight from its bytes, on pydantic's JSON path.

    No Python object is made but the records themselves (no dict per record, no Python call
    per field). The two guards of `tui.api.jsonwire` still hold: the depth is checked first,
    and a body pydantic's parser refuses as JSON (it refuses unpaired surrogates) is read again
    the slow way, whose decoder turns each one into U+FFFD (or calls it not JSON).
    """
    try:
        check_depth(content)
    except JsonTooDeep:
        raise _not_json(label) from None
    try:
        return adapter.validate_json(content)
    except ValidationError as exc:
        if exc.errors(include_url=False)[0]["type"] != "json_invalid":
            raise MalformedResponse(
                f"unexpected response: {validation_summary(exc)}", status=200, endpoint=label
            ) from None
    return parse(adapter, decode_answer(content, label), label)


def parse_result(endpoint: Endpoint, value: Any) -> Any:
    """A ``result`` value read as the catalogue's response type (a `MalformedResponse` if it
    does not fit): an answer's, or a copy of one kept as JSON (the writes journal's)."""
    return parse(_result_adapter(endpoint), value, endpoint_label(endpoint))


def read_result(endpoint: Endpoint, reply: Reply) -> Any:
    """The ``result`` of a ``{"result": ...}`` answer, read as the catalogue's response type."""
    data = reply.data
    if not isinstance(data, dict) or "result" not in data:
        raise MalformedResponse(
            "the response has no 'result'", status=200, endpoint=endpoint_label(endpoint)
        )
    return parse_result(endpoint, data["result"])
