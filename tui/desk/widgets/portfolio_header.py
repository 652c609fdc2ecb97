"""The header: who and where I am (company, profile, SANDBOX badge, link state) and the book.

The portfolio summary (balance, uPNL, notional, greeks, dollar delta) is the one line a trader
glances at all day, so it sits at the top of every tab.
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


def summary_markup(summary: PortfolioSummary | None) -> str:
    """The portfolio line: balance, uPNL, notional, greeks and dollar delta."""
    if summary is None:
        return "[$text-muted]portfolio: waiting for the first answer…[/]"
    upnl_tone = "$bid" if summary.sum_upnl >= 0 else "$ask"
    return (
        f"Bal [b]{fmt.money(summary.sum_balance)}[/b]  "
        f"uPNL [{upnl_tone}]{fmt.money(summary.sum_upnl, signed=True)}[/]  "
        f"Notional {fmt.money(summary.sum_notional)}  "
        f"Δ {fmt.greek(summary.sum_delta)}  Γ {fmt.greek(summary.sum_gamma)}  "
        f"V {fmt.greek(summary.sum_vega)}  Θ {fmt.greek(summary.sum_theta)}  "
        f"$Δ {fmt.money(summary.sum_dollar_delta, signed=True)}"
    )


class PortfolioHeader(Vertical):
    """Company, profile, SANDBOX/LIVE badge, connection state and the portfolio summary."""

    company: reactive[str] = reactive("…")
    profile: reactive[str] = reactive("")
    sandbox: reactive[bool] = reactive(True)
    state: reactive[ConnectionState] = reactive(ConnectionState.CONNECTING)
    detail: reactive[str] = reactive("")
    summary: reactive[PortfolioSummary | None] = reactive(None)

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
            f"[b]{self.company}[/b]  profile [b]{self.profile}[/b]  "
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

    def watch_summary(self, summary: PortfolioSummary | None) -> None:
        """Redraw the portfolio line."""
        self.query_one("#portfolio", Static).update(summary_markup(summary))
