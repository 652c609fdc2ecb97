"""The report of `bench_feed_session`: what one session measured, and the figures in words.

`Figures` holds a session's raw facts (each RFQ of the counterparty with its creation and
first showing, every HTTP exchange of the desk's client, the sandbox's refusals, what the
traders did); `report` turns them into the printed figures: the delays (median, p90, max,
and what each was made of), the 429s at the client and at the sandbox, the poll pace of
received RFQs and the desk's tokens per 10 s window by endpoint, each target with its ratio
and verdict.
"""

from __future__ import annotations

import itertools
import os
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from tests.bench.feed_session_traders import Counterparty, SentRfq
from tui.api.budget import DESK_RESERVE_TOKENS
from tui.api.endpoints import BUDGET_TOKENS, BUDGET_WINDOW_S, endpoint_named
from tui.desk.feed.topics import SPECS
from tui.desk.messages import Topic

WRITE_WAITED_S = 0.01
"""A write that waited longer than this for its tokens counts as having waited."""
TARGET_MEDIAN_S = 1.0
"""Issue 11: a new received RFQ on screen within 1 s of its creation (median)."""


@dataclass(frozen=True)
class Exchange:
    """One HTTP exchange of the desk's client: answered at ``at_ms`` (venue clock)."""

    at_ms: int
    endpoint: str
    status: int
    latency_ms: float


@dataclass
class Figures:
    """What one session measured."""

    seconds: float
    sent: list[SentRfq]
    exchanges: list[Exchange]
    refused: dict[str, dict[str, int]]
    names: dict[str, str]
    counterparty: Counterparty
    trader: Counter[str]
    outcomes: Counter[str]
    booked: int
    load: tuple[float, float]
    cpu_s: float
    write_waits: list[float] = field(default_factory=list)
    """How long each write of the desk's trader waited for tokens (seconds)."""
    ended_ms: int | None = None
    """When the session ended (venue clock): the grace for the last RFQs is not its load."""
    headline: list[str] = field(default_factory=list)
    """What was unusual about the run (an experiment, a quiet desk): said first."""
    notes: list[str] = field(default_factory=list)


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    """Median, p90 and max of ``values`` (seconds)."""
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return statistics.median(ordered), p90, ordered[-1]


def _spread(label: str, values: list[float]) -> str:
    if not values:
        return f"  {label:<44} none"
    median, p90, most = _quantiles(values)
    return f"  {label:<44} median {median:6.2f} s  p90 {p90:6.2f} s  max {most:6.2f} s"


def delay_parts(rfq: SentRfq, polls: list[Exchange]) -> tuple[float, float, float] | None:
    """Waiting for the poll that brought ``rfq``, its round trip, its answer to the row (s).

    The poll that brought it is the last poll of received RFQs answered before the row showed.
    """
    if rfq.seen_ms is None:
        return None
    brought = [p for p in polls if p.at_ms <= rfq.seen_ms]
    if not brought:
        return None
    poll = brought[-1]
    sent_ms = poll.at_ms - poll.latency_ms
    return (
        (sent_ms - rfq.created_ms) / 1000,
        poll.latency_ms / 1000,
        (rfq.seen_ms - poll.at_ms) / 1000,
    )


def passed_over(rfq: SentRfq, polls: list[Exchange]) -> int:
    """Polls of received RFQs sent after ``rfq`` was created and answered before it showed,
    yet without it: the venue listed it later than it stamped it (or the desk dropped it)."""
    if rfq.seen_ms is None:
        return 0
    answered = [p for p in polls if p.at_ms <= rfq.seen_ms]
    return sum(p.at_ms - p.latency_ms > rfq.created_ms for p in answered[:-1])


def each_rfq(figures: Figures, polls: list[Exchange]) -> list[str]:
    """One line per RFQ of the counterparty: its delay and the polls around it (``--each``)."""
    out = ["each RFQ: delay; the poll that brought it (sent, answered, after creation); passed"]
    for rfq in figures.sent:
        if rfq.seen_ms is None:
            out.append(f"  {rfq.rfq_id[:8]} never shown")
            continue
        poll = [p for p in polls if p.at_ms <= rfq.seen_ms][-1:]
        when = (
            f"sent +{(poll[0].at_ms - poll[0].latency_ms - rfq.created_ms) / 1000:.2f} s, "
            f"answered +{(poll[0].at_ms - rfq.created_ms) / 1000:.2f} s"
            if poll
            else "none"
        )
        out.append(
            f"  {rfq.rfq_id[:8]} {(rfq.seen_ms - rfq.created_ms) / 1000:6.2f} s; {when}; "
            f"passed over by {passed_over(rfq, polls)}"
        )
    return out


