"""What every simulated counterparty shares: its identity, its action log, its permits.

Each actor is one of the seeded companies and trades through the very methods the HTTP layer
calls (`Exchange.quotes_new`, ``rfqs_new``, ``quotes_accept``, ``quotes_maker_last_look``, the
permit endpoints ...) with a writer `Caller` of its own, so every rule of the venue applies to
it exactly as to the user. Every decision comes from a hash of (seed, actor, subject, purpose)
(`tui.sandbox.actors.profiles.draw`), never from a shared random stream.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from tui.api.models import ApiRole
from tui.sandbox.actors.deposits import approve_deposit
from tui.sandbox.actors.profiles import ActorConfig
from tui.sandbox.engine.errors import ServiceError

__all__ = [
    "Actor",
    "ActorAction",
    "Identity",
    "Recorder",
    "first",
    "identities",
    "moment_at",
    "ms_of",
]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def ms_of(moment: datetime) -> int:
    """An aware (or UTC-naive) datetime as Unix ms."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(milliseconds=1)


def moment_at(ms: int) -> datetime:
    """Unix ms as an aware UTC datetime."""
    return _EPOCH + timedelta(milliseconds=ms)


def first(page: Any) -> Any:
    """The first record of a page, or None."""
    return page.items[0] if page.items else None


@dataclass(frozen=True)
class ActorAction:
    """One thing an actor did (or decided not to do), for tests, demos and the debug log.

    ``kind`` is one of: ``rfq``, ``ignore``, ``quote``, ``replace``, ``accept``,
    ``last_look_accept``, ``last_look_reject``, ``last_look_silent``, ``deposit``,
    ``booked``, ``failed``, ``expired``, ``refused`` (the exchange said no).
    """

    at_ms: int
    actor: str
    kind: str
    ref: str
    detail: str = ""


@dataclass(frozen=True)
class Identity:
    """A seeded company as an actor uses it: its writer key and its wallet key."""

    short_name: str
    company_id: str
    caller: Any
    private_key: str = field(repr=False)


def identities(exchange: Any) -> dict[str, Identity]:
    """Every seeded company with a writer key, by short name, from `Exchange.credentials`."""
    from tui.sandbox.engine.exchange import Caller

    out: dict[str, Identity] = {}
    for entry in exchange.credentials():
        if entry["role"] != ApiRole.WRITER or entry["short_name"] in out:
            continue
        caller = Caller(company_id=entry["id"], key_id=entry["key_id"], role=ApiRole.WRITER)
        out[entry["short_name"]] = Identity(
            entry["short_name"], entry["id"], caller, entry["wallet_private_key"] or ""
        )
    return out


Recorder = Callable[[int, str, str, str, str], None]
"""How an actor logs an action: ``(at_ms, actor, kind, ref, detail)``."""


class Actor:
    """What makers and takers share: the engine, the market, the seed and the action log."""

    def __init__(
        self,
        exchange: Any,
        me: Identity,
        config: ActorConfig,
        seed: int,
        record: Recorder,
        names: dict[str, str],
    ) -> None:
        self.exchange = exchange
        self.market = exchange.market
        self.me = me
        self.name = me.short_name
        self.config = config
        self.seed = seed
        self._record = record
        self._names = names

    def step(self, now: int) -> None:
        """Do what is due at ``now`` (sandbox ms)."""
        raise NotImplementedError

    def record(self, at_ms: int, kind: str, ref: str, detail: str = "") -> None:
        """Log one action of this actor."""
        self._record(at_ms, self.name, kind, ref, detail)

    def short(self, company_id: str) -> str:
        """A company's short name (its id's head when it is not a seeded company)."""
        return self._names.get(company_id, company_id[:8])

    def pace_ms(self, seconds: float) -> int:
        """A pace-1 duration in ms at the configured pace."""
        return round(self.config.scaled(seconds) * 1000)

    def pool_address(self, pool_id: str | None) -> str | None:
        """The on-chain address of one of this company's pools, read through the API."""
        if not pool_id:
            return None
        pool = first(self.exchange.settlement_pools(self.me.caller, limit=1, offset=0, id=pool_id))
        if pool is None or pool.data is None:
            return None
        return pool.data.address

    def approve(self, now: int, ref: str, pool_address: str | None, amount: Decimal) -> bool:
        """Sign and submit a permit for ``pool_address``; False (logged) if it was refused."""
        if not pool_address:
            return False
        try:
            granted = approve_deposit(
                self.exchange, self.me.caller, self.me.private_key, pool_address, amount
            )
        except ServiceError as exc:
            self.record(now, "refused", ref, f"permit: {exc.message}")
            return False
        self.record(now, "deposit", ref, f"allowance {format(granted, 'f')} USDC")
        return True
