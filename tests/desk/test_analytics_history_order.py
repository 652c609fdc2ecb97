"""History entries do not depend on the order the feed polls in: a finished quote seen before
its RFQ gets the RFQ's structure and qty once the RFQ comes, and an RFQ I sent that traded
names the maker it traded with, even when the RFQ came before its quotes."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from tests.desk.test_analytics_scorecards import BOOKED, FAST, LL, ME, T0, quote, rfq
from tui.desk.analytics.store import HistoryLog

LATER = T0 + timedelta(hours=1)


def test_a_finished_quote_seen_before_its_rfq_gets_its_structure_and_qty() -> None:
    log = HistoryLog(None)
    filled = quote("q1", "r1", FAST, 1.0, "99", "101", state="filled", clearing=[LL, BOOKED])
    log.update(
        rfqs_sent={}, rfqs_received={}, quotes_sent=[], quotes_received=[filled], me=ME, now=LATER
    )
    log.update(
        rfqs_sent={"r1": rfq("r1", ME, "closed", [FAST])},
        rfqs_received={},
        quotes_sent=[],
        quotes_received=[filled],
        me=ME,
        now=LATER,
    )
    entry = log.entry("quote received:q1")
    assert entry is not None
    assert entry.qty == Decimal(1)
    assert "BTC" in entry.structure


def test_an_rfq_sent_that_traded_names_its_maker_whatever_came_first() -> None:
    log = HistoryLog(None)
    closed = {"r1": rfq("r1", ME, "closed", [FAST])}
    filled = quote("q1", "r1", FAST, 1.0, "99", "101", state="filled", clearing=[LL, BOOKED])
    log.update(
        rfqs_sent=closed, rfqs_received={}, quotes_sent=[], quotes_received=[], me=ME, now=LATER
    )
    log.update(
        rfqs_sent=closed,
        rfqs_received={},
        quotes_sent=[],
        quotes_received=[filled],
        me=ME,
        now=LATER,
    )
    entry = log.entry("rfq sent:r1")
    assert entry is not None and entry.maker == FAST


def test_an_rfq_sent_names_its_maker_from_the_rfqs_own_metadata() -> None:
    log = HistoryLog(None)
    closed = rfq("r1", ME, "closed", [FAST])
    closed.quotes_common_metadata["q1"] = {"maker_company": FAST, "clearing_status": BOOKED}
    log.update(
        rfqs_sent={"r1": closed},
        rfqs_received={},
        quotes_sent=[],
        quotes_received=[],
        me=ME,
        now=LATER,
    )
    entry = log.entry("rfq sent:r1")
    assert entry is not None and entry.maker == FAST
