"""The status bar's pane ages (`tui.desk.feed.policy.pane_ages`): whose age a pane shows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tui.desk.feed.policy import pane_ages
from tui.desk.messages import Topic

NOW = datetime(2026, 11, 23, 9, 30, tzinfo=UTC)


def inbox_age(hot: set[Topic], stale: set[Topic]) -> tuple[float | None, bool]:
    """The inbox pane's age and staleness: received RFQs polled 1 s ago, sent ones 18 s ago."""
    last_ok = {
        Topic.RFQS_RECEIVED: NOW - timedelta(seconds=1),
        Topic.RFQS_SENT: NOW - timedelta(seconds=18),
    }
    ages = pane_ages(last_ok, hot, last_ok, lambda topic: topic in stale, NOW)
    (inbox,) = [age for age in ages if age.pane == "inbox"]
    return inbox.age_s, inbox.stale


def test_the_inbox_shows_the_age_of_the_rfqs_sent_to_me_while_they_poll_fast() -> None:
    both = {Topic.RFQS_RECEIVED, Topic.RFQS_SENT}
    assert inbox_age(both, set()) == (1.0, False), "my own RFQ open: still the maker's age"
    assert inbox_age(both, {Topic.RFQS_SENT}) == (1.0, True), "stale when either is"
    assert inbox_age({Topic.RFQS_SENT}, set()) == (18.0, False), "another tab: the hot one's"
    assert inbox_age(set(), set()) == (18.0, False), "nothing hot: the oldest"
