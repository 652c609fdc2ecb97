"""The strikes an RFQ may name: written as finely as the venue writes its underlying's prices.

The venue lists no strikes (the contract takes any strike above zero); what it does list, per
asset, is how precisely its prices are written (``GET /metadata/supported_assets``:
``precision_requirements``, in the book as `DeskBook.assets`). A strike is a price of the
underlying, so it is held to the same writing, as the venue's reference SDK rounds prices:
from 1 up, at most ``max_significant_figures`` significant figures, though
``min_decimal_figures`` decimal places are always allowed; below 1, and never more than,
``max_decimal_only_figures`` decimal places (the sandbox refuses a strike past those). So a BTC
strike (7 significant figures, 1 decimal always) may be ``96000.12`` but not ``96000.123``.
The builder checks it before sending and says it under the leg; an asset the desk has no
precision for is left to the venue, which remains the judge (its range around the mark too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from tui.api.models import PrecisionRequirements


def strike_precisions(assets: Mapping[str, Iterable[object]]) -> dict[str, PrecisionRequirements]:
    """Each asset's price precision, from the supported assets (the first detail giving one)."""
    found: dict[str, PrecisionRequirements] = {}
    for asset, details in assets.items():
        for detail in details:
            precision = getattr(detail, "precision_requirements", None)
            if isinstance(precision, PrecisionRequirements):
                found[asset] = precision
                break
    return found


def _places(value: Decimal) -> int:
    """Decimal places of the value as a number (``96000.10`` has 1: a written zero adds none)."""
    exponent = value.normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def strike_places(strike: Decimal, precision: PrecisionRequirements) -> int | None:
    """The most decimal places a strike of this size may have (None: the venue states no
    limit)."""
    limits: list[int] = []
    if precision.max_decimal_only_figures is not None:
        limits.append(precision.max_decimal_only_figures)
    if abs(strike) >= 1 and precision.max_significant_figures is not None:
        whole_digits = len(str(int(abs(strike))))
        by_figures = precision.max_significant_figures - whole_digits
        limits.append(max(by_figures, precision.min_decimal_figures or 0))
    return min(limits) if limits else None


def strike_problem(
    strike: Decimal, underlying: str, precisions: Mapping[str, PrecisionRequirements]
) -> str:
    """Why ``strike`` is not a strike of ``underlying`` as the venue writes its prices (empty:
    it is, or the desk knows no precision): ``96000.123 has 3 decimal places; BTC prices of
    this size take at most 2 (7 significant figures)``. A strike of zero or less is the
    request model's to judge."""
    precision = precisions.get(underlying)
    if precision is None or strike <= 0:
        return ""
    allowed = strike_places(strike, precision)
    places = _places(strike)
    if allowed is None or places <= allowed:
        return ""
    written = format(strike.normalize(), "f")
    figures = precision.max_significant_figures
    why = f" ({figures} significant figures)" if abs(strike) >= 1 and figures is not None else ""
    return (
        f"{written} has {places} decimal places; {underlying} prices of this size take"
        f" at most {allowed}{why}"
    )
