"""Alerts fire once per record and kind, in the ways switched on; quiet mode only shows toasts.

Against the sandbox: a received RFQ, a last look waiting on the desk and a booked trade each
alert once, and not again when the next poll shows them again; a new RFQ later alerts on its
own. What was over before the session began (a trade booked earlier) does not alert, while a
last look still waiting does.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.desk.kit.desk import SIZE, DeskFactory, refresh
from tests.desk.kit.scenes import build_world
from tests.desk.kit.venue import perp_rfq
from tui.desk.alert_settings import AlertKind, AlertSettings, AlertWays
from tui.desk.alerts import Alerts


async def test_each_alert_fires_once_per_record(
    sandbox: Any, desk: DeskFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        alerts = Alerts(since=app.clock())
        world = await build_world(sandbox)
        await refresh(app, pilot)
        bells: list[int] = []
        monkeypatch.setattr(app, "bell", lambda: bells.append(1))
        toasts: list[str] = []
        monkeypatch.setattr(app, "notify", lambda text, **_: toasts.append(text))

        fired = alerts.ring(app, app.book, app.clock())
        kinds = {(alert.kind, alert.record_id) for alert in fired}
        assert (AlertKind.RFQ_RECEIVED, world.fresh_rfq) in kinds
        assert (AlertKind.RFQ_RECEIVED, world.last_look_rfq) in kinds
        assert [a.kind for a in fired].count(AlertKind.LAST_LOOK) == 1
        assert [a.kind for a in fired].count(AlertKind.BOOKED) == 1
        assert len(fired) == len(kinds)
        assert bells == [1]  # one bell for what came together
        assert len(toasts) == len(fired)
        assert any("LAST LOOK on RFQ" in text for text in toasts)

        await refresh(app, pilot)  # the next poll shows the same records: nothing fires
        assert alerts.ring(app, app.book, app.clock()) == []
        assert bells == [1] and len(toasts) == len(fired)

        async with sandbox.client("EMBR") as embr:
            later = await embr.rfqs_new(
                perp_rfq([sandbox.company_ids["DESK"]], "3", sandbox.clock.now())
            )
        await refresh(app, pilot)
        (new,) = alerts.ring(app, app.book, app.clock())
        assert (new.kind, new.record_id) == (AlertKind.RFQ_RECEIVED, later.rfq_id)
        assert "new RFQ from EMBR" in toasts[-1] or "new RFQ from Ember" in toasts[-1]

        # A session that began after the booking: no booking alert, the last look still rings.
        after = Alerts(since=app.clock())
        kinds_after = {alert.kind for alert in after.news(app.book, app.clock())}
        assert AlertKind.BOOKED not in kinds_after and AlertKind.LAST_LOOK in kinds_after


def test_quiet_mode_keeps_the_toast_and_each_way_switches() -> None:
    settings = AlertSettings()
    assert settings.of(AlertKind.LAST_LOOK) == AlertWays(bell=True, flash=True, toast=True)
    assert settings.of(AlertKind.BOOKED) == AlertWays(bell=False, flash=False, toast=True)
    quiet = AlertSettings(quiet=True)
    assert quiet.of(AlertKind.LAST_LOOK) == AlertWays(bell=False, flash=False, toast=True)
    off = AlertSettings(ways={AlertKind.RFQ_RECEIVED: AlertWays(bell=False, toast=False)})
    assert off.of(AlertKind.RFQ_RECEIVED) == AlertWays(bell=False, flash=False, toast=False)
    assert off.of(AlertKind.REJECTED) == AlertWays(bell=True, flash=False, toast=True)