def report(figures: Figures, each: bool = False) -> str:
    """The session's figures, each target with its ratio and verdict."""
    out: list[str] = list(figures.headline)
    seen = [s for s in figures.sent if s.seen_ms is not None]
    delays = [(s.seen_ms - s.created_ms) / 1000 for s in seen if s.seen_ms is not None]
    statuses = Counter(e.status for e in figures.exchanges)
    desk_id = next((i for i, n in figures.names.items() if n == "DESK"), "")
    company = figures.refused.get("company", {})
    refused_desk = company.get(desk_id, 0)
    per_address = sum(figures.refused.get("anonymous", {}).values()) + sum(
        figures.refused.get("stats", {}).values()
    )
    client_429 = statuses.get(429, 0)
    cores = os.cpu_count() or 0
    out.append(
        f"session {figures.seconds:.0f} s; machine: {cores} cores, load average "
        f"{figures.load[0]:.2f} at start, {figures.load[1]:.2f} at end; this process "
        f"(desk + counterparty) {100 * figures.cpu_s / figures.seconds:.1f} % of a core"
    )
    cp = figures.counterparty
    out.append(
        f"counterparty ALPHA: {len(figures.sent)} RFQs to DESK, {len(cp.accepted)} of the "
        f"desk's quotes bought; its client: {dict(sorted(cp.statuses.items()))}"
        + (f"; problems {dict(cp.problems)}" if cp.problems else "")
    )
    did = ", ".join(f"{k} {v}" for k, v in sorted(figures.trader.items())) or "nothing"
    out.append(f"desk trader: {did}; trades booked (both sides) {figures.booked}")
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(figures.outcomes.items())) or "none"
    out.append(f"desk action outcomes: {outcomes}")
    if figures.write_waits:
        waited = sum(w > WRITE_WAITED_S for w in figures.write_waits)
        median, p90, most = _quantiles(figures.write_waits)
        out.append(
            f"desk writes waiting for tokens: {waited} of {len(figures.write_waits)} waited; "
            f"median {median:.2f} s  p90 {p90:.2f} s  max {most:.2f} s"
        )
    out.append("")
    out.append(
        f"429s: desk client met {client_429} of {len(figures.exchanges)} exchanges "
        f"(by status {dict(sorted(statuses.items()))}); sandbox refused DESK {refused_desk}, "
        f"others {sum(company.values()) - refused_desk}, per-address limits {per_address}"
        f"   target 0: {'MET' if client_429 == 0 and refused_desk == 0 else 'MISSED'}"
    )
    missed = len(figures.sent) - len(seen)
    if delays:
        median, p90, most = _quantiles(delays)
        verdict = "MET" if median <= TARGET_MEDIAN_S else "MISSED"
        out.append(
            f"received RFQ created -> in the inbox's rows (n={len(delays)}, never shown "
            f"{missed}): median {median:.2f} s  p90 {p90:.2f} s  max {most:.2f} s   "
            f"target median <= {TARGET_MEDIAN_S:g} s: x{median / TARGET_MEDIAN_S:.2f} {verdict}"
        )
    else:
        out.append(f"no RFQ of the counterparty reached the inbox ({missed} sent)")
    polls = sorted(
        (e for e in figures.exchanges if e.endpoint == "rfqs_received" and e.status == 200),
        key=lambda e: e.at_ms,
    )
    parts = [p for p in (delay_parts(s, polls) for s in seen) if p is not None]
    out.append("  made of:")
    out.append(_spread("waiting for the poll that brought it", [p[0] for p in parts]))
    out.append(_spread("that poll's round trip", [p[1] for p in parts]))
    out.append(_spread("its answer to the inbox's row", [p[2] for p in parts]))
    late = sum(passed_over(s, polls) > 0 for s in seen)
    out.append(f"  RFQs a poll sent after their creation did not list yet: {late}")
    rows = [s.seen_row for s in seen if s.seen_row is not None]
    if rows:
        out.append(
            f"  row when first shown: median {statistics.median(rows):.0f}, worst {max(rows)}"
        )
    out.append("")
    out.extend(pace_lines(figures, polls))
    if each:
        out.extend(each_rfq(figures, polls))
    return "\n".join(out)


