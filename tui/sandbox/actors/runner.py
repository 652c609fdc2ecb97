"""The runner of a sandbox's simulated counterparties: every actor, stepped on its clock.

Nothing sleeps: `ActorRunner.step` looks at the sandbox clock and lets every maker
(`tui.sandbox.actors.maker`) and taker (`tui.sandbox.actors.taker`) do what is due. The server
calls it from its tick loop (and after an admin clock advance); tests advance a frozen clock and
call it. Every decision comes from a hash of (seed, actor, subject, purpose)
(`tui.sandbox.actors.profiles.draw`), never from a shared random stream, so the same seed and
the same clock steps give the same actions, whatever order things are looked at in.
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

from tui.sandbox.actors.actor import ActorAction, identities
from tui.sandbox.actors.maker import MakerActor
from tui.sandbox.actors.profiles import ActorConfig, MakerProfile, maker_profile, taker_profile
from tui.sandbox.actors.taker import TakerActor

__all__ = ["ActorRunner", "start_actors"]

log = logging.getLogger(__name__)


class ActorRunner:
    """Every simulated counterparty of one sandbox, stepped on its clock.

    `step` is cheap when nothing is due and never raises: a failing actor is logged (once
    per failure streak) and the others carry on. ``actions`` keeps the latest actions
    (oldest first) for tests and demos. ``maker_profiles`` replaces the seeded profile of the
    named makers (a demo's always-accepting maker, a test's fixed behaviour); ``seed``
    defaults to the sandbox's stored seed.
    """

    def __init__(
        self,
        exchange: Any,
        config: ActorConfig | None = None,
        *,
        seed: int | None = None,
        maker_profiles: dict[str, MakerProfile] | None = None,
    ) -> None:
        self.exchange = exchange
        self.config = config or ActorConfig()
        stored = exchange.store.meta_get("seed")
        self.seed = int(seed if seed is not None else (stored or 0))
        self.actions: deque[ActorAction] = deque(maxlen=10_000)
        self._failing: set[str] = set()
        people = identities(exchange)
        names = {identity.company_id: short for short, identity in people.items()}
        common = {"config": self.config, "seed": self.seed, "record": self._log, "names": names}
        self.makers: list[MakerActor] = []
        self.takers: list[TakerActor] = []
        if not self.config.enabled:
            return
        if self.config.makers:
            self.makers = [
                MakerActor(
                    exchange,
                    people[name],
                    profile=(maker_profiles or {}).get(name) or maker_profile(self.seed, name),
                    **common,
                )
                for name in self.config.maker_names
                if name in people
            ]
        if self.config.takers:
            user = people.get(self.config.user_company)
            maker_ids = [m.me.company_id for m in self.makers]
            start = exchange.clock.now_ms()
            self.takers = [
                TakerActor(
                    exchange,
                    people[name],
                    profile=taker_profile(self.seed, name, self.config),
                    user_id=user.company_id if user else None,
                    maker_ids=maker_ids,
                    start_ms=start,
                    **common,
                )
                for name in self.config.taker_names
                if name in people
            ]

    def _log(self, at_ms: int, actor: str, kind: str, ref: str, detail: str) -> None:
        action = ActorAction(at_ms, actor, kind, ref, detail)
        self.actions.append(action)
        log.debug("actor %s %s %s %s", actor, kind, ref, detail)

    def step(self) -> None:
        """Let every actor do what is due at the clock's current time."""
        for actor in [*self.makers, *self.takers]:
            now = self.exchange.clock.now_ms()
            try:
                actor.step(now)
            except Exception:
                if actor.name not in self._failing:
                    log.exception("simulated %s failed; it retries on the next step", actor.name)
                self._failing.add(actor.name)
            else:
                self._failing.discard(actor.name)


def start_actors(exchange: Any, config: ActorConfig | None = None) -> ActorRunner | None:
    """The runner of a sandbox's simulated counterparties, or None when they are switched off.

    Call its ``step()`` after every ``exchange.tick()`` (the server's tick loop does).
    """
    config = config or ActorConfig()
    if not config.enabled or not (config.makers or config.takers):
        return None
    return ActorRunner(exchange, config)
