"""The desk's writes: one `WriteDesk` and its journal, and what came of a write in words.

Every action that changes something on the venue (an RFQ, a quote, an accept, a last look, a
permit, a transfer, a pool, a cancel) is an `Intent` handed to `DeskWrites.submit`: written to
the journal before it leaves, sent once, and when its answer is lost, resolved by reading the
venue (`tui.api.writes`). The journal is the trader's audit trail too, one per venue profile
in the desk's data folder (`journal_path_for`).

A new order the same as one whose outcome is still unknown (the trader pressing accept again
after "not known whether it landed") resolves the earlier one first and is sent only if that
one provably did not land: the same order is never on the venue twice. Cancels are exempt: a
second cancel of the same record does no harm.

After a crash the intents left open are resolved by `DeskWrites.reconcile` (at every connect),
and `reconcile_words` tells the trader what was found. An intent still unknown is not left to
the next connect: while any is open, `DeskWrites.recheck` reads the venue again every
`RECHECK_EVERY_S` (`UnknownWatch`, a timer of the desk that starts the look in a worker),
and `recheck_words` tells the trader each one that resolved.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.api.client import ServiceClient
from tui.api.writes import (
    Intent,
    Journal,
    JournalEntry,
    Landed,
    NotLanded,
    Outcome,
    Resolution,
    Unresolved,
    WriteDesk,
    WriteKind,
)
from tui.desk.messages import Topic
from tui.desk.roles.journals import JOURNALS, journal_path_for
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.worker import Worker

    from tui.desk.roles.runner import DeskHost

__all__ = [
    "JOURNALS",
    "RECHECK_EVERY_S",
    "DeskWrites",
    "UnknownWatch",
    "journal_path_for",
    "landing_words",
    "recheck_words",
    "reconcile_words",
]

IDEMPOTENT = frozenset({WriteKind.CANCEL_QUOTE, WriteKind.CANCEL_ALL_QUOTES, WriteKind.CANCEL_RFQ})
"""Writes that do no harm sent twice: a new one never waits for an earlier one."""

RECHECK_EVERY_S = 15.0
"""How often an intent whose landing is unknown is looked for again on the venue."""

_VOLATILE = frozenset({"client_quote_id", "expires_at", "seconds_until_expiry"})
"""Payload keys that differ between two sendings of the same order (its id, a fresh expiry)."""


def _order(payload: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in payload.items() if key not in _VOLATILE}


class DeskWrites:
    """The desk's one `WriteDesk` over the journal at ``path`` (opened at the first use).

    ``bind`` gives it the client to send through (a new one after the sandbox restarted);
    ``sleep`` and ``settle_ms`` are the `WriteDesk`'s (tests move a fake clock with them).
    ``reconciled`` holds what the last `reconcile` found, by intent id, for the journal view.
    """

    def __init__(
        self,
        path: Path,
        *,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        settle_ms: int | None = None,
    ) -> None:
        self.path = path
        self._sleep = sleep
        self._settle_ms = settle_ms
        self._journal: Journal | None = None
        self._desk: WriteDesk | None = None
        self._client: ServiceClient | None = None
        self.reconciled: dict[str, Outcome] = {}

    @property
    def journal(self) -> Journal:
        """The journal, opened (and its folder made private) at the first use; an `OSError`
        when it cannot be kept."""
        if self._journal is None:
            self._journal = Journal(self.path)
        return self._journal

    def bind(self, client: ServiceClient) -> None:
        """Send the next writes, and read for resolutions, through ``client``."""
        self._client = client
        if self._desk is not None:
            self._desk.client = client

    def _write_desk(self) -> WriteDesk:
        if self._client is None:
            raise RuntimeError("no client bound to the desk's writes")
        if self._desk is None:
            options: dict[str, Any] = {}
            if self._sleep is not None:
                options["sleep"] = self._sleep
            if self._settle_ms is not None:
                options["settle_ms"] = self._settle_ms
            self._desk = WriteDesk(self._client, self.journal, **options)
        return self._desk

    async def submit(self, intent: Intent) -> Outcome:
        """Send ``intent`` once (see module docs for an earlier same order still unknown)."""
        desk = self._write_desk()
        if intent.kind not in IDEMPOTENT:
            for earlier in self._open_like(intent):
                outcome = await desk.resolve(earlier)
                if not isinstance(outcome, NotLanded):
                    return outcome
        return await desk.submit(intent)

    def _open_like(self, intent: Intent) -> list[Intent]:
        order = _order(intent.payload)
        return [
            earlier
            for earlier in self.journal.open_intents()
            if earlier.kind is intent.kind
            and earlier.id != intent.id
            and _order(earlier.payload) == order
        ]

    async def reconcile(self) -> list[Outcome]:
        """Resolve every intent the journal holds open (a crash, a lost answer), by reading."""
        outcomes = await self._write_desk().resolve_open()
        self.reconciled.update((outcome.intent.id, outcome) for outcome in outcomes)
        return outcomes

    def has_open(self) -> bool:
        """Whether the journal holds an intent whose outcome is not known (False when the
        journal cannot be read: its error is told where it is opened)."""
        try:
            return bool(self.journal.open_intents())
        except OSError:
            return False

    async def recheck(self) -> list[Landed | NotLanded]:
        """Read the venue again for every open intent; the ones now known (landed or not).
        Nothing is sent. Nothing to do before a client is bound."""
        if self._client is None or not self.has_open():
            return []
        outcomes = await self.reconcile()
        return [outcome for outcome in outcomes if isinstance(outcome, Landed | NotLanded)]

    def entries(self) -> list[JournalEntry]:
        """Every action sent, newest first: the audit trail (empty before the first use)."""
        try:
            journal = self.journal
        except OSError:
            return []
        return sorted(journal.entries(), key=lambda entry: entry.sent_at_ms, reverse=True)

    def close(self) -> None:
        """Close the journal file."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None
            self._desk = None


