"""The help's figures are the desk's own (trial #11): the tokens polling leaves free come from
`DESK_RESERVE_TOKENS` (it said 40 of 100 where the desk keeps 20), and the premium is what
`option_premium` computes (it said "the structure price x qty")."""

from __future__ import annotations

from decimal import Decimal

from tui.api.budget import DESK_RESERVE_TOKENS
from tui.api.endpoints import BUDGET_TOKENS
from tui.api.models import PerpetualFutureInstrument
from tui.desk.clearing import LegFill, option_premium
from tui.desk.keymap import DeskKeymap
from tui.desk.screens.help import help_text


def test_the_budget_figure_is_the_clients() -> None:
    text = help_text(DeskKeymap())
    assert f"leaves {DESK_RESERVE_TOKENS} of the {BUDGET_TOKENS} tokens free" in text
    assert "{reserve}" not in text and "{budget}" not in text


def test_the_premium_is_said_as_the_desk_computes_it() -> None:
    text = help_text(DeskKeymap())
    assert "structure price x qty" not in text
    assert "Premium is on option legs only: Σ leg qty x leg price" in text
    assert "a perpetual, a future or spot carries none" in text
    perp = PerpetualFutureInstrument(underlying="BTC")
    assert option_premium([(perp, True, LegFill(Decimal(1), Decimal(100000)))]) is None
