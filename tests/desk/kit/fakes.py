"""The roles without a venue: a fake `ServiceClient`, and the smallest app that hosts the roles.

`FakeClient` records every call (the method's name and its argument) and answers from a table
given by method name: a record, an `ApiError` (or any exception) to raise, or a function of
the argument (which may return an awaitable, to hold the call until the test lets it go).
`RoleHost` is a Textual app with just what the roles need of the desk
(`tui.desk.roles.runner.DeskHost`): a book, the fake client, a fixed clock, the session; it
keeps every `ActionOutcome` the runner posts, and the topics the roles asked to poll.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import SecretStr
from textual.app import App
from textual.pilot import Pilot

from tests.api.kit.records import permit_template as api_permit_template
from tui.desk.book import DeskBook
from tui.desk.messages import ActionOutcome, Topic
from tui.desk.roles.maker import MakerRole
from tui.desk.roles.pools import PoolsRole
from tui.desk.roles.runner import ActionRunner
from tui.desk.roles.safety import SafetyRole
from tui.desk.roles.taker import TakerRole
from tui.desk.session import Connection

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
WALLET_KEY = "0x" + "4c" * 32
"""A valid secp256k1 private key (any 32 bytes below the curve order will do)."""


class FakeClient:
    """Answers the venue's calls from a table; remembers what was asked (see module docs)."""

    def __init__(self, **answers: Any) -> None:
        self.answers: dict[str, Any] = dict(answers)
        self.calls: list[tuple[str, Any]] = []

    @property
    def names(self) -> list[str]:
        """The methods called, in order."""
        return [name for name, _ in self.calls]

    def _answer(self, name: str, argument: Any) -> Any:
        if name not in self.answers:
            raise AssertionError(f"unexpected call: {name}({argument!r})")
        answer = self.answers[name]
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(argument)
        return answer

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        async def call(argument: Any = None, **filters: Any) -> Any:
            self.calls.append((name, argument if argument is not None else filters))
            answer = self._answer(name, argument)
            return await answer if inspect.isawaitable(answer) else answer

        call.__name__ = name
        return call

    def iterate(self, method: Callable[..., Any], **filters: Any) -> AsyncIterator[Any]:
        """Every record the table holds for ``method`` (a list), as the client's paging would."""
        name = method.__name__
        self.calls.append((f"iterate {name}", filters))
        records = self._answer(name, filters)

        async def pages() -> AsyncIterator[Any]:
            for record in records:
                yield record

        return pages()


def session(wallet_key: str | None = WALLET_KEY, keystore: Path | None = None) -> Connection:
    """A session for the roles: a wallet key up front (as the sandbox gives), or a keystore."""
    return Connection(
        profile="test",
        base_url="http://127.0.0.1:9",
        api_key="key",
        api_secret=SecretStr("ab" * 32),
        wallet_key=SecretStr(wallet_key) if wallet_key else None,
        keystore=keystore,
    )


class RoleHost(App[None]):
    """The roles' desk, and nothing else: book, client, clock, screens, workers, outcomes."""

    def __init__(
        self,
        client: FakeClient | None,
        *,
        book: DeskBook | None = None,
        connection: Connection | None = None,
        export_dir: Path | None = None,
    ) -> None:
        super().__init__()
        self.book = book or DeskBook()
        self.client: Any = client
        self.connection = connection
        self.outcomes: list[ActionOutcome] = []
        self.polled: list[Topic] = []
        runner = ActionRunner(self)
        self.taker = TakerRole(self, runner)
        self.maker = MakerRole(self, runner)
        self.pools = PoolsRole(self, runner)
        self.safety = SafetyRole(self, runner, export_dir or Path("exports"))

    def clock(self) -> datetime:
        """The venue's time, fixed."""
        return NOW

    def poll_soon(self, *topics: Topic) -> None:
        """Remember what a role asked to poll."""
        self.polled.extend(topics)

    def on_action_outcome(self, outcome: ActionOutcome) -> None:
        """Keep every outcome, in order; the maker hears it was filed, as on the desk."""
        self.outcomes.append(outcome)
        self.maker.filed(outcome)


async def settle(host: RoleHost, pilot: Pilot[Any]) -> None:
    """Wait for the actions' workers to finish and their outcomes to arrive."""
    await pilot.pause()
    await host.workers.wait_for_complete()
    await pilot.pause()


def permit_template(owner: str, spender: str, value: int) -> dict[str, Any]:
    """The EIP-712 typed data of a USDC permit, as the template endpoint returns it."""
    return api_permit_template(owner, spender, value, deadline=1767614700)
