"""The engine kit: an `Exchange` on a temp file and a clock the test moves (`Kit`).

Calls the engine directly (no HTTP), as the HTTP layer does: one method per endpoint with the
authenticated `Caller`. Permits are signed here with eth-account from the typed data the
template endpoint returns, exactly as a client would.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from tests.sandbox.kit.common import START_MS, D, at, margin_params, open_sandbox, perp
from tui.api.models import (
    AcceptQuoteRequest,
    CreateNewPool,
    DecimalAllowance,
    LegQuote,
    MakerLastLookRequest,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PayoffType,
    PermitTemplateRequest,
    RequestAction,
    Structure,
    SubmitPermitRequest,
    TradeSide,
    TransferType,
    UseExistingPool,
    VanillaOptionInstrument,
)
from tui.sandbox.actors.actor import identities
from tui.sandbox.engine.exchange import Caller, Exchange
from tui.sandbox.engine.seed import SEED_POOL_NAME

PRICE_GRID = D("1e-8")
"""Prices a quote may carry have at most 8 decimal places (the listings' precision)."""


class Kit:
    """One sandbox exchange under test, with helpers speaking in company short names."""

    def __init__(self, path: Path, *, seed: int = 7, block_delay_s: float = 2.0) -> None:
        self.path = path
        self.seed = seed
        self.block_delay_s = block_delay_s
        self.clock, self.ex = open_sandbox(path, seed=seed, block_delay_s=block_delay_s)
        self.creds = {c["short_name"]: c for c in self.ex.credentials() if c["role"] == "writer"}
        self.people = identities(self.ex)

    # -- identities and time ---------------------------------------------------------------

    def __getitem__(self, name: str) -> Caller:
        return self.people[name].caller

    def id(self, name: str) -> str:
        return self.people[name].company_id

    def now(self) -> datetime:
        return self.clock.now()

    def later(self, seconds: float) -> datetime:
        return self.clock.now() + timedelta(seconds=seconds)

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.ex.tick()

    def reopen(self) -> None:
        self.ex.close()
        self.ex = Exchange.open(
            self.path, seed=self.seed, clock=self.clock, block_delay_s=self.block_delay_s
        )

    def close(self) -> None:
        self.ex.close()

    # -- instruments and prices ------------------------------------------------------------

    perp = staticmethod(perp)

    def option(
        self,
        underlying: str = "BTC",
        strike: str = "100000",
        payoff: PayoffType = PayoffType.CALL,
        expires_in_s: float = 30 * 86_400,
    ) -> VanillaOptionInstrument:
        expiry = at(START_MS + round(expires_in_s * 1000))
        return VanillaOptionInstrument(
            underlying=underlying, expiry=expiry, strike=D(strike), payoff=payoff
        )

    def mark(self, instrument: Any) -> Decimal:
        return Decimal(self.ex.market.value(instrument).price)

    # -- RFQs and quotes -------------------------------------------------------------------

    def rfq(
        self,
        taker: str = "DESK",
        targets: tuple[str, ...] = ("ALPHA",),
        legs: list[tuple[str, Any]] | list[tuple[str, Any, int]] | None = None,
        qty: str = "1",
        expires_in: float = 300,
    ) -> Any:
        structure_legs = []
        for leg in legs or [("buy", self.perp())]:
            ratio = leg[2] if len(leg) > 2 else 1  # type: ignore[misc]
            structure_legs.append({"side": leg[0], "ratio": ratio, "instrument": leg[1]})
        body = NewRfqRequest(
            structure=Structure.model_validate({"legs": structure_legs}),
            qty=D(qty),
            expires_at=self.later(expires_in),
            target_companies=[self.id(t) for t in targets],
        )
        return self.ex.rfqs_new(self[taker], body)

    def leg_quotes(
        self, rfq: Any, *, spread: str = "0.001", bid: bool = True, ask: bool = True
    ) -> list[LegQuote]:
        out = []
        for leg in rfq.rfq_legs:
            mark = self.mark(leg.instrument)
            half = mark * D(spread)
            out.append(
                LegQuote(
                    target_rfq_leg_id=leg.rfq_leg_id,
                    bid=(mark - half).quantize(PRICE_GRID) if bid else None,
                    ask=(mark + half).quantize(PRICE_GRID) if ask else None,
                )
            )
        return out

    def pool_strategy(self, pool: str | None, new_name: str | None, params: Any) -> Any:
        if new_name is not None:
            return CreateNewPool(
                name=new_name,
                creator_params=params or margin_params(),
                other_params=params or margin_params(),
            )
        return UseExistingPool(pool_id=pool or self.seed_pool_id())

    def quote(
        self,
        maker: str,
        rfq: Any,
        *,
        pool: str | None = None,
        new_pool: str | None = None,
        params: Any = None,
        expires_in: float = 120,
        leg_quotes: list[LegQuote] | None = None,
        client_quote_id: str | None = None,
        **price_options: Any,
    ) -> Any:
        body = NewQuoteRequest(
            rfq_id=rfq.rfq_id,
            expires_at=self.later(expires_in),
            leg_quotes=leg_quotes or self.leg_quotes(rfq, **price_options),
            pool_strategy=self.pool_strategy(pool, new_pool, params),
            client_quote_id=client_quote_id,
        )
        return self.ex.quotes_new(self[maker], body)

    def accept(self, taker: str, quote: Any, side: str = "buy") -> Any:
        return self.ex.quotes_accept(
            self[taker],
            AcceptQuoteRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=quote.target_rfq_id,
                side=TradeSide(side),
            ),
        )

    def last_look(self, maker: str, quote: Any, action: str = "accept") -> Any:
        return self.ex.quotes_maker_last_look(
            self[maker],
            MakerLastLookRequest(
                parent_quote_id=quote.parent_quote_id,
                rfq_id=quote.target_rfq_id,
                action=RequestAction(action),
            ),
        )

    def my_quote(self, name: str, quote_id: str) -> Any:
        page = self.ex.quotes(self[name], limit=10, offset=0, id=quote_id)
        assert len(page.items) == 1
        return page.items[0]

    def my_rfq(self, name: str, rfq_id: str) -> Any:
        page = self.ex.rfqs_sent(self[name], limit=10, offset=0, id=rfq_id)
        if not page.items:
            page = self.ex.rfqs_received(self[name], limit=10, offset=0, id=rfq_id)
        assert len(page.items) == 1
        return page.items[0]

    def statuses(self, name: str, quote_id: str) -> list[str]:
        return [str(e.status) for e in self.my_quote(name, quote_id).clearing_events]

    # -- pools, transfers, permits ---------------------------------------------------------

    def seed_pool_id(self) -> str:
        pools = self.ex.settlement_pools(self["DESK"], limit=100, offset=0).items
        return next(p.pool_id for p in pools if p.data and p.data.name == SEED_POOL_NAME)

    def pool(self, name: str, pool_id: str) -> Any:
        page = self.ex.settlement_pools(self[name], limit=10, offset=0, id=pool_id)
        assert len(page.items) == 1
        return page.items[0]

    def new_pool(self, creator: str, other: str, name: str = "fresh", params: Any = None) -> Any:
        pool = self.ex.settlement_pools_new(
            self[creator],
            NewSettlementPoolRequest(
                pool_name=name,
                company_other=self.id(other),
                creator_params=params or margin_params(),
                other_params=params or margin_params(),
            ),
        )
        return pool

    def balance(self, name: str, pool_id: str) -> Decimal:
        page = self.ex.portfolio_assets(self[name], limit=10, offset=0, pool=pool_id)
        return page.items[0].qty if page.items else D(0)

    def wallet(self, name: str) -> Decimal:
        return self.ex.chain.wallet(self.id(name)).usdc

    def template(self, name: str, address: str, amount: Decimal, seconds: int = 60) -> dict:
        return self.ex.transfers_permit_template(
            self[name],
            PermitTemplateRequest(
                pool_address=address,
                allowance=DecimalAllowance(value=amount),
                seconds_until_expiry=seconds,
            ),
        )

    @staticmethod
    def sign(template: dict, private_key: str) -> str:
        from eth_account import Account
        from eth_account.messages import encode_typed_data

        data = {**template, "domain": {**template["domain"]}}
        data["domain"]["chainId"] = int(template["domain"]["chainId"], 16)
        signed = Account.sign_message(encode_typed_data(full_message=data), private_key)
        return "0x" + bytes(signed.signature).hex()

    def permit(
        self, name: str, address: str, amount: Decimal, *, signer: str | None = None
    ) -> bool:
        template = self.template(name, address, amount)
        signature = self.sign(template, self.creds[signer or name]["wallet_private_key"])
        return self.ex.transfers_permit(
            self[name], SubmitPermitRequest(message=template, signature=signature)
        )

    def transfer(self, name: str, pool_id: str, qty: str, kind: str = "deposit") -> Any:
        pool = self.pool(name, pool_id)
        counterparty = next(p.company for p in pool.data.parties if p.company != self.id(name))
        return self.ex.transfers_new(
            self[name],
            NewTransferRequest(
                qty=D(qty),
                target_pool_location=pool_id,
                counterparty=counterparty,
                transfer_type=TransferType(kind),
            ),
        )

    def deposit(self, name: str, pool_id: str, qty: str) -> Any:
        """Permit then deposit ``qty`` and wait for the block."""
        pool = self.pool(name, pool_id)
        self.permit(name, pool.data.address, D(qty))
        transfer = self.transfer(name, pool_id, qty)
        self.advance(self.block_delay_s)
        return transfer
