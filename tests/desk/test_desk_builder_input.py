"""The builder's input as a new user met it, against the sandbox over loopback.

What is typed is taken as typed and refused under its field, naming what is wrong (a date that
does not exist, a strike finer than the venue writes its underlying's prices); a refusal goes
once its field is changed to a value that passes; ``ctrl+l`` starts afresh with the market
makers ticked and its first field focused; ``ctrl+a`` adds a leg on the structure's underlying
and focuses it. Exports are the user's alone.
"""

from __future__ import annotations

import stat
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select, SelectionList, Static

from tests.desk.kit.desk import SIZE, DeskFactory, refresh, settle
from tui.api.models import PrecisionRequirements
from tui.desk.builder.calendar import standard_expiries
from tui.desk.builder.strikes import strike_problem
from tui.desk.export import export_csv
from tui.desk.messages import Topic
from tui.desk.screens.new_rfq import NewRfqScreen
from tui.desk.screens.rfq_request import parse_expiry_date
from tui.desk.widgets.common.forms import FormError


def _said(screen: Any, field: str) -> str:
    label = screen.query_one(f"#err-{field}", Static)
    return str(label.render()) if label.display else ""


async def _builder(app: Any, pilot: Any) -> NewRfqScreen:
    await refresh(app, pilot, Topic.COMPANIES, Topic.ASSETS, Topic.STATS)
    await pilot.press("n")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, NewRfqScreen)
    return screen


async def _btc_option(builder: NewRfqScreen, pilot: Any, strike: str) -> None:
    builder.query_one("#type-0", Select).value = "vanilla_option"
    await pilot.pause()
    expiry = standard_expiries(builder.clock())[3].day.isoformat()
    builder.query_one("#expiry-0", Input).value = expiry
    builder.query_one("#strike-0", Input).value = strike
    await pilot.pause()


