"""The sandbox exchange's engine: one method per endpoint, over SQLite, on the sandbox clock.

The HTTP layer (`tui.sandbox.http.server`) authenticates, parses and calls the method named like the
endpoint (`tui.api.endpoints`); this facade checks the business rules, runs each write in ONE
transaction (a `ServiceError` rolls it back whole), and renders records for the caller.

Rules the contract leaves open, as decided here:

- **Scoping.** Every read is the caller's company's; an id of another company's record answers
  exactly like an unknown id (404/3000 for ids in POST bodies; an empty page for ``id=`` and
  ``pool=`` filters). The company directory (``/companies``) is public to every key.
- **Paging** is in creation order, oldest first (``ORDER BY seq``), so a page stays stable
  while new records are appended after it.
- **Quotes lists.** ``/quotes`` = every quote the caller can see: its own as maker plus every
  quote on its RFQs (as taker); ``/quotes/sent`` = its own; ``/quotes/received`` = quotes on
  its RFQs. A quote carries the extra field ``quote_status`` (`QuoteState`) and ``created_at``.
  The ``id`` filter of ``/rfqs/sent|received`` is the RFQ id.
- **RFQs.** ``expires_at`` must be in the future and at most `MAX_RFQ_LIFETIME_S` ahead; every
  underlying must be listed; ``qty`` must be a multiple of each leg underlying's
  ``min_qty_tick``; options and dated futures must not have expired; an option's strike must
  lie between 1 % and 1000 % of its underlying's mark and have at most the listing's
  ``max_decimal_only_figures`` (8) decimal places; the targets must exist and must not include
  the caller. Only the taker may cancel, and not while a trade is clearing.
- **Quotes.** Only a targeted company may quote (anyone else gets 404, as for an unknown
  RFQ). One leg quote per RFQ leg, each price at most `MAX_PRICE` with at most the listing's
  ``max_decimal_only_figures`` decimal places (significant figures are not limited: an option
  price is finer than the perpetual's tick); ``expires_at`` in the future and not after the RFQ's
  expiry;
  the quote must price the whole structure on at least one side. ``use_existing`` needs an
  open pool between the maker and the RFQ's taker; ``create_new`` a name no pool of the pair
  uses yet (the maker becomes the new pool's creator: ``creator_params`` are the maker's).
- **Accept** (taker only): see `Exchange.quotes_accept`; one live trade per RFQ at a time.
- **Pools.** ``/settlement_pools/new`` needs an existing other company and a name the pair
  does not use yet; the pool opens one block later. ``company_id`` of a pool record is the
  viewer's company. Any company may open a pool naming any other (as on the venue); the
  margin parameters it writes for both sides are bounded (`tui.sandbox.engine.margin_rules`, also
  for a quote's ``create_new``) and every view degrades rather than fails when margin cannot
  be computed, so nothing a creator puts in a pool can break the other company's reads.
- **Transfers.** USDC only, at most 6 decimals; deposits need the pool open, the caller's
  wallet allowance for the pool address (a permit) and wallet balance; withdrawals at most
  ``max_withdrawable_amount``. Both confirm one block later. Transfers are the caller's own.
- **Permits.** The signature must recover to ``message.owner`` (else 400/1001); the owner must
  be the caller's company wallet (else 403/2002); the spender a pool of the caller (else
  404); the deadline not passed (400/1001); the nonce the owner's current one (409/4000).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from tui.api.lifecycle import QuoteState
from tui.api.models import (
    RFQ,
    USDC,
    AcceptQuoteRequest,
    AggregatedPosition,
    ApiRole,
    Asset,
    AuthInfo,
    CancelRequest,
    ClearingStatus,
    Company,
    CreateNewPool,
    MakerLastLookRequest,
    MakerLastLookResponse,
    MarketStats,
    NewQuoteRequest,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PartyStatus,
    PermitTemplateRequest,
    PortfolioSummary,
    Position,
    Quote,
    QuoteAcceptResponse,
    ReplaceQuoteRequest,
    RequestAction,
    RFQStatus,
    SettlementPool,
    SettlementPoolStatus,
    Status,
    StructurePrice,
    SubmitPermitRequest,
    SupportedAssetDetails,
    Trade,
    TradeSide,
    Transfer,
    TransferStatus,
    TransferType,
    UnknownVariant,
    UseExistingPool,
    VanillaOptionInstrument,
    allowance_units,
)
from tui.sandbox.engine.chain import Chain, pool_address
from tui.sandbox.engine.clearing import (
    Clearing,
    load_pool,
    load_quote,
    load_rfq,
    ms_to_timestamp,
    other_party,
    party_params,
    save_quote,
    save_rfq,
    timestamp_to_ms,
)
from tui.sandbox.engine.clock import SandboxClock
from tui.sandbox.engine.errors import ServiceError
from tui.sandbox.engine.margin_rules import check_margin_params
from tui.sandbox.engine.portfolio import Portfolio, canonical_instrument
from tui.sandbox.engine.seed import seed_exchange
from tui.sandbox.engine.store import Store
from tui.sandbox.engine.views import Views

__all__ = [
    "MAX_RFQ_LIFETIME_S",
    "ApiKey",
    "Caller",
    "Exchange",
    "MarketApi",
    "PageSlice",
]

log = logging.getLogger(__name__)

MAX_RFQ_LIFETIME_S = 3600
"""How far ahead an RFQ's ``expires_at`` may be."""
MAX_LEG_QTY = Decimal(10) ** 9
"""The largest quantity of one leg (RFQ qty x ratio): keeps every amount well inside Decimal's
28 digits, so no request can make the engine's arithmetic overflow."""
MAX_PRICE = Decimal(10) ** 9
"""The largest leg price a quote may carry."""
MAX_TRANSFER = Decimal(10) ** 12
"""The largest USDC amount of one transfer."""
STRIKE_RANGE = (Decimal("0.01"), Decimal(10))
"""An option's strike must lie within these fractions of its underlying's mark at RFQ time."""
DEFAULT_PRICE_PLACES = 8
"""Decimal places of a price when a listing states no precision requirements."""
SNAPSHOT_EVERY_MS = 30_000
"""How often (sandbox time) `Exchange.tick` saves the market's state into the database."""
_ZERO = Decimal(0)
_DAY_MS = 86_400_000

T = TypeVar("T")


def _places(value: Decimal) -> int:
    """Decimal places ``value`` really has (``1.50`` has 1, ``1E+3`` none)."""
    exponent = value.normalize().as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _plain(value: Decimal) -> str:
    """A price for a message: at most 8 places, no exponent, no trailing zeros."""
    return format(value.quantize(Decimal("1e-8")).normalize(), "f")


@dataclass(frozen=True)
class Caller:
    """The authenticated key making a request."""

    company_id: str
    key_id: str
    role: ApiRole


@dataclass(frozen=True)
class ApiKey:
    """A stored API key, as authentication needs it. The API key string *is* ``key_id``."""

    key_id: str
    company_id: str
    role: ApiRole
    secret: bytes = field(repr=False)


@dataclass
class PageSlice(Generic[T]):
    """One page of records and whether more follow it."""

    items: list[T]
    has_more: bool


