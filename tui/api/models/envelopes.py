"""The envelopes around every answer: a page with its pagination, a single result, an error."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import Field

from tui.api.models.base import NullAsDefault, Record

T = TypeVar("T")


class Pagination(Record):
    """Where the next page is: ``next_page`` holds the query values to send back as they are."""

    next_page: dict[str, Any] | None = None


class Page(Record, Generic[T]):
    """One page of a list endpoint."""

    result: list[T]
    pagination: NullAsDefault[Pagination] = Field(default_factory=Pagination)


class Single(Record, Generic[T]):
    """A single-value response."""

    result: T


class ApiErrorBody(Record):
    """The error object inside ``{"error": {...}}``."""

    code: int
    message: str
