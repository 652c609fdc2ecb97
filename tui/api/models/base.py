"""The base classes of the two sides: lenient `Record`, strict `Request` and `RequestPart`.

Also the pieces every section shares: `UnknownVariant` for union members this client cannot
read, the tagged-union discriminator that routes an unknown tag to it, `NameStr` and `PoolNameStr`.
"""

from __future__ import annotations

import functools
import types
import unicodedata
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)


def _accepts_none(annotation: Any) -> bool:
    if annotation is None or annotation is type(None) or annotation is Any:
        return True
    origin = get_origin(annotation)
    if origin is Annotated:
        return _accepts_none(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return any(_accepts_none(arg) for arg in get_args(annotation))
    return False


@functools.cache
def _null_means_default_fields(cls: type[BaseModel]) -> frozenset[str]:
    """The fields of ``cls`` that have a default but do not take None."""
    return frozenset(
        name
        for name, field in cls.model_fields.items()
        if not field.is_required() and not _accepts_none(field.annotation)
    )


def _drop_nulls_with_defaults(cls: type[BaseModel], data: Any) -> Any:
    """``data`` without the nulls sent for fields that have a default but do not take None.

    Such a null means "not given", in a record as in a request (the contract: an optional key
    may arrive as JSON null). A field with no default keeps its null, and refuses it.
    """
    if not isinstance(data, dict):
        return data
    names = _null_means_default_fields(cls)
    if any(data.get(name, 0) is None for name in names):
        return {k: v for k, v in data.items() if not (v is None and k in names)}
    return data


class Record(BaseModel):
    """Base of everything the server sends: unknown fields are kept, never an error.

    A null sent for a field that has a default but does not take None (a list, a flag, a
    trade's ``pool_location``) means "not given": the default is used instead of failing.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        return _drop_nulls_with_defaults(cls, data)


class Request(BaseModel):
    """Base of request bodies: validated on construction, unknown keys ignored.

    An optional key sent as null means it was left out (its default is used); a required key
    sent as null is refused.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _null_means_default(cls, data: Any) -> Any:
        return _drop_nulls_with_defaults(cls, data)

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready body: decimals as strings, timestamps RFC 3339, no null extras."""
        return self.model_dump(mode="json", exclude_none=True)


class RequestPart(BaseModel):
    """Base of the nested parts of a request body: every bound checked, unknown keys dropped.

    A part that mirrors a record (`LegInput` mirrors `Leg`) subclasses the record, so
    ``isinstance(leg, Leg)`` holds for both, and names ``RequestPart`` *last* among its bases so
    that this configuration (``extra="ignore"``) wins over the record's ``extra="allow"``.
    A part also takes an instance of the lenient record class it mirrors (a `Leg` built by
    code written against the records): that instance's data is validated again, strictly.
    As in a `Request`, an optional key sent as null means it was left out.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _from_record(cls, data: Any) -> Any:
        if isinstance(data, BaseModel) and not isinstance(data, cls):
            data = data.model_dump()
        return _drop_nulls_with_defaults(cls, data)


class UnknownVariant(Record):
    """A union member the client does not know yet (new instrument, margin mode, strategy).

    Kept whole in ``model_extra`` so the desk can show the raw kind instead of crashing.
    """


def _tag_or_unknown(field: str, known: set[str]) -> Any:
    def pick(value: Any) -> str:
        tag = value.get(field) if isinstance(value, dict) else getattr(value, field, None)
        tag = str(tag) if tag is not None else None
        return tag if tag in known else "unknown"

    return Discriminator(pick)


def _unknown_when_unreadable(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A record union member of a known kind whose shape this client cannot read (a field
    missing or of a new type) is kept as an `UnknownVariant` rather than failing its page."""
    try:
        return handler(value)
    except ValidationError:
        if isinstance(value, dict):
            return UnknownVariant.model_validate(value)
        raise


_RECORD_UNION = WrapValidator(_unknown_when_unreadable)


def _no_control_characters(value: str) -> str:
    for char in value:
        if unicodedata.category(char) in ("Cc", "Cs"):
            raise ValueError("must not contain control characters or unpaired surrogates")
    return value


NameStr = Annotated[str, Field(min_length=1, max_length=50), AfterValidator(_no_control_characters)]
"""A name chosen by the caller (pool name, client quote id): 1 to 50 printable characters."""


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


PoolNameStr = Annotated[NameStr, AfterValidator(_not_blank)]
"""A pool's name: a `NameStr` that is not only white space."""