RECHECK = "recheck"
"""The worker group of the look, on the timer, for writes whose landing is unknown."""

AFTER_RECHECK = (
    Topic.RFQS_SENT,
    Topic.RFQS_RECEIVED,
    Topic.QUOTES_SENT,
    Topic.QUOTES_RECEIVED,
    Topic.POOLS,
    Topic.TRANSFERS,
    Topic.TRADES,
)
"""What a write found to have landed may have changed: polled at once."""


class UnknownWatch:
    """Every `RECHECK_EVERY_S` while the desk's journal holds an open intent: a worker reads
    the venue for them again (`DeskWrites.recheck`), tells the trader each one now known and
    polls what it may have changed. Stops by itself once none is open."""

    def __init__(self, desk: DeskHost) -> None:
        self.desk = desk
        self._timer: Timer | None = None
        self._looking: Worker[None] | None = None

    @property
    def running(self) -> bool:
        """Whether the timer runs."""
        return self._timer is not None

    def start(self) -> None:
        """Start looking (a write ended unknown, or a connect left one open); once."""
        if self._timer is None:
            self._timer = self.desk.set_interval(
                RECHECK_EVERY_S, self.due, name="recheck-open-intents"
            )

    def due(self) -> None:
        """The timer's tick: stop when nothing is open, else look (unless still looking)."""
        if not self.desk.writes.has_open():
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            return
        if self._looking is not None and not self._looking.is_finished:
            return  # the last look still reads, or waits until the request can no longer land
        self._looking = self.desk.run_worker(
            self._look(), name="recheck", group=RECHECK, exit_on_error=False
        )

    async def _look(self) -> None:
        await self.look()

    async def look(self) -> list[Landed | NotLanded]:
        """Read the venue again for every open intent (nothing is sent); tell the trader each
        one now known, and poll what it may have changed."""
        client = self.desk.client
        if client is None:
            return []
        writes = self.desk.writes
        writes.bind(client)
        try:
            settled = await writes.recheck()
        except OSError as error:
            self.desk.notify(f"the journal cannot be written ({error})", severity="error")
            return []
        if settled:
            landed = any(isinstance(outcome, Landed) for outcome in settled)
            self.desk.notify(
                recheck_words(settled),
                title="Journal",
                severity="warning" if landed else "information",
                timeout=30,
            )
            self.desk.poll_soon(*AFTER_RECHECK)
        return settled