class MarketApi(Protocol):
    """The part of `tui.sandbox.market.model.Market` the exchange uses."""

    def underlyings(self) -> list[str]:
        """Listed tickers."""

    def mark_price(self, underlying: str) -> Decimal:
        """The current mark of an underlying."""

    def spec(self, underlying: str) -> Any:
        """Static listing spec (``min_qty_tick`` ...)."""

    def value(self, instrument: Any) -> Any:
        """Valuation of one unit."""

    def structure_price(self, structure: Any, qty: Decimal | None = None) -> StructurePrice:
        """Price and greeks of a structure."""

    def aggregate_position(self, position: Position) -> AggregatedPosition:
        """A position valued at the mark."""

    def portfolio_summary(self, balance: Decimal, positions: Any) -> PortfolioSummary:
        """A whole portfolio valued at the mark."""

    def supported_assets(
        self, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """Token metadata by ticker."""

    def stats(self, activity: Any) -> MarketStats:
        """The public statistics record."""

    def snapshot(self) -> dict[str, Any]:
        """JSON-able state for a restart."""


class Exchange:
    """The whole venue behind the HTTP layer (see the module docstring for its rules)."""

    def __init__(
        self,
        store: Store,
        clock: SandboxClock,
        market: MarketApi,
        *,
        block_delay_s: float = 2.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.market = market
        self.chain = Chain(store, block_delay_s=block_delay_s)
        self.portfolio = Portfolio(store, market)
        self.clearing = Clearing(store, self.chain, self.portfolio)
        self.views = Views(
            store, self.chain, self.portfolio, market, reserved=self.clearing.reserved_for
        )
        self._lock = threading.RLock()
        self._next_snapshot_ms = clock.now_ms() + SNAPSHOT_EVERY_MS
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        db_path: Path | str,
        *,
        seed: int,
        clock: SandboxClock,
        block_delay_s: float = 2.0,
    ) -> Exchange:
        """Open (creating, migrating and seeding on first use) the sandbox in ``db_path``.

        The seed is stored on first open; a later open of the same file keeps the stored seed
        whatever ``seed`` says, so ids stay reproducible and never repeat. A trade a former
        version left hanging without a timer is given one (`Clearing.rescue`). The market resumes
        from its stored snapshot (or starts from the seed).
        """
        from tui.sandbox.market.model import Market

        store = Store(db_path)
        try:
            stored_seed = store.meta_get("seed")
            fresh = stored_seed is None
            seed_value = seed if stored_seed is None else int(stored_seed)
            market: Any = None
            snapshot = store.meta_get("market_snapshot")
            if snapshot:
                try:
                    market = Market.restore(json.loads(snapshot), clock)
                except ValueError:
                    log.warning("stored market snapshot unusable; starting the market afresh")
            if market is None:
                market = Market(seed_value, clock)
            exchange = cls(store, clock, market, block_delay_s=block_delay_s)
            if fresh:
                with store.transaction():
                    store.meta_set("seed", str(seed_value))
                    store.meta_set("created_ms", str(clock.now_ms()))
                    seed_exchange(store, exchange.chain, exchange.portfolio, clock.now())
                    exchange._save_market()
            else:
                with store.transaction():
                    exchange.clearing.rescue(clock.now_ms())
            return exchange
        except BaseException:
            store.close()
            raise

    def close(self) -> None:
        """Save the market's state and close the database (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                with self.store.transaction():
                    self._save_market()
            finally:
                self.store.close()

    def _save_market(self) -> None:
        self.store.meta_set("market_snapshot", json.dumps(self.market.snapshot()))

    # -- time ---------------------------------------------------------------------------------

    def tick(self) -> None:
        """Apply everything sandbox time has made due (expiries, blocks, deadlines).

        Timers run in due order, each at its own due time (so a big clock jump replays the
        same history as many small ticks would); one that fails is logged and dropped without
        undoing the others. Cheap when nothing is due: one indexed ``MIN(due_ms)`` query (read
        from the file every time, so another `Exchange` over the same store, such as the
        seeded-history player, can add timers this one will run).
        """
        with self._lock:
            now = self.clock.now_ms()
            due = self.store.next_due_ms()
            if (due is None or now < due) and now < self._next_snapshot_ms:
                return
            with self.store.transaction():
                self.portfolio.fresh()
                self._run_timers(now)
                if now >= self._next_snapshot_ms:
                    self._save_market()
                    self._next_snapshot_ms = now + SNAPSHOT_EVERY_MS

    def _run_timers(self, now: int) -> None:
        for _ in range(10_000):
            timers = self.store.due_timers(now)
            if not timers:
                return
            for timer in timers:
                self.store.delete_timer(timer["id"])
                kind, ref, due_ms = timer["kind"], timer["ref"], int(timer["due_ms"])
                try:
                    with self.store.savepoint():
                        self._dispatch(kind, ref, due_ms)
                except Exception:
                    log.exception("sandbox timer %s for %s failed", kind, ref)
                    self._after_failed_timer(kind, ref, due_ms)

    def _after_failed_timer(self, kind: str, ref: str, at_ms: int) -> None:
        """End what a failed timer leaves hanging: its trade moves to a final ``rejected_*``
        status (in a fresh savepoint), a pending transfer fails; never silently dropped."""
        try:
            with self.store.savepoint():
                if kind == "transfer_confirm":
                    self._fail_transfer(ref)
                else:
                    self.clearing.abandon(kind, ref, at_ms)
        except Exception:
            log.exception("could not end the work of the failed timer %s for %s", kind, ref)

    def _dispatch(self, kind: str, ref: str, at_ms: int) -> None:
        if kind == "rfq_expiry":
            self._expire_rfq(ref, at_ms)
        elif kind == "quote_expiry":
            quote = load_quote(self.store, ref)
            if quote is not None and quote["quote_status"] == QuoteState.OPEN:
                quote["quote_status"] = QuoteState.EXPIRED.value
                save_quote(self.store, quote)
        elif kind == "pool_open":
            self.clearing.pool_mined(ref, at_ms)
        elif kind == "transfer_confirm":
            self._confirm_transfer(ref)
        elif kind == "clearing_deadline":
            self.clearing.deadline(ref, at_ms)
        elif kind == "atomic_deposit":
            self.clearing.atomic_deposit(ref, at_ms)
        else:
            log.warning("unknown sandbox timer kind %s", kind)

    def _expire_rfq(self, rfq_id: str, at_ms: int) -> None:
        rfq = load_rfq(self.store, rfq_id)
        if rfq is None or rfq["rfq_status"] != RFQStatus.OPEN:
            return
        if self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (rfq_id,)):
            return  # a trade is clearing; when it fails, `Clearing.fail` expires the RFQ
        self.clearing.expire_rfq(rfq, at_ms)

    @contextmanager
    def request_transaction(self) -> Iterator[None]:
        """One transaction around a whole request: the engine call and the rendering of its
        answer (the HTTP layer's unit of work for writes).

        Runs what is due first, in its own commit. The engine's own write transactions nest
        inside as savepoints; the caller decides whether everything commits.
        """
        self.tick()
        with self._lock, self.store.transaction():
            yield

    @contextmanager
    def _write(self) -> Iterator[int]:
        """One write transaction at the current time (after running what is due)."""
        self.tick()
        with self._lock, self.store.transaction():
            self.portfolio.fresh()
            yield self.clock.now_ms()

    def _read(self) -> None:
        self.tick()
        self.portfolio.fresh()

    # -- keys and credentials -----------------------------------------------------------------

    def api_key(self, api_key: str) -> ApiKey | None:
        """The stored key whose API key string is ``api_key`` (the key's id), or None."""
        row = self.store.one(
            "SELECT key_id, company_id, role, secret FROM api_keys WHERE key_id = ?",
            (api_key.strip().lower(),),
        )
        if row is None:
            return None
        return ApiKey(row["key_id"], row["company_id"], ApiRole(row["role"]), bytes(row["secret"]))

    def credentials(self) -> list[dict[str, Any]]:
        """One entry per API key, for the sandbox's credentials file (mode 0600).

        Shape of each entry: ``{id, short_name, legal_name, is_lp, role, key_id, api_key,
        api_secret (hex), wallet_address, wallet_private_key (0x hex)}``, companies in seed
        order with the writer key first. A ``reader`` entry carries ``wallet_private_key:
        null``: a read-only key has no business signing permits.
        """
        rows = self.store.all(
            "SELECT k.key_id, k.role, k.secret, c.data, w.address FROM api_keys k "
            "JOIN companies c ON c.id = k.company_id JOIN wallets w ON w.company_id = c.id "
            "ORDER BY c.seq, k.role DESC, k.seq"
        )
        out = []
        for row in rows:
            company = json.loads(row["data"])
            writer = row["role"] == ApiRole.WRITER
            out.append(
                {
                    "id": company["id"],
                    "short_name": company["short_name"],
                    "legal_name": company["legal_name"],
                    "is_lp": company["is_lp"],
                    "role": row["role"],
                    "key_id": row["key_id"],
                    "api_key": row["key_id"],
                    "api_secret": bytes(row["secret"]).hex(),
                    "wallet_address": row["address"],
                    "wallet_private_key": (
                        self.chain.wallet_private_key(company["id"]) if writer else None
                    ),
                }
            )
        return out

    def company_id(self, short_name: str) -> str:
        """The id of a company by its short name (tests, demos and simulated actors)."""
        value = self.store.scalar("SELECT id FROM companies WHERE short_name = ?", (short_name,))
        if value is None:
            raise KeyError(short_name)
        return str(value)

    # -- companies ----------------------------------------------------------------------------

    def companies(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Company]:
        """Every company of the venue (a public directory), optionally one by id."""
        self._read()
        where, params = ("id = ?", (id,)) if id else ("1 = 1", ())
        rows, more = self.store.page("companies", where, params, limit=limit, offset=offset)
        return PageSlice([Company.model_validate(r) for r in rows], more)

    def _company_exists(self, company_id: str) -> bool:
        return self.store.scalar("SELECT 1 FROM companies WHERE id = ?", (company_id,)) is not None

    # -- portfolio ----------------------------------------------------------------------------

    def _visible_pool(self, caller: Caller, pool_id: str) -> dict[str, Any] | None:
        pool = load_pool(self.store, pool_id)
        if pool is None or caller.company_id not in (p["company"] for p in pool["parties"]):
            return None
        return pool

    def portfolio_assets(
        self, caller: Caller, *, limit: int, offset: int, pool: str | None = None
    ) -> PageSlice[Asset]:
        """USDC held in one pool, or (no ``pool``) one row per asset summed over all pools."""
        self._read()
        me = caller.company_id
        if pool is not None:
            found = self._visible_pool(caller, pool)
            if found is None:
                return PageSlice([], False)
            assets = [
                Asset(
                    company=me,
                    pool_location=pool,
                    counterparty=other_party(found, me),
                    asset=USDC,
                    qty=self.portfolio.balance(pool, me),
                )
            ]
        else:
            has_pool = self.store.scalar(
                "SELECT 1 FROM pools WHERE creator = ? OR other = ? LIMIT 1", (me, me)
            )
            totals: dict[str, Decimal] = {USDC: _ZERO} if has_pool else {}
            for _, asset, qty in self.portfolio.balances_of(me):
                totals[asset] = totals.get(asset, _ZERO) + qty
            assets = [Asset(company=me, asset=a, qty=q) for a, q in totals.items()]
        window = assets[offset : offset + limit]
        return PageSlice(window, len(assets) > offset + limit)

    def portfolio_positions(
        self, caller: Caller, *, limit: int, offset: int, pool: str | None = None
    ) -> PageSlice[Position]:
        """Open positions of the caller (one pool, or all), oldest first."""
        self._read()
        if pool is not None and self._visible_pool(caller, pool) is None:
            return PageSlice([], False)
        items, more = self.portfolio.position_page(
            caller.company_id, pool_id=pool, limit=limit, offset=offset
        )
        return PageSlice(items, more)

    def portfolio_aggregated_positions(
        self, caller: Caller, *, limit: int, offset: int
    ) -> PageSlice[AggregatedPosition]:
        """Open positions valued at the mark (greeks times qty, uPNL, notional)."""
        self._read()
        items, more = self.portfolio.position_page(
            caller.company_id, pool_id=None, limit=limit, offset=offset
        )
        return PageSlice([self.market.aggregate_position(p) for p in items], more)

    def portfolio_trades(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        pool: str | None = None,
        id: str | None = None,
    ) -> PageSlice[Trade]:
        """The caller's side of every booked trade leg, oldest first."""
        rows, more = self._company_rows("trades", caller, limit, offset, pool=pool, id=id)
        return PageSlice([Trade.model_validate(r) for r in rows], more)

    def _company_rows(
        self,
        table: str,
        caller: Caller,
        limit: int,
        offset: int,
        *,
        pool: str | None,
        id: str | None,
    ) -> tuple[list[dict[str, Any]], bool]:
        """A page of the caller's own rows of ``table``, filtered by pool and id when given."""
        self._read()
        where = "company_id = ?"
        params: list[Any] = [caller.company_id]
        if pool is not None:
            where += " AND pool_id = ?"
            params.append(pool)
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        return self.store.page(table, where, params, limit=limit, offset=offset)

    def portfolio_summary(self, caller: Caller) -> PortfolioSummary:
        """Balance over all pools, and uPNL, notional and greeks of every open position.

        Dollar delta = delta x underlying price; dollar gamma = gamma x price^2 / 100 (the
        change of dollar delta for a 1 % move), summed over underlyings.
        """
        self._read()
        balance = sum((q for _, _, q in self.portfolio.balances_of(caller.company_id)), _ZERO)
        return self.market.portfolio_summary(
            balance, self.portfolio.positions_of(caller.company_id)
        )

    # -- quotes: reads ------------------------------------------------------------------------

    def _quote_page(
        self, caller: Caller, where: str, params: list[Any], limit: int, offset: int, id: str | None
    ) -> PageSlice[Quote]:
        self._read()
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        rows, more = self.store.page("quotes", where, params, limit=limit, offset=offset)
        return PageSlice([self.views.quote(r, caller.company_id) for r in rows], more)

    def quotes(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Quote]:
        """Every quote the caller can see: its own (maker) and those on its RFQs (taker)."""
        me = caller.company_id
        return self._quote_page(caller, "(maker = ? OR taker = ?)", [me, me], limit, offset, id)

    def quotes_sent(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Quote]:
        """The caller's own quotes, whatever their state (canceled and replaced ones too)."""
        return self._quote_page(caller, "maker = ?", [caller.company_id], limit, offset, id)

    def quotes_received(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[Quote]:
        """Quotes other companies made on the caller's RFQs."""
        return self._quote_page(caller, "taker = ?", [caller.company_id], limit, offset, id)

    # -- quotes: writes -----------------------------------------------------------------------

    def quotes_new(self, caller: Caller, body: NewQuoteRequest) -> Quote:
        """A maker's quote on an RFQ it was asked for."""
        with self._write() as now:
            quote = self._new_quote(caller, body, now)
            return self.views.quote(quote, caller.company_id)

    def _new_quote(
        self, caller: Caller, body: NewQuoteRequest, now: int, field_prefix: str = ""
    ) -> dict[str, Any]:
        me = caller.company_id
        rfq = load_rfq(self.store, body.rfq_id)
        if rfq is None or me not in rfq["_targets"]:
            raise ServiceError.not_found("rfq_id: RFQ")
        if rfq["rfq_status"] != RFQStatus.OPEN or now >= rfq["_expires_ms"]:
            status = rfq["rfq_status"] if rfq["rfq_status"] != RFQStatus.OPEN else "expired"
            raise ServiceError.conflict(f"rfq_id: RFQ is {status}, it takes no more quotes")
        expires_ms = timestamp_to_ms(body.expires_at)
        if expires_ms <= now:
            raise ServiceError.out_of_range("expires_at: must be in the future")
        if expires_ms > rfq["_expires_ms"]:
            raise ServiceError.out_of_range(
                f"expires_at: must not be after the RFQ's expiry ({rfq['rfq_expires_at']})"
            )
        legs = rfq["rfq_legs"]
        if len(body.leg_quotes) != len(legs):
            raise ServiceError.out_of_range(
                f"leg_quotes: expected {len(legs)} leg quotes, one per RFQ leg"
            )
        by_leg: dict[str, Any] = {}
        leg_ids = {leg["rfq_leg_id"] for leg in legs}
        for index, leg_quote in enumerate(body.leg_quotes):
            leg_id = leg_quote.target_rfq_leg_id
            if leg_id not in leg_ids:
                raise ServiceError.out_of_range(
                    f"leg_quotes[{index}].target_rfq_leg_id: not a leg of this RFQ"
                )
            if leg_id in by_leg:
                raise ServiceError.out_of_range(
                    f"leg_quotes[{index}].target_rfq_leg_id: this leg is quoted twice"
                )
            by_leg[leg_id] = leg_quote
        per_leg = []
        bid: Decimal | None = _ZERO
        ask: Decimal | None = _ZERO
        for leg, structure_leg in zip(legs, rfq["structure"]["legs"], strict=True):
            leg_quote = by_leg[leg["rfq_leg_id"]]
            places = self._price_places(leg["instrument"]["underlying"])
            for name in ("bid", "ask"):
                value = getattr(leg_quote, name)
                if value is None:
                    continue
                index = body.leg_quotes.index(leg_quote)
                if value > MAX_PRICE:
                    raise ServiceError.out_of_range(
                        f"leg_quotes[{index}].{name}: at most {format(MAX_PRICE, 'f')}"
                    )
                if _places(value) > places:
                    raise ServiceError.out_of_range(
                        f"leg_quotes[{index}].{name}: at most {places} decimal places "
                        f"(precision_requirements of {leg['instrument']['underlying']})"
                    )
            ratio = Decimal(structure_leg["ratio"])
            buy_leg = leg["side"] == TradeSide.BUY
            # The taker buying the structure buys its buy legs (at ask), sells its sell legs
            # (at bid); the bid is the mirror image.
            ask_part = leg_quote.ask if buy_leg else leg_quote.bid
            bid_part = leg_quote.bid if buy_leg else leg_quote.ask
            sign = Decimal(1) if buy_leg else Decimal(-1)
            ask = None if ask is None or ask_part is None else ask + sign * ratio * ask_part
            bid = None if bid is None or bid_part is None else bid + sign * ratio * bid_part
            per_leg.append(
                {
                    "target_rfq_leg_id": leg["rfq_leg_id"],
                    "bid": None if leg_quote.bid is None else format(leg_quote.bid, "f"),
                    "ask": None if leg_quote.ask is None else format(leg_quote.ask, "f"),
                }
            )
        if bid is None and ask is None:
            raise ServiceError.out_of_range(
                "leg_quotes: price every leg on one side at least (a bid or an ask for the "
                "whole structure)"
            )
        strategy = body.pool_strategy
        taker = rfq["taker_company"]
        pool_location: str | None = None
        if isinstance(strategy, UseExistingPool):
            pool = self._visible_pool(caller, strategy.pool_id)
            if pool is None:
                raise ServiceError.not_found(f"{field_prefix}pool_strategy.pool_id: pool")
            if taker not in (p["company"] for p in pool["parties"]):
                raise ServiceError.out_of_range(
                    "pool_strategy.pool_id: the pool is not between you and the RFQ's taker"
                )
            if pool["status"] != SettlementPoolStatus.OPEN:
                raise ServiceError.conflict(
                    f"pool_strategy.pool_id: the pool is {pool['status']}, not open"
                )
            pool_location = strategy.pool_id
        elif isinstance(strategy, CreateNewPool):
            self._check_pool_name(me, taker, strategy.name, "pool_strategy.name")
            check_margin_params(strategy.creator_params, "pool_strategy.creator_params")
            check_margin_params(strategy.other_params, "pool_strategy.other_params")
        quote_id = self.store.new_id()
        quote: dict[str, Any] = {
            "parent_quote_id": quote_id,
            "target_rfq_id": rfq["rfq_id"],
            "maker_company": me,
            "expires_at": ms_to_timestamp(expires_ms),
            "aggregated_bid": None if bid is None else format(bid, "f"),
            "aggregated_ask": None if ask is None else format(ask, "f"),
            "clearing_status": None,
            "clearing_events": [],
            "new_pool_name": strategy.name if isinstance(strategy, CreateNewPool) else None,
            "creator_params": (
                strategy.creator_params.model_dump(mode="json")
                if isinstance(strategy, CreateNewPool)
                else None
            ),
            "other_params": (
                strategy.other_params.model_dump(mode="json")
                if isinstance(strategy, CreateNewPool)
                else None
            ),
            "pool_location": pool_location,
            "per_leg_quotes": per_leg,
            "client_quote_id": body.client_quote_id,
            "created_at": ms_to_timestamp(now),
            "quote_status": QuoteState.OPEN.value,
            "_expires_ms": expires_ms,
            "_pool_strategy": strategy.model_dump(mode="json"),
            "_clearing": None,
        }
        self.store.insert(
            "quotes",
            {
                "id": quote_id,
                "rfq_id": rfq["rfq_id"],
                "maker": me,
                "taker": taker,
                "status": QuoteState.OPEN.value,
                "data": quote,
            },
        )
        self.store.add_timer(expires_ms, "quote_expiry", quote_id)
        return quote

    def _check_pool_name(self, me: str, other: str, name: str, field_name: str) -> None:
        clash = self.store.scalar(
            "SELECT 1 FROM pools WHERE status != ? AND lower(name) = lower(?) AND "
            "((creator = ? AND other = ?) OR (creator = ? AND other = ?))",
            (SettlementPoolStatus.CANCELED.value, name, me, other, other, me),
        )
        if clash:
            raise ServiceError.out_of_range(
                f"{field_name}: a pool named {name!r} already exists with this counterparty"
            )

    def _own_quote(self, caller: Caller, quote_id: str, field_name: str) -> dict[str, Any]:
        """The caller's own quote, for a maker's cancel or replace.

        The taker of the quote's RFQ (who can see the quote) gets 403/2002 "only the quote's
        maker may do this", as the catalogue has it for a record of another company; anyone
        else gets 404, as for an unknown id. Kept as is on purpose.
        """
        quote = load_quote(self.store, quote_id)
        if quote is None:
            raise ServiceError.not_found(f"{field_name}: quote")
        if quote["maker_company"] != caller.company_id:
            rfq = load_rfq(self.store, quote["target_rfq_id"])
            if rfq is not None and rfq["taker_company"] == caller.company_id:
                raise ServiceError.forbidden(f"{field_name}: only the quote's maker may do this")
            raise ServiceError.not_found(f"{field_name}: quote")
        return quote

    def quotes_cancel(self, caller: Caller, body: CancelRequest) -> bool:
        """The maker withdraws one open quote (409 once it is no longer open)."""
        with self._write():
            quote = self._own_quote(caller, body.id, "id")
            if quote["quote_status"] != QuoteState.OPEN:
                raise ServiceError.conflict(f"id: the quote is {quote['quote_status']}, not open")
            quote["quote_status"] = QuoteState.CANCELED.value
            save_quote(self.store, quote)
        return True

    def quotes_cancel_all(self, caller: Caller) -> bool:
        """The maker withdraws every open quote it has (true even when there were none)."""
        with self._write():
            rows = self.store.all(
                "SELECT data FROM quotes WHERE maker = ? AND status = ?",
                (caller.company_id, QuoteState.OPEN.value),
            )
            for row in rows:
                quote = json.loads(row[0])
                quote["quote_status"] = QuoteState.CANCELED.value
                save_quote(self.store, quote)
        return True

    def quotes_replace(self, caller: Caller, body: ReplaceQuoteRequest) -> Quote:
        """Cancel an open quote and quote anew on the same RFQ, atomically."""
        with self._write() as now:
            parent = self._own_quote(caller, body.parent_quote_id, "parent_quote_id")
            if parent["target_rfq_id"] != body.rfq_id:
                raise ServiceError.out_of_range("rfq_id: does not match the RFQ of parent_quote_id")
            if parent["quote_status"] != QuoteState.OPEN:
                raise ServiceError.conflict(
                    f"parent_quote_id: the quote is {parent['quote_status']}, not open"
                )
            parent["quote_status"] = QuoteState.REPLACED.value
            save_quote(self.store, parent)
            quote = self._new_quote(caller, body, now)
            quote["replaces"] = parent["parent_quote_id"]
            save_quote(self.store, quote)
            parent["replaced_by"] = quote["parent_quote_id"]
            save_quote(self.store, parent)
            return self.views.quote(quote, caller.company_id)

    def quotes_accept(self, caller: Caller, body: AcceptQuoteRequest) -> QuoteAcceptResponse:
        """The taker takes a quote's ask (``buy``) or bid (``sell``): a trade starts clearing.

        Refusals, in order: unknown RFQ (404); RFQ closed or canceled (409); a trade clearing
        on the RFQ, this quote's or another's (409, nothing changes); RFQ expired -> 409
        ``rejected_failed_taker_accept_rfq_expired``; no such quote on the RFQ -> 409
        ``rejected_failed_taker_accept_no_quote``; quote expired -> 409
        ``rejected_failed_taker_accept_quote_expired``; quote not open -> 409
        ``rejected_failed_taker_accept_no_quote``; the side not priced on every leg (400/1001);
        risk and reduce-only checks (409 ``rejected_failed_risk_checks`` /
        ``rejected_failed_reduce_only_check``). The ``rejected_failed_taker_accept_*`` statuses
        are recorded (committed) before the 409 is raised, on a quote that has no clearing
        status yet only: a quote whose trade already ended keeps its final status.
        """
        with self._write() as now:
            outcome = self._accept(caller, body, now)
        if isinstance(outcome, ServiceError):
            raise outcome
        return outcome

    def _accept(
        self, caller: Caller, body: AcceptQuoteRequest, now: int
    ) -> QuoteAcceptResponse | ServiceError:
        rfq = load_rfq(self.store, body.rfq_id)
        if rfq is None or rfq["taker_company"] != caller.company_id:
            raise ServiceError.not_found("rfq_id: RFQ")
        quote = load_quote(self.store, body.parent_quote_id)
        if quote is not None and quote["target_rfq_id"] != rfq["rfq_id"]:
            quote = None
        status = rfq["rfq_status"]
        if status in (RFQStatus.CLOSED, RFQStatus.CANCELED):
            reason = "a trade was booked from it" if status == RFQStatus.CLOSED else "canceled"
            raise ServiceError.conflict(f"rfq_id: the RFQ is {status} ({reason})")
        # A trade clearing on the RFQ comes first: whatever else is true by now (the RFQ may
        # have expired meanwhile), a second accept must not touch the trade under way.
        live = self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (rfq["rfq_id"],))
        if live:
            live_quote = load_quote(self.store, live)
            live_status = live_quote["clearing_status"] if live_quote else "clearing"
            if quote is not None and live == quote["parent_quote_id"]:
                raise ServiceError.conflict(
                    f"parent_quote_id: the quote is already accepted ({live_status})"
                )
            raise ServiceError.conflict(
                f"rfq_id: another quote's trade is clearing ({live_status}); "
                "another quote can be accepted only if it fails"
            )
        if status == RFQStatus.EXPIRED or now >= rfq["_expires_ms"]:
            return self._accept_failure(
                quote,
                ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_RFQ_EXPIRED,
                body.side,
                now,
                f"rfq_id: the RFQ expired at {rfq['rfq_expires_at']}",
            )
        if quote is None:
            return ServiceError.conflict(
                f"{ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE.value}: "
                "parent_quote_id: no such quote on this RFQ"
            )
        if quote["quote_status"] == QuoteState.EXPIRED or (
            quote["quote_status"] == QuoteState.OPEN and now >= quote["_expires_ms"]
        ):
            return self._accept_failure(
                quote,
                ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_QUOTE_EXPIRED,
                body.side,
                now,
                f"parent_quote_id: the quote expired at {quote['expires_at']}",
            )
        if quote["quote_status"] != QuoteState.OPEN:
            return self._accept_failure(
                quote,
                ClearingStatus.REJECTED_FAILED_TAKER_ACCEPT_NO_QUOTE,
                body.side,
                now,
                f"parent_quote_id: the quote is {quote['quote_status']}, not open",
            )
        price_key = "aggregated_ask" if body.side is TradeSide.BUY else "aggregated_bid"
        if quote.get(price_key) is None:
            wanted = "an ask" if body.side is TradeSide.BUY else "a bid"
            raise ServiceError.out_of_range(
                f"side: the quote has no {wanted} on every leg; it cannot be "
                f"{'bought' if body.side is TradeSide.BUY else 'sold'}"
            )
        return self.clearing.accept(
            rfq, quote, body.side, now, reduce_only_underlyings=self._reduce_only_underlyings()
        )

    def _accept_failure(
        self,
        quote: dict[str, Any] | None,
        status: ClearingStatus,
        side: TradeSide,
        now: int,
        message: str,
    ) -> ServiceError:
        self.clearing.record_accept_failure(quote, status, side, now)
        return ServiceError.conflict(f"{status.value}: {message}")

    def _reduce_only_underlyings(self) -> frozenset[str]:
        found = set()
        for ticker in self.market.underlyings():
            if getattr(self.market.spec(ticker), "reduce_only", False):
                found.add(ticker)
        return frozenset(found)

    def quotes_maker_last_look(
        self, caller: Caller, body: MakerLastLookRequest
    ) -> MakerLastLookResponse:
        """The maker's final word on a trade in ``pending_maker_last_look`` (else 409)."""
        with self._write() as now:
            quote = load_quote(self.store, body.parent_quote_id)
            if (
                quote is None
                or quote["maker_company"] != caller.company_id
                or quote["target_rfq_id"] != body.rfq_id
            ):
                raise ServiceError.not_found("parent_quote_id: quote")
            if quote["clearing_status"] != ClearingStatus.PENDING_MAKER_LAST_LOOK:
                current = quote["clearing_status"] or "not accepted"
                raise ServiceError.conflict(
                    f"parent_quote_id: the trade is {current}, not pending_maker_last_look"
                )
            return self.clearing.last_look(quote, body.action is RequestAction.ACCEPT, now)

    # -- RFQs ---------------------------------------------------------------------------------

    def rfqs_sent(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        id: str | None = None,
        price: bool = True,
    ) -> PageSlice[RFQ]:
        """The caller's own RFQs with every open quote on them and its margin for each."""
        self._read()
        where = "taker = ?"
        params: list[Any] = [caller.company_id]
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        rows, more = self.store.page("rfqs", where, params, limit=limit, offset=offset)
        return PageSlice([self.views.rfq(r, caller.company_id, price=price) for r in rows], more)

    def rfqs_received(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        id: str | None = None,
        price: bool = True,
    ) -> PageSlice[RFQ]:
        """RFQs the caller was asked to quote, with its own quotes on them."""
        self._read()
        sql = (
            "SELECT r.data FROM rfq_targets t JOIN rfqs r ON r.seq = t.rfq_seq "
            "WHERE t.company_id = ?"
        )
        params: list[Any] = [caller.company_id]
        if id is not None:
            sql += " AND r.id = ?"
            params.append(id)
        rows = self.store.all(
            sql + " ORDER BY t.rfq_seq LIMIT ? OFFSET ?", (*params, limit + 1, offset)
        )
        more = len(rows) > limit
        return PageSlice(
            [
                self.views.rfq(json.loads(r[0]), caller.company_id, price=price)
                for r in rows[:limit]
            ],
            more,
        )

    def rfqs_new(self, caller: Caller, body: NewRfqRequest) -> RFQ:
        """A taker asks the targeted companies for quotes on a structure."""
        with self._write() as now:
            rfq = self._new_rfq(caller, body, now)
            self.portfolio.fresh()
            return self.views.rfq(rfq, caller.company_id, price=True)

    def _new_rfq(self, caller: Caller, body: NewRfqRequest, now: int) -> dict[str, Any]:
        me = caller.company_id
        targets: list[str] = []
        for index, target in enumerate(body.target_companies):
            if target == me:
                raise ServiceError.out_of_range(
                    "target_companies: must not include your own company"
                )
            if not self._company_exists(target):
                raise ServiceError.out_of_range(f"target_companies[{index}]: unknown company")
            if target not in targets:
                targets.append(target)
        expires_ms = timestamp_to_ms(body.expires_at)
        if expires_ms <= now:
            raise ServiceError.out_of_range("expires_at: must be in the future")
        if expires_ms > now + MAX_RFQ_LIFETIME_S * 1000:
            raise ServiceError.out_of_range(
                f"expires_at: must be at most {MAX_RFQ_LIFETIME_S} s ahead"
            )
        listed = set(self.market.underlyings())
        legs: list[dict[str, Any]] = []
        for index, leg in enumerate(body.structure.legs):
            where = f"structure.legs[{index}].instrument"
            instrument = leg.instrument
            if isinstance(instrument, UnknownVariant):
                kind = (instrument.model_extra or {}).get("instrument_type")
                raise ServiceError.out_of_range(
                    f"{where}.instrument_type: {kind!r} is not traded on this venue"
                )
            if instrument.underlying not in listed:
                raise ServiceError.out_of_range(
                    f"{where}.underlying: {instrument.underlying!r} is not listed"
                )
            if instrument.settlement_asset != USDC:
                raise ServiceError.out_of_range(f"{where}.settlement_asset: must be USDC")
            expiry = getattr(instrument, "expiry", None)
            if expiry is not None and timestamp_to_ms(expiry) <= now:
                raise ServiceError.out_of_range(f"{where}.expiry: must be in the future")
            if body.qty * leg.ratio > MAX_LEG_QTY:
                raise ServiceError.out_of_range(
                    f"qty: qty x structure.legs[{index}].ratio must be at most "
                    f"{format(MAX_LEG_QTY, 'f')}"
                )
            if isinstance(instrument, VanillaOptionInstrument):
                self._check_strike(instrument, f"{where}.strike")
            try:
                self.market.value(instrument)
            except (ValueError, ArithmeticError):
                raise ServiceError.out_of_range(
                    f"{where}: cannot be priced; check its strike and expiry"
                ) from None
            tick = self.market.spec(instrument.underlying).min_qty_tick
            if body.qty % tick != 0:
                raise ServiceError.out_of_range(
                    f"qty: must be a multiple of {format(tick, 'f')} "
                    f"(min_qty_tick of {instrument.underlying})"
                )
            legs.append(
                {
                    "side": leg.side.value,
                    "ratio": leg.ratio,
                    "instrument": canonical_instrument(instrument).model_dump(mode="json"),
                }
            )
        rfq_id = self.store.new_id()
        rfq_legs = [
            {
                "rfq_leg_id": self.store.new_id(),
                "rfq_id": rfq_id,
                "instrument": leg["instrument"],
                "side": leg["side"],
                "qty": format(body.qty * leg["ratio"], "f"),
            }
            for leg in legs
        ]
        rfq: dict[str, Any] = {
            "rfq_id": rfq_id,
            "created_at": ms_to_timestamp(now),
            "clearing_status": None,
            "structure": {"legs": legs},
            "structure_price": None,
            "rfq_expires_at": ms_to_timestamp(expires_ms),
            "taker_company": me,
            "rfq_status": RFQStatus.OPEN.value,
            "qty": format(body.qty, "f"),
            "rfq_legs": rfq_legs,
            "_targets": targets,
            "_expires_ms": expires_ms,
        }
        seq = self.store.insert(
            "rfqs",
            {"id": rfq_id, "taker": me, "status": RFQStatus.OPEN.value, "data": rfq},
        )
        for target in targets:
            self.store.insert(
                "rfq_targets", {"rfq_seq": seq, "rfq_id": rfq_id, "company_id": target}
            )
        self.store.add_timer(expires_ms, "rfq_expiry", rfq_id)
        return rfq

    def _check_strike(self, option: VanillaOptionInstrument, where: str) -> None:
        """A strike within `STRIKE_RANGE` of the underlying's mark, written to the price grid."""
        mark = self.market.mark_price(option.underlying)
        low, high = (mark * fraction for fraction in STRIKE_RANGE)
        if not low <= option.strike <= high:
            raise ServiceError.out_of_range(
                f"{where}: must be between {_plain(low)} and {_plain(high)} "
                f"(1 % to 1000 % of the {option.underlying} mark, {_plain(mark)})"
            )
        places = self._price_places(option.underlying)
        if _places(option.strike) > places:
            raise ServiceError.out_of_range(f"{where}: at most {places} decimal places")

    def _price_places(self, underlying: str) -> int:
        """Decimal places a price (or strike) on ``underlying`` may have: its listing's
        ``precision_requirements.max_decimal_only_figures``."""
        precision = getattr(self.market.spec(underlying), "precision", None)
        places = getattr(precision, "max_decimal_only_figures", None)
        return places if isinstance(places, int) else DEFAULT_PRICE_PLACES

    def rfqs_cancel(self, caller: Caller, body: CancelRequest) -> bool:
        """The taker withdraws an open RFQ (not while a trade is clearing on it)."""
        with self._write():
            rfq = load_rfq(self.store, body.id)
            if rfq is None or rfq["taker_company"] != caller.company_id:
                raise ServiceError.not_found("id: RFQ")
            if rfq["rfq_status"] != RFQStatus.OPEN:
                raise ServiceError.conflict(f"id: the RFQ is {rfq['rfq_status']}, not open")
            if self.store.scalar("SELECT live_quote FROM rfqs WHERE id = ?", (body.id,)):
                raise ServiceError.conflict("id: a trade is clearing on this RFQ")
            rfq["rfq_status"] = RFQStatus.CANCELED.value
            save_rfq(self.store, rfq)
            self.clearing.void_open_quotes(body.id)
        return True

    # -- settlement pools ---------------------------------------------------------------------

    def settlement_pools(
        self, caller: Caller, *, limit: int, offset: int, id: str | None = None
    ) -> PageSlice[SettlementPool]:
        """Pools the caller is a party of (pending, open and failed ones), oldest first."""
        self._read()
        me = caller.company_id
        where = "(creator = ? OR other = ?)"
        params: list[Any] = [me, me]
        if id is not None:
            where += " AND id = ?"
            params.append(id)
        rows, more = self.store.page("pools", where, params, limit=limit, offset=offset)
        return PageSlice([self.views.pool(r, me) for r in rows], more)

    def settlement_pools_new(
        self, caller: Caller, body: NewSettlementPoolRequest
    ) -> SettlementPool:
        """A new pool with one counterparty; it opens one block later."""
        with self._write() as now:
            me = caller.company_id
            other = body.company_other
            if other == me:
                raise ServiceError.out_of_range("company_other: must be another company")
            if not self._company_exists(other):
                raise ServiceError.out_of_range("company_other: unknown company")
            self._check_pool_name(me, other, body.pool_name, "pool_name")
            check_margin_params(body.creator_params, "creator_params")
            check_margin_params(body.other_params, "other_params")
            pool_id = self.store.new_id()
            created_at = ms_to_timestamp(now)
            pool: dict[str, Any] = {
                "pool_id": pool_id,
                "created_at": created_at,
                "company_creator": me,
                "status": SettlementPoolStatus.PENDING.value,
                "address": pool_address(pool_id),
                "name": body.pool_name,
                "confirmed_by_transaction_id": None,
                "creator_params": body.creator_params.model_dump(mode="json"),
                "other_params": body.other_params.model_dump(mode="json"),
                "parties": [
                    {
                        "company": company,
                        "created_at": created_at,
                        "status": PartyStatus.PENDING.value,
                        "confirmed_by_transaction_id": None,
                    }
                    for company in (me, other)
                ],
                "error": None,
            }
            self.clearing.insert_pool(pool, now)
            return self.views.pool(pool, me)

    # -- transfers ----------------------------------------------------------------------------

    def transfers(
        self,
        caller: Caller,
        *,
        limit: int,
        offset: int,
        pool: str | None = None,
        id: str | None = None,
    ) -> PageSlice[Transfer]:
        """The caller's deposits and withdrawals (its clearing deposits too), oldest first."""
        rows, more = self._company_rows("transfers", caller, limit, offset, pool=pool, id=id)
        return PageSlice([Transfer.model_validate(r) for r in rows], more)

    def transfers_new(self, caller: Caller, body: NewTransferRequest) -> Transfer:
        """A USDC deposit into, or withdrawal from, a pool; it confirms one block later."""
        with self._write() as now:
            me = caller.company_id
            if body.asset != USDC:
                raise ServiceError.out_of_range("asset: only USDC can be transferred")
            pool = self._visible_pool(caller, body.target_pool_location)
            if pool is None:
                raise ServiceError.not_found("target_pool_location: pool")
            if pool["status"] != SettlementPoolStatus.OPEN:
                raise ServiceError.conflict(
                    f"target_pool_location: the pool is {pool['status']}, not open"
                )
            if body.counterparty != other_party(pool, me):
                raise ServiceError.out_of_range(
                    "counterparty: must be the other company of the pool"
                )
            qty = body.qty
            if qty > MAX_TRANSFER:
                raise ServiceError.out_of_range(f"qty: at most {format(MAX_TRANSFER, 'f')}")
            if qty != qty.quantize(Decimal("0.000001")):
                raise ServiceError.out_of_range("qty: at most 6 decimal places (USDC)")
            if body.transfer_type == TransferType.DEPOSIT:
                wallet = self.chain.wallet(me)
                self.chain.spend_allowance(wallet.address, pool["address"], qty)
                self.chain.move_wallet_usdc(me, -qty)
            else:
                reserved, incoming = self.clearing.reserved_for(pool["pool_id"], me)
                withdrawable = self.portfolio.max_withdrawable(
                    pool["pool_id"], me, party_params(pool, me), reserved, incoming
                )
                if qty > withdrawable:
                    raise ServiceError.out_of_range(
                        f"qty: at most {format(withdrawable, 'f')} USDC can be withdrawn from "
                        "this pool now (margin of open positions and of trades still clearing "
                        "stays in)"
                    )
                self.portfolio.move_balance(pool["pool_id"], me, -qty)
            transfer_id = self.store.new_id()
            data = {
                "id": transfer_id,
                "rfq_id": None,
                "parent_quote_id": None,
                "created_at": ms_to_timestamp(now),
                "company": me,
                "counterparty": body.counterparty,
                "qty": format(qty, "f"),
                "asset": USDC,
                "target_pool_location": pool["pool_id"],
                "transfer_type": str(body.transfer_type),
                "status": TransferStatus.PENDING.value,
                "confirmed_by_transaction_id": None,
            }
            self.store.insert(
                "transfers",
                {
                    "id": transfer_id,
                    "company_id": me,
                    "pool_id": pool["pool_id"],
                    "status": TransferStatus.PENDING.value,
                    "data": data,
                },
            )
            self.store.add_timer(self.chain.confirm_at(now), "transfer_confirm", transfer_id)
            return Transfer.model_validate(data)

    def _confirm_transfer(self, transfer_id: str) -> None:
        data = self.store.data("transfers", "id = ?", (transfer_id,))
        if data is None or data["status"] != TransferStatus.PENDING:
            return
        qty = Decimal(data["qty"])
        if data["transfer_type"] == TransferType.DEPOSIT:
            self.portfolio.move_balance(data["target_pool_location"], data["company"], qty)
        else:
            self.chain.move_wallet_usdc(data["company"], qty)
        data["status"] = TransferStatus.CONFIRMED.value
        data["confirmed_by_transaction_id"] = self.chain.new_tx_id()
        self.store.update("transfers", "id", transfer_id, {"status": data["status"], "data": data})

    def _fail_transfer(self, transfer_id: str) -> None:
        """A pending transfer that could not confirm: ``failed``, its money back where it was."""
        data = self.store.data("transfers", "id = ?", (transfer_id,))
        if data is None or data["status"] != TransferStatus.PENDING:
            return
        qty = Decimal(data["qty"])
        if data["transfer_type"] == TransferType.DEPOSIT:
            self.chain.move_wallet_usdc(data["company"], qty)
        else:
            self.portfolio.move_balance(data["target_pool_location"], data["company"], qty)
        data["status"] = TransferStatus.FAILED.value
        self.store.update("transfers", "id", transfer_id, {"status": data["status"], "data": data})

    def transfers_permit_template(self, caller: Caller, body: PermitTemplateRequest) -> dict:
        """The EIP-712 ERC-2612 permit for a pool of the caller to spend its wallet's USDC."""
        self._read()
        pool = self._pool_by_address(caller, body.pool_address)
        if pool is None:
            raise ServiceError.not_found("pool_address: pool")
        wallet = self.chain.wallet(caller.company_id)
        deadline = self.clock.now_ms() // 1000 + body.seconds_until_expiry
        return self.chain.permit_template(
            wallet.address, pool["address"], allowance_units(body.allowance), deadline
        )

    def _pool_by_address(self, caller: Caller, address: str) -> dict[str, Any] | None:
        me = caller.company_id
        row = self.store.one(
            "SELECT data FROM pools WHERE address = ? AND (creator = ? OR other = ?) "
            "AND status != ?",
            (address.lower(), me, me, SettlementPoolStatus.CANCELED.value),
        )
        return None if row is None else dict(json.loads(row[0]))

    def transfers_permit(self, caller: Caller, body: SubmitPermitRequest) -> bool:
        """Submit a signed permit: the pool address may then spend up to its value."""
        with self._write() as now:
            grant = self.chain.verify_permit(body.message, body.signature)
            wallet = self.chain.wallet(caller.company_id)
            if grant.owner != wallet.address:
                raise ServiceError.forbidden(
                    "message.message.owner: permits are accepted only from your company's wallet"
                )
            if self._pool_by_address(caller, grant.spender) is None:
                raise ServiceError.not_found("message.message.spender: pool")
            if grant.deadline <= now // 1000:
                raise ServiceError.out_of_range("message.message.deadline: the permit expired")
            expected = self.chain.nonce(grant.owner)
            if grant.nonce != expected:
                raise ServiceError.conflict(
                    f"message.message.nonce: expected nonce {expected} (a permit is used once)"
                )
            self.chain.use_permit(grant)
            self.clearing.allowance_changed(grant.owner, grant.spender, now)
        return True

    # -- utility ------------------------------------------------------------------------------

    def status(self, caller: Caller | None) -> Status:
        """The caller's identity (null when anonymous) and the server time in ms."""
        self.tick()
        auth = None
        if caller is not None:
            auth = AuthInfo(key_id=caller.key_id, company_id=caller.company_id, role=caller.role)
        return Status(auth=auth, server_timestamp_ms=self.clock.now_ms())

    def supported_assets(
        self, *, verified: bool | None = None
    ) -> dict[str, list[SupportedAssetDetails]]:
        """Token metadata of every listed underlying and of USDC, keyed by ticker."""
        return self.market.supported_assets(verified)

    def market_stats(self) -> MarketStats:
        """The public statistics record, from the trades, positions and pools in the store.

        Volume counts each booked leg once (its taker side) at ``qty x underlying price`` at
        booking. Open interest is measured on the takers' side, as a venue whose makers are
        liquidity providers reports it: the USDC notional (``|taker qty| x underlying mark``)
        of what takers hold long and short. Counting both sides of every pool instead would
        make long always equal short and the funding rate, which feeds on their imbalance,
        always zero.
        """
        from tui.sandbox.market.model import MarketActivity

        self._read()
        now = self.clock.now_ms()
        volume_24h: dict[str, Decimal] = {}
        for row in self.store.all(
            "SELECT underlying, notional FROM trades WHERE role = 'taker' AND created_ms > ?",
            (now - _DAY_MS,),
        ):
            volume_24h[row[0]] = volume_24h.get(row[0], _ZERO) + Decimal(row[1])
        cumulative = sum(
            (
                Decimal(r[0])
                for r in self.store.all("SELECT notional FROM trades WHERE role = 'taker'")
            ),
            _ZERO,
        )
        long_oi: dict[str, Decimal] = {}
        short_oi: dict[str, Decimal] = {}
        marks: dict[str, Decimal] = {}
        for row in self.store.all("SELECT underlying, taker_qty FROM positions"):
            underlying, qty = row[0], Decimal(row[1])
            if underlying not in marks:
                marks[underlying] = self.market.mark_price(underlying)
            if qty == 0:
                continue
            book = long_oi if qty > 0 else short_oi
            book[underlying] = book.get(underlying, _ZERO) + abs(qty) * marks[underlying]
        activity = MarketActivity(
            volume_24h=volume_24h,
            cumulative_volume=cumulative,
            long_open_interest=long_oi,
            short_open_interest=short_oi,
            pool_balances=self.portfolio.total_pool_balances(),
        )
        return self.market.stats(activity)