async def test_a_strike_finer_than_the_venue_writes_prices_is_refused_under_its_leg(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await _builder(app, pilot)
        await _btc_option(builder, pilot, "96000.123")
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        await refresh(app, pilot, Topic.RFQS_SENT)
        assert app.screen is builder and not app.book.rfqs_sent, "nothing goes to the venue"
        assert _said(builder, "leg-0") == (
            "strike: 96000.123 has 3 decimal places; BTC prices of this size take at most 2"
            " (7 significant figures)"
        )
        assert builder.query_one("#strike-0", Input).value == "96000.123", "kept as typed"

        # Written as the venue writes BTC prices, it goes, and the refusal went with the fix.
        builder.query_one("#strike-0", Input).value = "96000"
        await pilot.pause()
        assert _said(builder, "leg-0") == ""
        await pilot.press("ctrl+s")
        await settle(app, pilot)
        assert app.screen is not builder
        await refresh(app, pilot, Topic.RFQS_SENT)
        (rfq,) = app.book.rfqs_sent.values()
        assert rfq.structure.legs[0].instrument.strike == Decimal("96000")  # type: ignore[union-attr]


def test_strike_precision_follows_the_size_of_the_strike() -> None:
    btc = {
        "BTC": PrecisionRequirements(
            min_decimal_figures=1, max_decimal_only_figures=8, max_significant_figures=7
        )
    }
    doge = {
        "DOGE": PrecisionRequirements(
            min_decimal_figures=5, max_decimal_only_figures=8, max_significant_figures=5
        )
    }
    assert strike_problem(Decimal("96000.12"), "BTC", btc) == ""
    assert strike_problem(Decimal("96000.10"), "BTC", btc) == ""  # a written zero adds nothing
    assert strike_problem(Decimal("96000.123"), "BTC", btc).startswith("96000.123 has 3")
    assert strike_problem(Decimal("0.18400001"), "DOGE", doge) == ""
    assert "at most 8" in strike_problem(Decimal("0.184000001"), "DOGE", doge)
    assert strike_problem(Decimal("1.23456"), "DOGE", doge) == ""  # 5 decimals always allowed
    assert strike_problem(Decimal("96000.123"), "ETH", btc) == "", "no precision: the venue's"


def test_an_expiry_that_does_not_exist_says_which_part() -> None:
    def said(text: str) -> str:
        with pytest.raises(FormError) as caught:
            parse_expiry_date(text, "leg-0")
        return caught.value.errors["leg-0"]

    assert said("2026-13-45") == "expiry: month 13 does not exist (typed 2026-13-45)"
    assert said("2026-02-30") == "expiry: February 2026 has 28 days, not 30 (typed 2026-02-30)"
    assert said("27/11/2026") == "expiry: use YYYY-MM-DD"
    assert parse_expiry_date("2028-02-29", "leg-0") == datetime(2028, 2, 29, 8, tzinfo=UTC)


async def test_a_refusal_goes_once_its_field_passes(sandbox: Any, desk: DeskFactory) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await _builder(app, pilot)
        qty = builder.query_one("#qty", Input)
        ratio = builder.query_one("#ratio-0", Input)
        targets = builder.query_one("#targets", SelectionList)
        targets.deselect_all()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert _said(builder, "targets")
        targets.select(sandbox.company_ids["ALPHA"])
        await pilot.pause()
        assert _said(builder, "targets") == "", "a company picked: the refusal goes"

        qty.value = "x"
        ratio.focus()
        await pilot.press("backspace", *"2x")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert _said(builder, "qty") == "'x' is not a number"
        assert _said(builder, "leg-0") == "ratio: '2x' is not a number", "letters kept, refused"

        # Still wrong: the message says what is wrong now; the other field's stays.
        qty.value = "1,2,3"
        await pilot.pause()
        assert "thousands separator" in _said(builder, "qty")
        assert _said(builder, "leg-0")
        qty.value = "1,234.5"
        await pilot.pause()
        assert _said(builder, "qty") == ""
        assert _said(builder, "leg-0"), "each refusal goes with its own field"
        await pilot.press("backspace")
        await pilot.pause()
        assert _said(builder, "leg-0") == ""


async def test_ctrl_l_ticks_the_makers_again_and_focuses_the_leg(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await _builder(app, pilot)
        targets = builder.query_one("#targets", SelectionList)
        makers = set(targets.selected)
        assert sandbox.company_ids["BORE"] in makers
        targets.deselect(sandbox.company_ids["BORE"])
        targets.select(sandbox.company_ids["EMBR"])
        await pilot.pause()
        builder.query_one("#qty", Input).focus()
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert set(targets.selected) == makers
        assert "BORE" in str(builder.query_one("#targets-summary", Static).render())
        assert builder.focused is builder.query_one("#type-0", Select)
        # What is typed next lands in the leg's fields, letters and all.
        await pilot.press("tab", "tab", "tab", "backspace", *"2x")
        assert builder.query_one("#ratio-0", Input).value == "2x"


async def test_ctrl_a_adds_a_leg_on_the_structures_underlying_focused(
    sandbox: Any, desk: DeskFactory
) -> None:
    app = desk()
    async with app.run_test(size=SIZE) as pilot:
        builder = await _builder(app, pilot)
        builder.query_one("#underlying-0", Select).value = "ETH"
        builder.query_one("#ratio-0", Input).focus()
        await pilot.pause()
        await pilot.press("ctrl+a")
        await pilot.pause()
        assert builder.query_one("#underlying-1", Select).value == "ETH"
        assert builder.focused is builder.query_one("#type-1", Select)
        assert [leg.underlying for leg in builder.draft().legs] == ["ETH", "ETH"]


def test_exports_are_the_users_alone(tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)  # as an older desk left it
    now = datetime(2026, 1, 2, tzinfo=UTC)
    paths = export_csv(folder, [], [], now)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in paths:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    fresh = tmp_path / "new" / "exports"
    for path in export_csv(fresh, [], [], now, "again"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700
