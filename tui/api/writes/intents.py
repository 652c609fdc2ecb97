"""What a trader means to do, and what came of it: intents and their outcomes.

An `Intent` is one write the trader asked for, under an id of its own, with its body. Sending
it again (after a timeout, after a crash) is the *same* intent: the id is how the journal and
the venue's records tell a retry from a second order. Its ``payload`` is the body as the journal
keeps it, never with a secret in it (a permit's signature is left out).

Every write ends in one of three outcomes: `Landed` (the venue acted; here is its record),
`NotLanded` (provably not acted on, so it is safe to send again) or `Unresolved` (the answer was
lost and the venue could not be read yet; the journal keeps it open).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from tui.api.client.wire import request_body
from tui.api.endpoints import Endpoint, endpoint_named
from tui.api.errors import ApiError
from tui.api.models import NewQuoteRequest, Request

__all__ = [
    "SECRET_KEYS",
    "Intent",
    "Landed",
    "NotLanded",
    "Outcome",
    "Resolution",
    "Unresolved",
    "WriteKind",
    "record_id",
    "without_secrets",
]

SECRET_KEYS = frozenset({"signature", "api_secret", "private_key", "wallet_private_key"})
"""Keys never written to the journal, at any depth of a payload."""


class WriteKind(StrEnum):
    """Every write the venue takes, named as the catalogue names its endpoint."""

    QUOTE = "quotes_new"
    REPLACE_QUOTE = "quotes_replace"
    CANCEL_QUOTE = "quotes_cancel"
    CANCEL_ALL_QUOTES = "quotes_cancel_all"
    ACCEPT = "quotes_accept"
    LAST_LOOK = "quotes_maker_last_look"
    RFQ = "rfqs_new"
    CANCEL_RFQ = "rfqs_cancel"
    POOL = "settlement_pools_new"
    TRANSFER = "transfers_new"
    PERMIT = "transfers_permit"

    @property
    def endpoint(self) -> Endpoint:
        """The catalogue row: path, body model and the type of the answer."""
        return endpoint_named(self.value)


def without_secrets(value: Any) -> Any:
    """A JSON value with every key of `SECRET_KEYS` dropped, at any depth."""
    if isinstance(value, Mapping):
        return {k: without_secrets(v) for k, v in value.items() if k not in SECRET_KEYS}
    if isinstance(value, list):
        return [without_secrets(item) for item in value]
    return value


def _new_id() -> str:
    return uuid.uuid4().hex


@dataclass(frozen=True, slots=True)
class Intent:
    """One write the trader asked for: its kind, its id, and its body.

    Make one with `Intent.of`. ``request`` is the body to send; ``payload`` is that body as
    the journal keeps it (no secret). An intent read back from the journal has its body rebuilt
    from the payload, except a permit's, whose signature was never written: such an intent can
    be resolved, and must be signed again to be sent.
    """

    kind: WriteKind
    payload: Mapping[str, Any]
    id: str = field(default_factory=_new_id)
    request: Request | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(
        cls,
        kind: WriteKind | str,
        request: Request | None = None,
        *,
        intent_id: str | None = None,
        **fields: Any,
    ) -> Intent:
        """An intent of ``kind`` with ``request`` as its body, or a body made from ``fields``
        (``Intent.of(WriteKind.CANCEL_QUOTE, id=quote_id)``), checked now.

        A quote or a replacement without a ``client_quote_id`` gets the intent's id as one:
        that is how a quote whose answer was lost is found again.
        """
        kind = WriteKind(kind)
        endpoint = kind.endpoint
        intent_id = intent_id or _new_id()
        if endpoint.request is None:
            if request is not None or fields:
                raise TypeError(f"{kind.value} takes no body")
        elif request is None:
            request = request_body(endpoint, **fields)
        elif fields or not isinstance(request, endpoint.request):
            raise TypeError(f"{kind.value} takes one {endpoint.request.__name__}")
        if isinstance(request, NewQuoteRequest) and request.client_quote_id is None:
            request = request.model_copy(update={"client_quote_id": intent_id})
        payload = without_secrets(request.to_wire()) if request is not None else {}
        return cls(kind, payload, intent_id, request)

    @classmethod
    def from_journal(cls, kind: str, intent_id: str, payload: Mapping[str, Any]) -> Intent:
        """An intent as the journal wrote it; its body rebuilt when the payload holds all of it."""
        intent_kind = WriteKind(kind)
        model = intent_kind.endpoint.request
        request: Request | None = None
        if model is not None:
            try:
                request = model.model_validate(dict(payload))
            except ValueError:
                # A permit without its signature, or a body this version's rules refuse:
                # resolvable by its payload, not sendable as it is.
                request = None
        return cls(intent_kind, dict(payload), intent_id, request)

    @property
    def sendable(self) -> bool:
        """Whether the body can be sent as it is (False for a permit read from the journal, or a
        body this version's rules refuse)."""
        return self.kind.endpoint.request is None or self.request is not None

    def body(self) -> Request | None:
        """The body to send; a `ValueError` when it cannot be sent as it is (`sendable`)."""
        if not self.sendable:
            raise ValueError(
                f"intent {self.id}: the {self.kind.value} cannot be sent as the journal kept it"
                " (a permit must be signed again)"
            )
        return self.request


class Resolution(StrEnum):
    """How an outcome is known."""

    ANSWERED = "answered"
    """The venue's own answer to the request."""
    FOUND = "found"
    """The answer was lost; the record was found by reading the venue."""
    EARLIER = "earlier"
    """The intent had landed already: the journal's copy of its record (a retry)."""
    NEVER_SENT = "never_sent"
    """No connection was ever open: the request never left."""
    REFUSED = "refused"
    """The venue answered with a refusal (4xx): it did not act."""
    ABSENT = "absent"
    """The answer was lost; reading the venue, once the request could no longer land, shows
    it did not."""


@dataclass(frozen=True, slots=True)
class Landed:
    """The venue acted on the intent. ``record`` is the endpoint's answer type (`Quote`,
    `RFQ`, `Transfer`, `SettlementPool`, `QuoteAcceptResponse`, `MakerLastLookResponse`, or
    True for a cancel or a permit), however it was learnt (``how``)."""

    intent: Intent
    record: Any
    how: Resolution


@dataclass(frozen=True, slots=True)
class NotLanded:
    """The venue provably did not act on the intent: it is safe to send it again.

    ``how`` says why it is known (never sent, refused, absent); ``error`` is the failure or
    refusal when there was one (a refusal's says what the venue disliked).
    """

    intent: Intent
    how: Resolution
    reason: str
    error: ApiError | None = None


@dataclass(frozen=True, slots=True)
class Unresolved:
    """The answer was lost and reading the venue failed too: still unknown, kept open in the
    journal; submitting the intent again resolves it first."""

    intent: Intent
    reason: str
    error: ApiError | None = None


Outcome = Landed | NotLanded | Unresolved
"""What became of an intent."""

_RECORD_ID_FIELD = {
    WriteKind.QUOTE: "parent_quote_id",
    WriteKind.REPLACE_QUOTE: "parent_quote_id",
    WriteKind.RFQ: "rfq_id",
    WriteKind.POOL: "pool_id",
    WriteKind.TRANSFER: "id",
}


def record_id(kind: WriteKind, record: Any) -> str | None:
    """The id of the record a write of ``kind`` made (None for writes that make none): a
    record one intent landed as can never be another intent's."""
    name = _RECORD_ID_FIELD.get(kind)
    if name is None or not isinstance(record, BaseModel):
        return None
    value = getattr(record, name, None)
    return value if isinstance(value, str) else None