_LOST_AND_FOUND = {
    Resolution.FOUND: "its answer was lost; the venue shows it landed",
    Resolution.EARLIER: "it had landed already; not sent again",
}


def landing_words(outcome: Outcome) -> str:
    """What became of a write, in plain words; empty for a write the venue simply answered
    (done, or refused: its refusal says why)."""
    if isinstance(outcome, Landed):
        return _LOST_AND_FOUND.get(outcome.how, "")
    if isinstance(outcome, NotLanded):
        if outcome.how is Resolution.NEVER_SENT:
            return f"not sent ({outcome.reason}); safe to send again"
        if outcome.how is Resolution.ABSENT:
            return "its answer was lost; the venue shows it did not land: safe to send again"
        return ""  # refused: the venue's own words say why
    return (
        f"its answer was lost and the venue could not be read ({outcome.reason}): NOT KNOWN "
        "whether it landed. It is not sent again; the desk looks for it every "
        f"{RECHECK_EVERY_S:.0f} s and says when it knows (j: journal)"
    )


KIND_WORDS: dict[WriteKind, str] = {
    WriteKind.RFQ: "new RFQ",
    WriteKind.CANCEL_RFQ: "cancel RFQ",
    WriteKind.QUOTE: "quote",
    WriteKind.REPLACE_QUOTE: "replace quote",
    WriteKind.CANCEL_QUOTE: "pull quote",
    WriteKind.CANCEL_ALL_QUOTES: "pull all quotes",
    WriteKind.ACCEPT: "accept",
    WriteKind.LAST_LOOK: "last look",
    WriteKind.PERMIT: "permit",
    WriteKind.TRANSFER: "transfer",
    WriteKind.POOL: "new pool",
}
"""Each kind of write as the trader names the action."""


def intent_words(intent: Intent) -> str:
    """The action in trading words with what it names: ``accept BUY quote 22222222``."""
    payload = intent.payload
    words = [KIND_WORDS[intent.kind]]
    for key in ("action", "side", "transfer_type"):
        if isinstance(payload.get(key), str):
            words.append(str(payload[key]).upper())
    if isinstance(payload.get("qty"), str):
        words.append(str(payload["qty"]))
    for key, label in (("parent_quote_id", "quote "), ("rfq_id", "RFQ "), ("id", "")):
        value = payload.get(key)
        if isinstance(value, str):
            words.append(label + fmt.short_id(value))
            break
    if isinstance(payload.get("pool_name"), str):
        words.append(f"'{payload['pool_name']}'")
    return " ".join(words)


def _found_line(outcome: Outcome) -> str:
    """One resolved intent in words: the action, then LANDED / did not land / STILL UNKNOWN."""
    if isinstance(outcome, Landed):
        found = "LANDED"
    elif isinstance(outcome, NotLanded):
        found = "did not land (safe to send again)"
    else:
        found = "STILL UNKNOWN"
    return f"{intent_words(outcome.intent)}: {found}"


def reconcile_words(outcomes: list[Outcome]) -> str:
    """What resolving the intents a crash left open found, in one toast."""
    lines = [f"{len(outcomes)} action(s) left open by the last session:"]
    lines.extend(_found_line(outcome) for outcome in outcomes)
    return "\n".join(lines)


def recheck_words(outcomes: list[Landed | NotLanded]) -> str:
    """What looking again for actions whose landing was unknown found, in one toast."""
    lines = ["looked again for an action whose landing was not known:"]
    lines.extend(_found_line(outcome) for outcome in outcomes)
    return "\n".join(lines)


def verdict(entry: JournalEntry) -> str:
    """An entry's outcome in a word or three: landed, not landed, unknown."""
    if entry.outcome == "landed":
        return "landed"
    if entry.outcome == "not_landed":
        return "not landed"
    return "unknown" if entry.lost_at_ms is not None else "sent"


def is_unknown(outcome: Outcome) -> bool:
    """Whether the outcome is still unknown (the trader must be told so)."""
    return isinstance(outcome, Unresolved)
