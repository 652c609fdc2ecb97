"""Safety and record keeping: the kill switch, and the CSV export of what is in view.

The kill switch asks once, then cancels every quote (one call: a quote can be hit any moment)
and every open RFQ of this company, and reports what it could not cancel. Its cancels are
writes like any other: journaled and sent through `ActionRunner.send`. The export writes the
trades and transfers of the view for the back office.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from tui.api.client import ServiceClient
from tui.api.errors import ApiError
from tui.api.models import RFQ, RFQStatus, Trade, Transfer
from tui.api.writes import Intent, WriteKind
from tui.desk.export import export_csv
from tui.desk.messages import ActionKind, KillReport, RecordIds, Topic
from tui.desk.roles.runner import ActionRunner, DeskHost, Done, Refused, WriteNotDone
from tui.desk.screens.confirm import ConfirmScreen

KILL = "kill"
"""The kill switch's worker group: a second kill replaces one still running."""
EXPORT = "export"
"""The export's worker group: a second export replaces one still writing."""


async def kill_switch(
    client: ServiceClient, send: Callable[[Intent], Awaitable[Any]], known_open: list[RFQ]
) -> KillReport:
    """Cancel every quote, then every open RFQ of this company (writes go through ``send``).

    Quotes go first (one call), since a quote can be hit any moment. The open RFQs are read
    fresh from the venue when the budget allows, and the ones the desk already knew are
    cancelled even if that read fails.
    """
    report = KillReport()
    try:
        report.quotes_cancelled = bool(await send(Intent.of(WriteKind.CANCEL_ALL_QUOTES)))
    except ApiError as error:
        report.failures.append(f"cancel all quotes: {error.message}")
    except WriteNotDone as unknown:
        report.failures.append(f"cancel all quotes: {unknown}")
    open_ids = {rfq.rfq_id for rfq in known_open}
    try:
        async for rfq in client.iterate(client.rfqs_sent, price=False):
            if str(rfq.rfq_status) == "open":
                open_ids.add(rfq.rfq_id)
    except ApiError as error:
        report.failures.append(f"reading open RFQs: {error.message}")
    for rfq_id in sorted(open_ids):
        try:
            if await send(Intent.of(WriteKind.CANCEL_RFQ, id=rfq_id)):
                report.rfqs_cancelled.append(rfq_id)
        except ApiError as error:
            if error.status == 409:  # closed or expired meanwhile: nothing left to cancel
                continue
            report.failures.append(f"RFQ {rfq_id[:8]}: {error.message}")
        except WriteNotDone as unknown:
            report.failures.append(f"RFQ {rfq_id[:8]}: {unknown}")
    return report


class SafetyRole:
    """The kill switch and the export (see module docs)."""

    def __init__(self, desk: DeskHost, runner: ActionRunner, export_dir: Path) -> None:
        self.desk = desk
        self.runner = runner
        self.export_dir = export_dir

    def kill_switch(self) -> None:
        """Confirm once, then cancel every quote and every open RFQ."""
        if self.desk.client is None:
            self.desk.notify("not connected", severity="error")
            return
        if isinstance(self.desk.screen, ConfirmScreen):
            return
        book = self.desk.book
        live_quotes = book.live_quotes(self.desk.clock())
        open_rfqs = [r for r in book.rfqs_sent.values() if r.rfq_status == RFQStatus.OPEN]

        def answered(yes: bool | None) -> None:
            if yes:
                self.kill_now(open_rfqs)

        self.desk.push_screen(
            ConfirmScreen(
                "KILL SWITCH",
                f"Cancel ALL my quotes ({len(live_quotes)} known live) and ALL my open RFQs "
                f"({len(open_rfqs)} known)?\nTrades already accepted keep clearing.",
                confirm_label="Cancel everything",
                danger=True,
            ),
            answered,
        )

    def kill_now(self, open_rfqs: list[RFQ]) -> None:
        """Cancel everything without asking (the confirmation said yes)."""

        async def kill(client: ServiceClient) -> Done:
            report = await kill_switch(client, self.runner.send, open_rfqs)
            text = report.summary()
            return Done(
                text if report.ok else "",
                record=report,
                refresh=(Topic.QUOTES_SENT, Topic.RFQS_SENT, Topic.RFQS_RECEIVED),
                problem="" if report.ok else text,
            )

        self.runner.run(ActionKind.KILL_SWITCH, kill, group=KILL, exclusive=True)

    def export(self, pool_id: str | None = None) -> None:
        """Write the trades and transfers of the view (one pool's, or all) as CSV."""
        book = self.desk.book
        trades = [t for t in book.trades if pool_id is None or t.pool_location == pool_id]
        transfers = [
            t for t in book.transfers if pool_id is None or t.target_pool_location == pool_id
        ]
        label = book.pool_name(pool_id) if pool_id else "all"
        self.export_now(trades, transfers, label, pool_id)

    def export_now(
        self, trades: list[Trade], transfers: list[Transfer], label: str, pool_id: str | None
    ) -> None:
        """Write the files in a thread; the outcome says where they went."""
        now = self.desk.clock()

        async def write() -> Done:
            try:
                paths = await asyncio.to_thread(
                    export_csv, self.export_dir, trades, transfers, now, label, self.desk.book
                )
            except OSError as error:
                raise Refused(f"export failed: {error}") from None
            return Done(
                f"{len(trades)} trades → {paths[0]}\n{len(transfers)} transfers → {paths[1]}",
                record=paths,
            )

        self.runner.run_local(
            ActionKind.EXPORT, write, ids=RecordIds(pool_id=pool_id), group=EXPORT, exclusive=True
        )
