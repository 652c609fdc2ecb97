"""The new RFQ's model: from what the builder's fields say to a valid `NewRfqRequest`.

Every leg's and field's error is named after the builder field it belongs to, whether the
request model found it here or the venue refused the request (its message names the request
path). No Textual here: the builder screen (`tui.desk.screens.new_rfq`) reads and shows.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from pydantic import ValidationError

from tui.api.errors import ApiError
from tui.api.models import InstrumentType, NewRfqRequest, PrecisionRequirements
from tui.desk.builder.strikes import strike_problem
from tui.desk.builder.ticks import qty_tick_problem
from tui.desk.widgets.common.amounts import parse_amount, parse_optional_amount, parse_whole
from tui.desk.widgets.common.forms import FORM, FormError, api_error_path, errors_from_api

DEFAULT_RFQ_EXPIRY_S = 300
EXPIRY_HOUR_UTC = 8
"""Dated futures and options expire at 08:00 UTC on their expiry date."""


def locate_rfq_field(loc: tuple[int | str, ...]) -> str:
    """The builder field of a `NewRfqRequest` error location."""
    if not loc:
        return FORM
    head = loc[0]
    if head == "structure":
        if len(loc) >= 3 and loc[1] == "legs" and isinstance(loc[2], int):
            return f"leg-{loc[2]}"
        return "legs"
    return {"qty": "qty", "expires_at": "expiry", "target_companies": "targets"}.get(
        str(head), FORM
    )


def _leg_field(loc: tuple[int | str, ...]) -> str:
    """The name of the field inside a leg, for messages like ``strike: must be > 0``."""
    names = [str(p) for p in loc[3:] if isinstance(p, str) and p not in {"instrument"}]
    known = {"side", "ratio", "underlying", "expiry", "strike", "payoff", "funding_interval_s"}
    found = [n for n in names if n in known]
    return found[-1] if found else ""


def rfq_errors_from_api(error: ApiError) -> dict[str, str]:
    """Builder field -> message for the venue's refusal of a new RFQ.

    The venue names the request path (``structure.legs[1].instrument.expiry: ...``,
    ``target_companies[2]: ...``); the same mapping as the local checks puts it under its leg
    (saying which field of the leg) or its field, and anything else under the form.
    """
    errors = errors_from_api(error, locate_rfq_field)
    found = api_error_path(error)
    if found is not None:
        path, message = found
        where = locate_rfq_field(path)
        name = _leg_field(path) if where.startswith("leg-") else ""
        if name and where in errors:
            errors[where] = f"{name}: {message}"
    return errors


_DAY = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def parse_expiry_date(text: str, field: str) -> datetime:
    """``2026-03-27`` -> that day at 08:00 UTC; a date in the right form that does not exist
    is refused saying which part (``month 13 does not exist``)."""
    typed = text.strip()
    match = _DAY.match(typed)
    if match is None:
        raise FormError({field: "expiry: use YYYY-MM-DD"})
    year, month, day = (int(part) for part in match.groups())
    if year < 1:
        raise FormError({field: f"expiry: year {year} does not exist (typed {typed})"})
    if not 1 <= month <= 12:
        raise FormError({field: f"expiry: month {month} does not exist (typed {typed})"})
    days = calendar.monthrange(year, month)[1]
    if not 1 <= day <= days:
        name = calendar.month_name[month]
        raise FormError(
            {field: f"expiry: {name} {year} has {days} days, not {day} (typed {typed})"}
        )
    return datetime(year, month, day, EXPIRY_HOUR_UTC, tzinfo=UTC)


def build_rfq_request(
    legs: list[dict[str, str]],
    qty: str,
    expiry_s: str,
    targets: list[str],
    now: datetime,
    funding_intervals: dict[str, int] | None = None,
    qty_ticks: Mapping[str, Decimal] | None = None,
    strike_precision: Mapping[str, PrecisionRequirements] | None = None,
) -> NewRfqRequest:
    """The `NewRfqRequest` of the builder, or a `FormError` naming every bad field.

    ``legs`` holds each leg's typed values by name: type, underlying, side, ratio, expiry,
    strike, payoff; ``qty_ticks`` each asset's quantity tick (`tui.desk.builder.ticks`): the
    quantity must be a whole number of ticks of every leg's underlying; ``strike_precision``
    how each asset's prices are written (`tui.desk.builder.strikes`): a strike no finer.
    """
    errors: dict[str, str] = {}
    wire_legs: list[dict[str, Any]] = []
    for index, leg in enumerate(legs):
        field = f"leg-{index}"
        kind = leg.get("type", "")
        instrument: dict[str, Any] = {
            "instrument_type": kind,
            "underlying": leg.get("underlying", ""),
        }
        if kind == InstrumentType.PERPETUAL_FUTURE:
            instrument["funding_interval_s"] = (funding_intervals or {}).get(
                instrument["underlying"], 3600
            )
        try:
            if kind == InstrumentType.VANILLA_OPTION:
                # The sign is the request model's to judge ("strike: must be > 0").
                strike = parse_optional_amount(
                    leg.get("strike", ""), field="strike", allow_negative=True
                )
                problem = (
                    strike_problem(strike, instrument["underlying"], strike_precision or {})
                    if strike is not None
                    else ""
                )
                if problem:
                    raise FormError({"strike": problem})
                instrument["strike"] = strike
                instrument["payoff"] = leg.get("payoff") or None
            if kind in (InstrumentType.DATED_FUTURE, InstrumentType.VANILLA_OPTION):
                instrument["expiry"] = parse_expiry_date(leg.get("expiry", ""), field)
            ratio = parse_whole(leg.get("ratio", ""), field="ratio", minimum=1, maximum=1000)
        except FormError as error:
            first = next(iter(error.errors.items()))
            message = first[1] if first[0] == field else f"{first[0]}: {first[1]}"
            errors[field] = message
            continue
        wire_legs.append({"side": leg.get("side", ""), "ratio": ratio, "instrument": instrument})
    try:
        seconds = parse_whole(expiry_s, field="expiry", minimum=10, maximum=86_400)
    except FormError as error:
        errors.update(error.errors)
        seconds = DEFAULT_RFQ_EXPIRY_S
    try:
        # The sign and size are the request model's to judge ("qty: must be > 0").
        quantity = parse_amount(qty, field="qty", allow_negative=True)
    except FormError as error:
        errors.update(error.errors)
    else:
        underlyings = [leg.get("underlying", "") for leg in legs]
        problem = qty_tick_problem(quantity, underlyings, qty_ticks or {}, qty)
        if problem:
            errors["qty"] = problem
    if errors:
        raise FormError(errors)
    try:
        return NewRfqRequest(
            structure={"legs": wire_legs},
            qty=quantity,
            expires_at=now + timedelta(seconds=seconds),
            target_companies=targets,
        )
    except ValidationError as error:
        found: dict[str, str] = {}
        for item in error.errors():
            loc = tuple(item["loc"])
            where = locate_rfq_field(loc)
            message = str(item["msg"]).removeprefix("Value error, ")
            if where.startswith("leg-"):
                name = _leg_field(loc)
                message = f"{name}: {message}" if name else message
            if where == "qty" and item["type"] == "missing":
                message = "required"
            found.setdefault(where, message)
        raise FormError(found) from None
