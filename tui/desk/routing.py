"""Where a pane's or a form's request goes: the role that does it (`tui.desk.roles`).

Panes and forms never act: they post an `ActionRequest` (a quote to send, an accept, a
deposit, the RFQ that closes a position ...) and the app hands it to `route`, which passes it
to the one role that confirms and runs it. Nothing is decided here but who does it. The
request classes of the ticket, the board, the panes built later (Pools, Positions) and the
builder are imported only when such a request comes, since their modules load with the pane or
form that asks (after the first frame).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tui.desk.messages import ActionRequest
from tui.desk.widgets.trade_tracker import TradeTracker

if TYPE_CHECKING:
    from tui.desk.app import DeskApp


def route(desk: DeskApp, ask: ActionRequest) -> None:
    """Hand ``ask`` to the role that does it."""
    # Loaded by now: the ticket and the board are built right after the first frame.
    from tui.desk.widgets.quote_board import QuoteBoard
    from tui.desk.widgets.quote_ticket import QuoteTicket

    if isinstance(ask, QuoteTicket.Submit):
        desk.maker.send_quote(ask.request, ask.replaces)
    elif isinstance(ask, QuoteTicket.Cancel):
        desk.maker.pull_quote(ask.quote_id)
    elif isinstance(ask, TradeTracker.LastLook):
        desk.maker.last_look(ask.trade, ask.action)
    elif isinstance(ask, QuoteBoard.Accept):
        desk.taker.accept(ask.rfq_id, ask.quote_id, ask.side, ask.price)
    elif isinstance(ask, QuoteBoard.CancelRfq):
        desk.taker.cancel_rfq(ask.rfq_id)
    elif isinstance(ask, TradeTracker.ApproveDeposit):
        desk.pools.approve_deposit(ask.trade)
    else:
        _route_from_a_later_pane(desk, ask)


def _route_from_a_later_pane(desk: DeskApp, ask: ActionRequest) -> None:
    from tui.desk.screens.new_rfq import NewRfqScreen
    from tui.desk.widgets.pools import PoolsPane
    from tui.desk.widgets.positions import PositionsPane

    if isinstance(ask, NewRfqScreen.Send):
        desk.taker.send_rfq(ask.builder, ask.request)
    elif isinstance(ask, PositionsPane.OffsetRfq):
        desk.taker.offset(ask.legs, ask.qty, ask.counterparty, ask.pool_id)
    elif isinstance(ask, PoolsPane.Deposit):
        pools_problem(desk, desk.pools.deposit(ask.pool_id))
    elif isinstance(ask, PoolsPane.Withdraw):
        pools_problem(desk, desk.pools.withdraw(ask.pool_id))
    elif isinstance(ask, PoolsPane.CreatePool):
        pools_problem(desk, desk.pools.create_pool())


def pools_problem(desk: DeskApp, problem: str) -> None:
    """Why a pools action could not start: under the pools pane when it is built, else a
    toast (nothing when ``problem`` is empty)."""
    if problem and (pane := desk.panes.pools_pane) is not None:
        pane.show_error(problem)
    elif problem:
        desk.notify(problem, title="Pools", severity="error")
