"""What polls fast (`tui.desk.feed.policy.hot_topics`): on the Trade tab, the quotes only while
something of mine is live on them, so an idle desk does not ask twice a second for what cannot
have changed."""

from __future__ import annotations

from datetime import timedelta

from tests.desk.kit.fakes import NOW
from tests.desk.kit.records import quote, rfq
from tui.desk.feed.policy import hot_topics
from tui.desk.messages import Topic

QUOTES = {Topic.QUOTES_SENT, Topic.QUOTES_RECEIVED}


def test_an_idle_trade_tab_polls_only_the_rfqs_sent_to_me_fast() -> None:
    later = NOW + timedelta(minutes=1)  # my quote (good for 30 s) has expired by then
    hot = hot_topics("trade", [rfq(status="expired")], [quote()], [], later)
    assert hot == {Topic.RFQS_RECEIVED}


def test_my_open_rfq_polls_its_quotes_and_my_live_quote_polls_mine() -> None:
    assert hot_topics("trade", [rfq()], [], [], NOW) >= {Topic.RFQS_SENT, Topic.QUOTES_RECEIVED}
    assert Topic.QUOTES_SENT not in hot_topics("trade", [rfq()], [], [], NOW)
    assert Topic.QUOTES_SENT in hot_topics("trade", [], [quote()], [], NOW)
    # Another tab: neither, unless a trade of mine is clearing.
    assert not hot_topics("pools", [rfq()], [quote()], [], NOW) & QUOTES
    clearing = quote(clearing_status="pending_maker_last_look")
    assert Topic.QUOTES_SENT in hot_topics("pools", [], [clearing], [], NOW)
