"""The actor kit: a sandbox with its simulated counterparties, on a frozen clock (`ActorKit`).

`ActorKit.run` moves simulated time in small steps, ticking the engine and stepping the actors
after each, exactly as the server's tick loop does; no test sleeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.sandbox.kit.common import D, at, ms_of, open_sandbox, perp
from tui.api.models import (
    RFQ,
    CreateNewPool,
    Leg,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    Quote,
    RequestAction,
    Structure,
    TradeSide,
    UseExistingPool,
)
from tui.sandbox.actors.actor import ActorAction, identities
from tui.sandbox.actors.deposits import approve_deposit
from tui.sandbox.actors.pricing import PricedLeg, maker_leg_quotes
from tui.sandbox.actors.profiles import ActorConfig, MakerProfile, maker_profile
from tui.sandbox.actors.runner import ActorRunner
from tui.sandbox.engine.seed import default_margin_params

MAKERS = ("ALPHA", "BORE", "CBLT", "DUNE")
TIGHT = D("0.2")
NO_SKEW = D(0)


def always(name: str, action: str, seed: int = 7) -> dict[str, MakerProfile]:
    """A profile for maker ``name`` that answers every RFQ and always ``action``s last look."""
    base = maker_profile(seed, name)
    return {name: replace(base, answer_rate=1.0, last_look={action: 1.0})}


class ActorKit:
    """One sandbox with its actors, on a clock only the test moves."""

    def __init__(
        self,
        path: Path,
        *,
        seed: int = 7,
        config: ActorConfig | None = None,
        maker_profiles: dict[str, MakerProfile] | None = None,
    ) -> None:
        self.clock, self.ex = open_sandbox(path, seed=seed)
        self.people = identities(self.ex)
        self.runner = ActorRunner(self.ex, config or ActorConfig(), maker_profiles=maker_profiles)

    def close(self) -> None:
        """Close the engine."""
        self.ex.close()

    # -- time -------------------------------------------------------------------------------

    @property
    def now(self) -> int:
        """Sandbox time in ms."""
        return self.clock.now_ms()

    def run(
        self, seconds: float, *, step: float = 0.5, until: Callable[[], Any] | None = None
    ) -> bool:
        """Advance up to ``seconds`` in ``step``s, ticking and stepping the actors each time.

        Returns True as soon as ``until()`` is truthy (checked after every step), else False.
        """
        end = self.now + round(seconds * 1000)
        while self.now < end:
            self.clock.advance(step)
            self.ex.tick()
            self.runner.step()
            if until is not None and until():
                return True
        return until is None

    # -- companies --------------------------------------------------------------------------

    def caller(self, name: str) -> Any:
        """The writer caller of a seeded company."""
        return self.people[name].caller

    def cid(self, name: str) -> str:
        """The id of a seeded company."""
        return self.people[name].company_id

    def actions(self, kind: str | None = None, actor: str | None = None) -> list[ActorAction]:
        """Actions so far, optionally of one kind and/or one actor."""
        return [
            a
            for a in self.runner.actions
            if (kind is None or a.kind == kind) and (actor is None or a.actor == actor)
        ]

    # -- the user's side --------------------------------------------------------------------

    def desk_rfq(
        self,
        targets: tuple[str, ...] = MAKERS,
        *,
        underlying: str = "BTC",
        qty: str = "0.5",
        lifetime_s: int = 60,
    ) -> RFQ:
        """DESK asks ``targets`` for a perpetual."""
        return self.ex.rfqs_new(
            self.caller("DESK"),
            NewRfqRequest(
                structure=Structure(
                    legs=[Leg(side=TradeSide.BUY, ratio=1, instrument=perp(underlying))]
                ),
                qty=D(qty),
                expires_at=at(self.now + lifetime_s * 1000),
                target_companies=[self.cid(t) for t in targets],
            ),
        )

    def desk_rfq_view(self, rfq_id: str) -> RFQ:
        """DESK's current view of one of its RFQs."""
        return self.ex.rfqs_sent(self.caller("DESK"), limit=1, offset=0, id=rfq_id).items[0]

    def received(self, name: str, rfq_id: str | None = None) -> list[RFQ]:
        """RFQs ``name`` was asked to quote (one by id, or all)."""
        page = self.ex.rfqs_received(self.caller(name), limit=1000, offset=0, id=rfq_id)
        return page.items

    def quote(
        self,
        name: str,
        rfq: RFQ,
        *,
        multiplier: Decimal = TIGHT,
        lifetime_s: int = 40,
        pool_id: str | None = None,
        skew_bps: Decimal = NO_SKEW,
    ) -> Quote:
        """``name`` quotes ``rfq`` around the mark, the structure's price moved by ``skew_bps``.

        A positive skew raises the price of the structure (buy legs up, sell legs down), which
        is worse for a taker who buys it; a negative one is worse for a seller.

        Without ``pool_id`` the quote asks for a new pool.
        """
        legs = [PricedLeg(leg.rfq_leg_id, leg.instrument, leg.qty) for leg in rfq.rfq_legs]
        quotes = maker_leg_quotes(self.ex.market, legs, multiplier)
        if skew_bps:
            shifted = []
            for leg_quote, leg in zip(quotes, rfq.rfq_legs, strict=True):
                tick = self.ex.market.spec(leg.instrument.underlying).tick
                move = (leg_quote.ask * skew_bps / D(10_000)).quantize(tick)
                if str(leg.side) == "sell":
                    move = -move
                shifted.append(
                    leg_quote.model_copy(
                        update={"bid": leg_quote.bid + move, "ask": leg_quote.ask + move}
                    )
                )
            quotes = shifted
        strategy: Any
        if pool_id is not None:
            strategy = UseExistingPool(pool_id=pool_id)
        else:
            params = default_margin_params()
            strategy = CreateNewPool(
                name=f"{name} test {rfq.rfq_id[:8]}", creator_params=params, other_params=params
            )
        expires = min(self.now + lifetime_s * 1000, ms_of(rfq.rfq_expires_at))
        return self.ex.quotes_new(
            self.caller(name),
            NewQuoteRequest(
                rfq_id=rfq.rfq_id, expires_at=at(expires), leg_quotes=quotes, pool_strategy=strategy
            ),
        )

    def quote_state(self, name: str, quote_id: str) -> Quote:
        """The maker's view of its quote."""
        return self.ex.quotes_sent(self.caller(name), limit=1, offset=0, id=quote_id).items[0]

    def last_look(self, name: str, quote: Quote, action: RequestAction) -> Any:
        """``name`` answers the last look of ``quote``."""
        return self.ex.quotes_maker_last_look(
            self.caller(name),
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=quote.target_rfq_id,
                action=action,
            ),
        )

    def permit(self, name: str, pool_address: str, amount: Decimal) -> None:
        """``name`` signs and submits a permit for ``pool_address``."""
        me = self.people[name]
        approve_deposit(self.ex, me.caller, me.private_key, pool_address, amount)

    def pool_id(self, a: str, b: str) -> str | None:
        """An open pool between ``a`` and ``b`` (``a``'s view), if there is one."""
        for pool in self.ex.settlement_pools(self.caller(a), limit=1000, offset=0).items:
            data = pool.data
            if data is None or str(data.status) != "open":
                continue
            if self.cid(b) in {party.company for party in data.parties}:
                return pool.pool_id
        return None
