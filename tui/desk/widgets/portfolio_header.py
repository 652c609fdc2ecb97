"""The header: who and where I am (company, profile, SANDBOX badge, link state) and the book.

The portfolio summary is the one line a trader glances at all day, so it sits at the top of
every tab. Every figure on it is in USDC, and the line says so (it starts with ``USDC``): each
is a sum of USDC values (a position's notional or dollar delta is its quantity times its
underlying's mark), never of quantities of different underlyings; greeks in units of an
underlying (delta in BTC, in SOL ...) cannot be added across underlyings, so the header shows
dollar greeks only and the per-underlying greeks are on the Pools tab, next to the positions.
What the pools hold is exact; the risk figures are to the cent, ``≈`` in front of one that
rounding shortened. `HEADER_FIGURES` says what each figure is (the help shows it).

The figures take one line where they fit beside what waits for me (`Attention`), else two
(the money, then the dollar greeks): nothing is ever drawn over a figure.

While the summary is stale (the venue is down, its polls fail, or it stopped coming) every figure
is drawn in the stale colour behind a ``STALE 12s`` mark with the data's age, exactly like the
status bar's pane marks; the figures come back in their own colours with the next fresh answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from tui.desk.messages import ConnectionState, PaneAge
from tui.desk.widgets.common import fmt
from tui.desk.widgets.live_text import LiveText

if TYPE_CHECKING:
    from datetime import datetime

    from tui.api.models import PortfolioSummary

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
    (
        "uPNL",
        "Unrealised profit and loss of my open positions at the mark, USDC, from the venue's "
        "portfolio summary valued at the time after it (UTC). The Positions tab's uPNL comes "
        "from its own read (positions valued at the mark), at the time it shows: two reads a "
        "few seconds apart differ as the marks move.",
    ),
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
    (
        "USDC",
        "The unit of every figure on the line. Each is summed in USDC over all underlyings; "
        "the risk figures are to the cent, with ≈ in front of one rounding shortened.",
    ),
)
"""Each header figure and what it means: the help's "Header figures" section."""


UNIT = "[$text-muted]USDC[/] "
"""Heads each line of figures: the unit they are all in."""
SEPARATOR = " [$text-muted]·[/] "
"""Between two figures: a visible mark, so no label runs into the figure before it."""
SUMMARY_PANE = "book"
"""The status bar's pane whose freshness is the header's figures' (the portfolio summary)."""


def stale_mark(freshness: PaneAge | None) -> str:
    """``STALE 12s`` in the stale colour when ``freshness`` says stale, else ""."""
    if freshness is None or not freshness.stale:
        return ""
    return f"[$stale]STALE {fmt.age(freshness.age_s)}[/]"


def summary_markup(
    summary: PortfolioSummary | None,
    two_lines: bool = False,
    freshness: PaneAge | None = None,
    valued_at: datetime | None = None,
) -> str:
    """The portfolio line, every figure in USDC and labelled (see `HEADER_FIGURES`); on a
    narrow terminal the money on one line and the dollar greeks on the next.

    Stale figures (``freshness`` of the summary says so) are all in the stale colour, behind
    the mark and the age: never read as today's. uPNL says when the summary valued it
    (``valued_at``): the Positions tab values the positions in a read of its own.
    """
    mark = stale_mark(freshness)
    if summary is None:
        waiting = "[$text-muted]portfolio: waiting for the first answer…[/]"
        return f"{mark} {waiting}" if mark else waiting
    upnl_tone = "$stale" if mark else "$bid" if summary.sum_upnl >= 0 else "$ask"
    money = SEPARATOR.join(
        (
            f"In pools [b]{fmt.usdc(summary.sum_balance)}[/b]",
            f"uPNL [{upnl_tone}]{fmt.cents(summary.sum_upnl, signed=True)}[/]"
            + (f" [$text-muted]at {fmt.clock_time(valued_at)}[/]" if valued_at else ""),
            f"Exposure {fmt.cents(summary.sum_notional)}",
        )
    )
    greeks = SEPARATOR.join(
        (
            f"$Δ {fmt.cents(summary.sum_dollar_delta, signed=True)}",
            f"$Γ {fmt.cents(summary.sum_dollar_gamma, signed=True)}",
            f"Vega {fmt.cents(summary.sum_vega, signed=True)}",
            f"Θ/day {fmt.cents(summary.sum_theta, signed=True)}",
        )
    )
    if two_lines:
        money, greeks = UNIT + money, UNIT + greeks
    else:
        money = UNIT + money
    if mark:
        money, greeks = f"{mark} [$stale]{money}[/]", f"[$stale]{greeks}[/]"
    return f"{money}\n{greeks}" if two_lines else f"{money}{SEPARATOR}{greeks}"


