"""The one place a user action runs: in a worker, on the shared client, ending in an outcome.

A role hands `ActionRunner.run` an action (a coroutine on the client that returns `Done`) and
what it is bound to (record ids, the form that waits). The runner starts a Textual worker in the
action's group, catches the venue's refusal (`ApiError`) and the action's own (`Refused`: no
wallet, a file that could not be written), and posts exactly one `ActionOutcome`. A crash in the
action is posted too (``crashed``) and then left to fail the worker, which the desk reports.

An action reads through the client but writes only through `ActionRunner.send`: the desk's one
`WriteDesk` (`tui.desk.roles.writes`), journaled, sent once, and resolved by reading when its
answer is lost. The outcome carries every write the action made and how it ended
(``ActionOutcome.writes``), and says in words when an answer was lost: it landed, it did not
(safe to send again), or it is still unknown (`NotLanded`, `StillUnknown`). While one is
unknown the runner looks for it again on a timer (`UnknownWatch`) and tells the trader when
it resolves.

User actions acquire the request budget without the polls' reserve: they are what the reserve
is kept for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker

from tui.api.client import ServiceClient
from tui.api.errors import ApiError
from tui.api.writes import Intent, Landed, NotLanded, Outcome, Resolution, Unresolved
from tui.desk.book import DeskBook
from tui.desk.messages import ActionKind, ActionOutcome, RecordIds, Topic
from tui.desk.roles.writes import DeskWrites, UnknownWatch, landing_words
from tui.desk.session import Connection

ACTIONS = "actions"
"""The worker group of actions that may run side by side (two quotes on two RFQs)."""


class DeskHost(Protocol):
    """What the roles need of the desk: its book and client, screens, toasts and workers."""

    book: DeskBook
    writes: DeskWrites

    @property
    def client(self) -> ServiceClient | None:
        """The signed client, once connected."""
        ...

    @property
    def connection(self) -> Connection | None:
        """The session's connection, once connected."""
        ...

    @property
    def screen(self) -> Screen[object]:
        """The screen on top."""
        ...

    def clock(self) -> datetime:
        """Now, as the venue sees it."""
        ...

    def poll_soon(self, *topics: Topic) -> None:
        """Ask the feed for these topics as soon as the budget allows."""
        ...

    def push_screen(
        self, screen: Screen[Any], callback: Callable[[Any], None] | None = None
    ) -> object:
        """Show a modal; ``callback`` gets what it is dismissed with."""
        ...

    async def push_screen_wait(self, screen: Screen[Any]) -> Any:
        """Show a modal and wait for its answer (inside a worker only)."""
        ...

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A toast."""
        ...

    def run_worker(
        self,
        work: Coroutine[Any, Any, None],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[None]:
        """Run a coroutine in a Textual worker."""
        ...

    def post_message(self, message: Message) -> bool:
        """Queue a message for the desk."""
        ...

    def set_interval(
        self,
        interval: float,
        callback: Callable[[], Any] | None = None,
        *,
        name: str | None = None,
        repeat: int = 0,
        pause: bool = False,
    ) -> Timer:
        """Call ``callback`` every ``interval`` seconds."""
        ...


@dataclass(frozen=True)
class Done:
    """What an action that reached the venue reports back.

    ``problem`` is set when the venue answered but not everything worked (the kill switch
    pulled the quotes but one RFQ would not cancel): the outcome is then not ok, yet still
    carries the record and still refreshes what it touched.
    """

    summary: str
    record: Any = None
    refresh: tuple[Topic, ...] = ()
    money: bool = False
    problem: str = ""


class Refused(Exception):
    """An action that could not do its job for a reason the user can act on; said in words."""


class WriteNotDone(Refused):
    """A write that did not land, or whose landing is not known; ``outcome`` says which."""

    def __init__(self, outcome: NotLanded | Unresolved) -> None:
        super().__init__(landing_words(outcome) or outcome.reason)
        self.outcome = outcome


_SENT: ContextVar[list[Outcome] | None] = ContextVar("desk_writes_sent", default=None)
"""The writes the action running in this task sent, in order (each worker has its own)."""


VenueAction = Callable[[ServiceClient], Awaitable[Done]]
"""An action on the venue: given the shared client, what it did."""

LocalAction = Callable[[], Awaitable[Done]]
"""An action that needs no venue (writing a file)."""


class ActionRunner:
    """Runs the roles' actions in workers and posts their outcomes (see module docs)."""

    def __init__(self, desk: DeskHost) -> None:
        self.desk = desk
        self.unknown = UnknownWatch(desk)
        """Looks again, on a timer, for writes whose landing is unknown."""

    def client(self) -> ServiceClient:
        """The shared client; an `ApiError` when the desk is not connected yet."""
        if self.desk.client is None:
            raise ApiError("not connected")
        return self.desk.client

    async def send(self, intent: Intent) -> Any:
        """Write ``intent`` through the desk's `WriteDesk`; the venue's record when it landed.

        A refusal raises the venue's `ApiError` (as a direct call would); a write that did not
        land or whose landing is unknown raises `WriteNotDone`, in words. Never sends blind.
        """
        writes = self.desk.writes
        writes.bind(self.client())
        try:
            outcome = await writes.submit(intent)
        except OSError as error:
            raise Refused(f"not sent: the journal cannot be written ({error})") from None
        sent = _SENT.get()
        if sent is not None:
            sent.append(outcome)
        if isinstance(outcome, Unresolved):
            self.unknown.start()
        if isinstance(outcome, Landed):
            return outcome.record
        if (
            isinstance(outcome, NotLanded)
            and outcome.how is Resolution.REFUSED
            and outcome.error is not None
        ):
            raise outcome.error
        raise WriteNotDone(outcome)

    def run(
        self,
        kind: ActionKind,
        action: VenueAction,
        *,
        ids: RecordIds | None = None,
        refresh_on_error: tuple[Topic, ...] = (),
        form: object = None,
        group: str = ACTIONS,
        exclusive: bool = False,
        side: str | None = None,
    ) -> Worker[None]:
        """Start ``action`` on the client in a worker; its outcome arrives as a message.

        ``refresh_on_error``: polls to look at again even when the venue refused (an accept
        refused because the quote was just pulled: the board should show that).
        ``exclusive``: a new run cancels one of the same group still running, for actions
        where the later one does the whole job again (the kill switch, an export).
        ``side``: the side an accept takes, for the book to file the trade from the answer.
        """

        async def on_venue() -> Done:
            return await action(self.client())

        return self.run_local(
            kind,
            on_venue,
            ids=ids,
            refresh_on_error=refresh_on_error,
            form=form,
            group=group,
            exclusive=exclusive,
            side=side,
        )

    def run_local(
        self,
        kind: ActionKind,
        action: LocalAction,
        *,
        ids: RecordIds | None = None,
        refresh_on_error: tuple[Topic, ...] = (),
        form: object = None,
        group: str = ACTIONS,
        exclusive: bool = False,
        side: str | None = None,
    ) -> Worker[None]:
        """Start an action that needs no client, the same way as `run`."""
        bound = ids or RecordIds()

        async def work() -> None:
            try:
                outcome = await self.execute(kind, action, bound, refresh_on_error, form)
            except Exception as crash:
                self.desk.post_message(
                    ActionOutcome(
                        kind, bound, problem=f"not sent: {crash}", form=form, crashed=True
                    )
                )
                raise
            outcome.at = self.desk.clock()
            outcome.side = side
            self.desk.post_message(outcome)

        return self.desk.run_worker(
            work(), name=kind.value, group=group, exclusive=exclusive, exit_on_error=False
        )

    @staticmethod
    async def execute(
        kind: ActionKind,
        action: LocalAction,
        ids: RecordIds,
        refresh_on_error: tuple[Topic, ...] = (),
        form: object = None,
    ) -> ActionOutcome:
        """Run one action to its outcome; a refusal is an outcome, never an exception."""
        sent: list[Outcome] = []
        token = _SENT.set(sent)
        try:
            done = await action()
        except ApiError as error:
            return ActionOutcome(
                kind,
                ids,
                problem=error.message,
                error=error,
                refresh=refresh_on_error,
                form=form,
                writes=tuple(sent),
            )
        except WriteNotDone as unknown:
            # It may have moved something: look at what it touches again.
            return ActionOutcome(
                kind,
                ids,
                problem=str(unknown),
                refresh=refresh_on_error,
                form=form,
                writes=tuple(sent),
            )
        except Refused as refusal:
            return ActionOutcome(kind, ids, problem=str(refusal), form=form, writes=tuple(sent))
        finally:
            _SENT.reset(token)
        notes = [note for note in map(landing_words, sent) if note]
        summary = done.summary
        if notes and summary:
            summary = f"{summary} ({'; '.join(notes)})"
        return ActionOutcome(
            kind,
            ids,
            summary=summary,
            problem=done.problem,
            record=done.record,
            refresh=done.refresh,
            money=done.money,
            form=form,
            writes=tuple(sent),
        )
