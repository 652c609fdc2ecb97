"""The header: who and where I am (company, profile, SANDBOX badge, link state) and the book.

The portfolio summary is the one line a trader glances at all day, so it sits at the top of
every tab. Every figure on it is in USDC: greeks in units of an underlying (delta in BTC, in
SOL ...) cannot be added across underlyings, so the header shows dollar greeks only and the
per-underlying greeks are on the Pools tab, next to the positions. `HEADER_FIGURES` says what
each figure is (the help shows it).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.widgets import Static

from tui.api.models import PortfolioSummary
from tui.desk.messages import ConnectionState
from tui.desk.widgets.common import fmt

_STATE_TONE = {
    ConnectionState.CONNECTING: "$warning",
    ConnectionState.CONNECTED: "$success",
    ConnectionState.DEGRADED: "$warning",
    ConnectionState.DISCONNECTED: "$error",
}


HEADER_FIGURES: tuple[tuple[str, str], ...] = (
    (
        "In pools",
        "USDC of mine held in all my settlement pools, summed. A deposit moves USDC from the "
        "wallet into a pool, so it rises with a deposit (the wallet's own USDC is not shown: "
        "the venue offers no read of it).",
    ),
    ("uPNL", "Unrealised profit and loss of my open positions at the mark, USDC."),
    (
        "Exposure",
        "Σ |position qty| x underlying mark over my open positions, USDC. Not a trade's "
        "notional (Σ |leg qty x leg price| at the traded prices, on the tracker and blotter).",
    ),
    (
        "$Δ",
        "Dollar delta: Σ delta x underlying mark, USDC; a 1% rise of every underlying "
        "gains 1% of it.",
    ),
    ("$Γ", "Dollar gamma: how much $Δ changes for a 1% move (Σ gamma x mark² / 100), USDC."),
    ("Vega", "USDC gained for a 1 vol point rise of implied volatility, summed."),
    ("Θ/day", "USDC the positions gain (negative: lose) as one day passes, summed."),
)
"""Each header figure and what it means: the help's "Header figures" section."""


SEPARATOR = " [$text-muted]·[/] "
"""Between two figures: a visible mark, so no label runs into the figure before it."""


def summary_markup(summary: PortfolioSummary | None, two_lines: bool = False) -> str:
    """The portfolio line, every figure in USDC and labelled (see `HEADER_FIGURES`); on a
    narrow terminal the money on one line and the dollar greeks on the next."""
    if summary is None:
        return "[$text-muted]portfolio: waiting for the first answer…[/]"
    upnl_tone = "$bid" if summary.sum_upnl >= 0 else "$ask"
    money = SEPARATOR.join(
        (
            f"In pools [b]{fmt.money(summary.sum_balance)}[/b] USDC",
            f"uPNL [{upnl_tone}]{fmt.money(summary.sum_upnl, signed=True)}[/]",
            f"Exposure {fmt.money(summary.sum_notional)}",
        )
    )
    greeks = SEPARATOR.join(
        (
            f"$Δ {fmt.money(summary.sum_dollar_delta, signed=True)}",
            f"$Γ {fmt.money(summary.sum_dollar_gamma, signed=True)}",
            f"Vega {fmt.money(summary.sum_vega, signed=True)}",
            f"Θ/day {fmt.money(summary.sum_theta, signed=True)}",
        )
    )
    return f"{money}\n{greeks}" if two_lines else f"{money}{SEPARATOR}{greeks}"


class PortfolioHeader(Vertical):
    """Company, profile, SANDBOX/LIVE badge, connection state and the portfolio summary."""

    company: reactive[str] = reactive("…")
    profile: reactive[str] = reactive("")
    sandbox: reactive[bool] = reactive(True)
    state: reactive[ConnectionState] = reactive(ConnectionState.CONNECTING)
    detail: reactive[str] = reactive("")
    summary: reactive[PortfolioSummary | None] = reactive(None)
    two_lines: reactive[bool] = reactive(False)
    """A narrow terminal: the figures take two lines (the desk sets it with the layout)."""

    def compose(self) -> ComposeResult:
        """Badge, identity, link state; the summary on the second line."""
        with Horizontal(id="header-top"):
            yield Static(" SANDBOX ", id="badge")
            yield Static("", id="identity")
        yield Static("", id="portfolio")

    def watch_sandbox(self, sandbox: bool) -> None:
        """SANDBOX in its own colour; a real venue says LIVE."""
        badge = self.query_one("#badge", Static)
        badge.update(" SANDBOX " if sandbox else " LIVE ")
        badge.set_class(sandbox, "sandbox")
        badge.set_class(not sandbox, "live")

    def _identity(self) -> None:
        tone = _STATE_TONE.get(self.state, "$warning")
        detail = f" ({self.detail})" if self.detail else ""
        self.query_one("#identity", Static).update(
            f"[b]{self.company}[/b]{SEPARATOR}profile [b]{self.profile}[/b]{SEPARATOR}"
            f"[{tone}]● {self.state.value}{detail}[/]"
        )

    def watch_company(self) -> None:
        """Redraw the identity line."""
        self._identity()

    def watch_profile(self) -> None:
        """Redraw the identity line."""
        self._identity()

    def watch_state(self) -> None:
        """Redraw the identity line."""
        self._identity()

    def watch_detail(self) -> None:
        """Redraw the identity line."""
        self._identity()

    def watch_summary(self) -> None:
        """Redraw the portfolio line."""
        self.query_one("#portfolio", Static).update(summary_markup(self.summary, self.two_lines))

    def watch_two_lines(self) -> None:
        """Redraw the portfolio figures on one line or two."""
        self.watch_summary()