def fits_one_line(markup: str, width: int) -> bool:
    """Whether the one-line figures (``markup``) fit ``width`` cells, unclipped."""
    return Content.from_markup(markup).cell_length <= width


class PortfolioHeader(Vertical):
    """Company, profile, SANDBOX/LIVE badge, connection state and the portfolio summary."""

    company: reactive[str] = reactive("…")
    profile: reactive[str] = reactive("")
    sandbox: reactive[bool] = reactive(True)
    state: reactive[ConnectionState] = reactive(ConnectionState.CONNECTING)
    detail: reactive[str] = reactive("")
    summary: reactive[PortfolioSummary | None] = reactive(None, repaint=False)  # watcher redraws
    two_lines: reactive[bool] = reactive(False)
    """A narrow terminal: the figures take two lines (the desk sets it with the layout)."""
    wrapped: bool = False
    """A wide terminal where the one line does not fit beside `Attention`: two lines, the
    header one row taller (``-wrapped``)."""
    freshness: reactive[PaneAge | None] = reactive(None, repaint=False)  # watcher redraws
    """How old the summary is and whether that is stale (`show_freshness`)."""
    valued_at: datetime | None = None
    """When the venue's summary was read (its uPNL is valued at the marks of then)."""

    def show_summary(self, summary: PortfolioSummary | None, at: datetime | None) -> None:
        """A portfolio summary read at ``at``: its figures, uPNL with that time."""
        self.valued_at = at
        self.summary = summary
        self.watch_summary()  # the same summary read again: a new time

    def compose(self) -> ComposeResult:
        """Badge, identity, link state; the summary on the second line."""
        with Horizontal(id="header-top"):
            yield Static(" SANDBOX ", id="badge")
            yield Static("", id="identity")
        yield LiveText("", id="portfolio")

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

    def show_freshness(self, ages: tuple[PaneAge, ...]) -> None:
        """The feed's pane ages (every second): the summary's marks the figures stale or not."""
        self.freshness = next((age for age in ages if age.pane == SUMMARY_PANE), None)

    def watch_summary(self) -> None:
        """Redraw the portfolio line: on one line where it fits, else on two."""
        one_line = summary_markup(self.summary, False, self.freshness, self.valued_at)
        wrapped = not self.two_lines and not fits_one_line(one_line, self._room())
        if wrapped != self.wrapped:
            self.wrapped = wrapped
            self.set_class(wrapped, "-wrapped")
        two = self.two_lines or wrapped
        self.query_one("#portfolio", Static).update(
            summary_markup(self.summary, True, self.freshness, self.valued_at) if two else one_line
        )

    def _room(self) -> int:
        """The cells a line of figures has (the header's width less its padding); before the
        first layout, as if there were room."""
        width = self.content_size.width
        return width if width > 0 else 10_000

    def on_resize(self, event: events.Resize) -> None:
        """The header's width moved (the terminal, or what waits beside it): lay the figures
        out again."""
        self.watch_summary()

    def watch_freshness(self, before: PaneAge | None, after: PaneAge | None) -> None:
        """Redraw when the stale mark (or the age it shows) changed."""
        if stale_mark(before) != stale_mark(after):
            self.watch_summary()

    def watch_two_lines(self) -> None:
        """Redraw the portfolio figures on one line or two."""
        self.watch_summary()
