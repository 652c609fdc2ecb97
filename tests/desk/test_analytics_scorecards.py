"""History and scorecards: a known sequence of RFQs and quotes counted correctly, and the
history kept across a restart in a private file."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from tui.api.models import RFQ, Quote
from tui.desk.analytics.history import EntryKind, Outcome
from tui.desk.analytics.scorecards import maker_cards, taker_cards
from tui.desk.analytics.store import HistoryLog

T0 = datetime(2026, 1, 5, 12, tzinfo=UTC)
ME, FAST, SLOW, SHY = "me", "fast", "slow", "shy"
LEG = {
    "side": "buy",
    "ratio": 1,
    "instrument": {"instrument_type": "perpetual_future", "underlying": "BTC"},
}


def rfq(rfq_id: str, taker: str, status: str, targets: list[str], at: int = 0) -> RFQ:
    return RFQ.model_validate(
        {
            "rfq_id": rfq_id,
            "created_at": (T0 + timedelta(seconds=at)).isoformat(),
            "structure": {"legs": [LEG]},
            "rfq_expires_at": (T0 + timedelta(seconds=at + 300)).isoformat(),
            "taker_company": taker,
            "rfq_status": status,
            "qty": "1",
            "target_companies": targets,
        }
    )


def quote(
    quote_id: str,
    rfq_id: str,
    maker: str,
    after: float,
    bid: str,
    ask: str,
    *,
    state: str = "expired",
    clearing: list[str] = (),  # type: ignore[assignment]
    rfq_at: int = 0,
) -> Quote:
    made = T0 + timedelta(seconds=rfq_at + after)
    events = [
        {
            "rfq_id": rfq_id,
            "parent_quote_id": quote_id,
            "status": status,
            "created_at": (made + timedelta(seconds=i + 1)).isoformat(),
        }
        for i, status in enumerate(clearing)
    ]
    return Quote.model_validate(
        {
            "parent_quote_id": quote_id,
            "target_rfq_id": rfq_id,
            "maker_company": maker,
            "expires_at": (made + timedelta(seconds=60)).isoformat(),
            "aggregated_bid": bid,
            "aggregated_ask": ask,
            "clearing_status": clearing[-1] if clearing else None,
            "clearing_events": events,
            "created_at": made.isoformat(),
            "quote_status": state,
        }
    )


LL, BOOKED = "pending_maker_last_look", "success_trades_booked_into_pool"


def the_day() -> dict[str, Any]:
    """Three RFQs of mine to FAST, SLOW and SHY; two RFQs to me from two takers."""
    sent = {
        "r1": rfq("r1", ME, "closed", [FAST, SLOW, SHY]),
        "r2": rfq("r2", ME, "expired", [FAST, SLOW, SHY], at=600),
        "r3": rfq("r3", ME, "closed", [FAST, SLOW], at=1200),
    }
    received = [
        # r1: FAST best on both sides and traded; SLOW quoted later and wider.
        quote("q1", "r1", FAST, 1.0, "99", "101", state="filled", clearing=[LL, BOOKED]),
        quote("q2", "r1", SLOW, 4.0, "98", "102"),
        # r2: FAST declines its last look; SLOW's bid is the best bid.
        quote(
            "q3",
            "r2",
            FAST,
            2.0,
            "97",
            "101",
            state="failed",
            clearing=[LL, "rejected_maker_last_look_rejected"],
            rfq_at=600,
        ),
        quote("q4", "r2", SLOW, 6.0, "99.5", "103", rfq_at=600),
        # r3: SLOW wins; FAST does not answer.
        quote(
            "q5", "r3", SLOW, 3.0, "99", "100", state="filled", clearing=[LL, BOOKED], rfq_at=1200
        ),
    ]
    asked = {
        "a1": rfq("a1", "t1", "closed", [ME], at=100),
        "a2": rfq("a2", "t1", "expired", [ME], at=200),
        "a3": rfq("a3", "t2", "closed", [ME], at=300),
    }
    made = [
        quote("m1", "a1", ME, 2.0, "10", "11", state="filled", clearing=[LL, BOOKED], rfq_at=100),
        quote("m2", "a3", ME, 4.0, "10", "11", rfq_at=300),  # traded away
    ]
    return {
        "rfqs_sent": sent,
        "rfqs_received": asked,
        "quotes_sent": made,
        "quotes_received": received,
    }


def test_a_known_sequence_of_quotes_is_counted_right(tmp_path: Path) -> None:
    log = HistoryLog(tmp_path / "history.jsonl")
    log.update(**the_day(), me=ME, now=T0 + timedelta(hours=1))
    entries = log.entries()
    outcomes = {e.key: e.outcome for e in entries}
    assert outcomes["quote received:q1"] is Outcome.TRADED
    assert outcomes["quote received:q2"] is Outcome.TRADED_AWAY
    assert outcomes["quote received:q3"] is Outcome.LAST_LOOK_REJECTED
    assert outcomes["quote made:m2"] is Outcome.TRADED_AWAY
    assert outcomes["rfq sent:r2"] is Outcome.LAST_LOOK_REJECTED
    assert outcomes["rfq received:a2"] is Outcome.EXPIRED
    assert outcomes["rfq received:a3"] is Outcome.TRADED_AWAY

    cards = {c.maker: c for c in maker_cards(entries)}
    fast, slow, shy = cards[FAST], cards[SLOW], cards[SHY]
    assert [c.maker for c in maker_cards(entries)][:2] == [FAST, SLOW]  # fastest first
    assert (fast.asked, fast.answered, fast.response_rate) == (3, 2, Decimal(2) / 3)
    assert fast.median_first_quote_s == Decimal("1.5")
    assert (fast.best_sides, fast.quoted_sides) == (3, 4)  # r1 bid and ask, r2 ask
    assert (fast.wins, fast.win_rate) == (1, Decimal("0.5"))
    assert (fast.last_looks, fast.last_look_rejects) == (2, 1)
    assert fast.last_look_reject_rate == Decimal("0.5")
    assert (slow.asked, slow.answered, slow.response_rate) == (3, 3, Decimal(1))
    assert slow.median_first_quote_s == Decimal(4)
    assert (slow.best_sides, slow.quoted_sides) == (3, 6)
    assert (slow.wins, slow.last_looks, slow.last_look_reject_rate) == (1, 1, Decimal(0))
    assert (shy.asked, shy.answered, shy.response_rate, shy.win_rate) == (2, 0, 0, None)

    takers = {c.taker: c for c in taker_cards(entries)}
    assert (takers["t1"].asked, takers["t1"].quoted, takers["t1"].traded) == (2, 1, 1)
    assert takers["t1"].response_rate == Decimal("0.5")
    assert takers["t1"].hit_ratio == Decimal(1)
    assert takers["t1"].median_response_s == Decimal(2)
    assert (takers["t2"].hit_ratio, takers["t2"].median_response_s) == (Decimal(0), Decimal(4))


def test_the_history_is_kept_across_a_restart_in_a_private_file(tmp_path: Path) -> None:
    path = tmp_path / "data" / "history.jsonl"
    log = HistoryLog(path)
    first = log.update(**the_day(), me=ME, now=T0 + timedelta(hours=1))
    assert len(first) == 13
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Nothing new: nothing written again.
    assert log.update(**the_day(), me=ME, now=T0 + timedelta(hours=1)) == []
    again = HistoryLog(path)
    assert again.entries() == log.entries()
    # The venue's lists forget old records; the desk's history does not.
    again.update(
        rfqs_sent={},
        rfqs_received={},
        quotes_sent=[],
        quotes_received=[],
        me=ME,
        now=T0 + timedelta(days=2),
    )
    assert {e.kind for e in HistoryLog(path).entries()} == set(EntryKind)
    with path.open("a") as broken:
        broken.write('{"key": "half a line')
    assert len(HistoryLog(path).entries()) == 13