def gap_median(gaps: list[float]) -> float:
    """The median wait for the next poll of an RFQ created at a uniformly random moment
    between the first and the last poll with these gaps (s).

    Every gap counts, not only the few gaps an RFQ of the counterparty fell in, so it is
    steadier than the median of ~30 delays; a gap ``g`` holds a share ``g / sum`` of the
    arrivals and makes them wait from ``g`` down to 0 (long gaps weigh twice: more arrivals,
    longer waits). Solved by bisection: the wait ``w`` that half the arrivals exceed.
    """
    total = sum(gaps)
    if total <= 0:
        return 0.0
    low, high = 0.0, max(gaps)
    for _ in range(40):
        wait = (low + high) / 2
        if sum(max(0.0, gap - wait) for gap in gaps) / total > 0.5:
            low = wait
        else:
            high = wait
    return low


def budget_floor(tokens: dict[str, float], windows: float) -> tuple[float, float, float]:
    """What the budget leaves the received-RFQs poll at this session's load: the writes'
    tokens per window, the other polls' tokens per window, and the floor of the new-RFQ
    median wait that follows (s; inf when nothing is left).

    Every poll leaves `DESK_RESERVE_TOKENS` free for the trader's next write, so the polls and
    the writes share the rest: whatever the writes and the other polls took, the received
    poll can have at most that much less, one poll per ``cost * window / left`` seconds even
    spaced perfectly, and an RFQ created at a random moment waits half of that.
    """
    writes = sum(t for name, t in tokens.items() if endpoint_named(name).writes) / windows
    received = tokens.get("rfqs_received", 0.0) / windows
    others = sum(tokens.values()) / windows - writes - received
    left = BUDGET_TOKENS - DESK_RESERVE_TOKENS - writes - others
    cost = SPECS[Topic.RFQS_RECEIVED].cost
    floor = cost * BUDGET_WINDOW_S / left / 2 if left > 0 else float("inf")
    return writes, others, floor


def pace_lines(figures: Figures, polls: list[Exchange]) -> list[str]:
    """How often received RFQs were polled, what that implies for the delay, what the desk's
    tokens went on, and the floor the budget sets at this load."""
    out = []
    gaps = [(b.at_ms - a.at_ms) / 1000 for a, b in itertools.pairwise(polls)]
    spec = SPECS[Topic.RFQS_RECEIVED]
    out.append(
        f"polls of received RFQs: {len(polls)}, "
        + (f"gap median {statistics.median(gaps):.2f} s, max {max(gaps):.2f} s " if gaps else "")
        + f"(topics.py: hot every {spec.hot_s:g} s, cold {spec.cold_s:g} s; "
        f"{spec.cost} tokens a poll)"
    )
    tokens: dict[str, float] = defaultdict(float)
    for exchange in figures.exchanges:
        if figures.ended_ms is not None and exchange.at_ms > figures.ended_ms:
            continue  # the grace after the session, not its load
        if exchange.status != 429:  # refused calls are charged nothing
            tokens[exchange.endpoint] += endpoint_named(exchange.endpoint).cost
    windows = figures.seconds / BUDGET_WINDOW_S
    total = sum(tokens.values()) / windows
    if gaps:
        out.append(
            f"  the wait those gaps imply for an RFQ created at a random moment: median "
            f"{gap_median(gaps):.2f} s (add the round trip and the row, above)"
        )
    out.append(f"desk tokens per {BUDGET_WINDOW_S:g} s window, whole session: {total:.1f} of 100")
    for name, spent in sorted(tokens.items(), key=lambda item: -item[1]):
        out.append(f"  {name:<32} {spent / windows:6.1f}")
    writes, others, floor = budget_floor(tokens, windows)
    out.append(
        f"the budget's floor at this load: {BUDGET_TOKENS} - reserve {DESK_RESERVE_TOKENS} - "
        f"writes {writes:.1f} - other polls {others:.1f} leaves the received poll "
        f"{BUDGET_TOKENS - DESK_RESERVE_TOKENS - writes - others:.1f} tokens per window: a "
        f"median wait of at least {floor:.2f} s, however the polls are spaced"
    )
    out.extend(figures.notes)
    return out
