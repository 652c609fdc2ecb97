"""The base classes of the two sides: lenient `Record`, strict `Request` and `RequestPart`.

Also the pieces every section shares: `NullAsDefault` for record fields whose null means "not
given", `UnknownVariant` for union members this client cannot read and `record_union` that
routes them there, the request side's discriminator that does the same, `NameStr` and
`PoolNameStr`.
"""

from __future__ import annotations

import functools
import types
import unicodedata
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails, PydanticUseDefault, core_schema


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


_VALUE_BRANCH = "null-as-default:value"
_NULL_BRANCH = "null-as-default:null"


class _NullMeansDefault:
    """Field metadata: a JSON null reads as the field's default (see `NullAsDefault`)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        # The field's own type first, so a value costs nothing more; only a null reaches the
        # Python function, which hands the field its default (the field's `with_default`).
        # A Python validator on every value instead would cost ~15 % of a page's parse.
        null = core_schema.no_info_after_validator_function(_use_default, core_schema.none_schema())
        return core_schema.union_schema(
            [(handler(source), _VALUE_BRANCH), (null, _NULL_BRANCH)], mode="left_to_right"
        )


def _use_default(_: None) -> None:
    raise PydanticUseDefault()


def plain_errors(exc: ValidationError) -> list[ErrorDetails]:
    """The errors of ``exc`` as the fields' own types would report them.

    A `NullAsDefault` field reads through a two-way union; a value of the wrong type fails
    both ways. Only the failure of the field's own type says anything, so the other one ("input
    should be None") is left out and the branch's name is taken out of every location.
    """
    plain: list[ErrorDetails] = []
    for error in exc.errors(include_url=False, include_input=False):
        if _NULL_BRANCH in error["loc"]:
            continue
        if _VALUE_BRANCH in error["loc"]:
            error["loc"] = tuple(part for part in error["loc"] if part != _VALUE_BRANCH)
        plain.append(error)
    return plain


NULL_MEANS_DEFAULT = _NullMeansDefault()

T = TypeVar("T")

NullAsDefault = Annotated[T, NULL_MEANS_DEFAULT]
"""A record field whose null means "not given": ``pool_location: NullAsDefault[str] = ""``.

Every record field that has a default but does not take None is one (the catalogue test
`tests/api/test_tolerant_records.py` holds it), so a null sent for a list, a flag or a trade's
``pool_location`` reads as the default instead of failing. Being part of the field's schema
rather than a model validator, it keeps a page on pydantic's JSON path (a model-level Python
validator would first turn every record into a dict)."""


class Record(BaseModel):
    """Base of everything the server sends: unknown fields are kept, never an error.

    A null sent for a field that has a default but does not take None means "not given": such
    fields are typed `NullAsDefault`. Records carry no Python validator of their own, so
    pydantic reads a page straight from its JSON bytes.
    """

    model_config = ConfigDict(extra="allow", populate_by_name=True)


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


def record_union(known: Any, tag: str) -> Any:
    """A record union of the ``known`` kinds told apart by field ``tag``, or an `UnknownVariant`.

    An unknown tag, or a known kind whose shape this client cannot read (a field missing or of
    a new type), reads as an `UnknownVariant` rather than failing its page. Both tries are
    pydantic's own (a tagged union, then the catch-all), so no Python runs per record.
    """
    return Annotated[
        Annotated[known, Field(discriminator=tag)] | UnknownVariant,
        Field(union_mode="left_to_right"),
    ]


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
