"""Request bodies as the contract types them: the client's rule, and the venue's (issue 10).

The sandbox decodes every POST body with these models, so each refusal here is also a 400 from
the venue naming the field: a JSON number where a decimal string is due, a boolean or a string
where an integer is due, initial margin below maintenance, a blank pool name. A request key that
is optional may come as JSON null, meaning "left out". Requests built in Python from `Decimal`
values (as the desk builds them) keep working.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from tests.api.kit import records as rec
from tui.api.models import (
    CreateNewPool,
    DecimalAllowance,
    LegInput,
    NewRfqRequest,
    NewSettlementPoolRequest,
    NewTransferRequest,
    PermitTemplateRequest,
    SimpleAssetInput,
    UseExistingPool,
)
from tui.api.types import RequestDecimalStr, format_timestamp

D = Decimal


class _Amount(BaseModel):
    amount: RequestDecimalStr


def _locations(exc: ValidationError) -> set[tuple[int | str, ...]]:
    return {tuple(error["loc"]) for error in exc.errors()}


def _rfq_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "structure": {"legs": [{"side": "buy", "ratio": 1, "instrument": rec.PERP}]},
        "qty": "1",
        "expires_at": "2030-01-01T00:00:00Z",
        "target_companies": [rec.MAKER],
    }
    body.update(changes)
    return body


def _pool_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "pool_name": "DESK-ALPHA 2",
        "company_other": rec.MAKER,
        "creator_params": rec.MARGIN_PARAMS,
        "other_params": rec.MARGIN_PARAMS,
    }
    body.update(changes)
    return body


# -- decimals are strings ----------------------------------------------------------------------


@pytest.mark.parametrize("number", [1.5, 1, 10**30, 1e300, True, 0])
def test_a_json_number_where_a_decimal_string_is_due_is_refused(number: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        _Amount.model_validate({"amount": number})
    (error,) = caught.value.errors()
    assert error["loc"] == ("amount",)
    assert "decimal string" in str(error["msg"])
    # A type error: the sandbox answers 400/1000 (wrong type), not 1001 (out of range).
    assert str(error["type"]).endswith("_type")


def test_a_request_qty_as_a_json_number_is_refused_naming_it() -> None:
    with pytest.raises(ValidationError) as caught:
        NewRfqRequest.model_validate(_rfq_body(qty=1.5))
    assert _locations(caught.value) == {("qty",)}


def test_requests_built_from_decimals_keep_working() -> None:
    request = NewTransferRequest(
        qty=D("10.5"),
        target_pool_location=rec.POOL_ID,
        counterparty=rec.MAKER,
        transfer_type="deposit",
    )
    assert request.to_wire()["qty"] == "10.5"
    assert DecimalAllowance(value=D(500)).value == D(500)
    assert NewRfqRequest.model_validate(_rfq_body(qty="2.5")).qty == D("2.5")


# -- integers are integers ---------------------------------------------------------------------


@pytest.mark.parametrize("ratio", [True, "1_000", "2", 2.0])
def test_a_leg_ratio_must_be_a_json_integer(ratio: Any) -> None:
    legs = [{"side": "buy", "ratio": ratio, "instrument": rec.PERP}]
    with pytest.raises(ValidationError) as caught:
        NewRfqRequest.model_validate(_rfq_body(structure={"legs": legs}))
    assert _locations(caught.value) == {("structure", "legs", 0, "ratio")}


@pytest.mark.parametrize("seconds", [True, "60", "1_000", 60.0])
def test_permit_validity_must_be_a_json_integer(seconds: Any) -> None:
    with pytest.raises(ValidationError) as caught:
        PermitTemplateRequest.model_validate(
            {
                "pool_address": rec.POOL_ADDRESS,
                "allowance": {"type": "decimal", "value": "5"},
                "seconds_until_expiry": seconds,
            }
        )
    assert _locations(caught.value) == {("seconds_until_expiry",)}


def test_a_funding_interval_must_be_a_json_integer() -> None:
    legs = [{"side": "buy", "instrument": dict(rec.PERP, funding_interval_s=True)}]
    with pytest.raises(ValidationError) as caught:
        NewRfqRequest.model_validate(_rfq_body(structure={"legs": legs}))
    (location,) = _locations(caught.value)
    assert location[:4] == ("structure", "legs", 0, "instrument")
    assert location[-1] == "funding_interval_s"


# -- margin and pool names ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("initial", "maintenance"),
    [
        ("futures_initial_margin", "futures_maintenance_margin"),
        ("option_initial_margin", "option_maintenance_margin"),
    ],
)
def test_initial_margin_below_maintenance_is_refused(initial: str, maintenance: str) -> None:
    asset = dict(rec.SIMPLE_ASSET, **{initial: "0.04", maintenance: "0.05"})
    with pytest.raises(ValidationError) as caught:
        SimpleAssetInput.model_validate(asset)
    assert initial in str(caught.value) and maintenance in str(caught.value)
    params = copy.deepcopy(rec.MARGIN_PARAMS)
    params["params"]["default_asset_param"] = asset
    with pytest.raises(ValidationError) as caught:
        NewSettlementPoolRequest.model_validate(_pool_body(other_params=params))
    assert all(loc[0] == "other_params" for loc in _locations(caught.value))
    # Equal is allowed: initial margin at maintenance margin.
    SimpleAssetInput.model_validate(
        dict(rec.SIMPLE_ASSET, **{initial: "0.05", maintenance: "0.05"})
    )


@pytest.mark.parametrize("name", [" ", "   ", "\u3000", " \u00a0 "])
def test_a_blank_pool_name_is_refused(name: str) -> None:
    with pytest.raises(ValidationError) as caught:
        NewSettlementPoolRequest.model_validate(_pool_body(pool_name=name))
    assert _locations(caught.value) == {("pool_name",)}
    with pytest.raises(ValidationError):
        CreateNewPool(name=name, creator_params=rec.MARGIN_PARAMS, other_params=rec.MARGIN_PARAMS)
    assert NewSettlementPoolRequest.model_validate(_pool_body(pool_name=" a ")).pool_name == " a "


# -- null means left out -----------------------------------------------------------------------


def test_an_optional_request_key_sent_as_null_means_left_out() -> None:
    template = PermitTemplateRequest.model_validate(
        {
            "pool_address": rec.POOL_ADDRESS,
            "allowance": {"type": "decimal", "value": "5"},
            "seconds_until_expiry": None,
        }
    )
    assert template.seconds_until_expiry == 60
    legs = [
        {"side": "buy", "ratio": None, "instrument": dict(rec.PERP, funding_interval_s=None)},
        {"side": "sell", "instrument": dict(rec.OPTION, exercise=None)},
    ]
    rfq = NewRfqRequest.model_validate(_rfq_body(structure={"legs": legs}))
    first, second = rfq.structure.legs
    assert first.ratio == 1 and isinstance(first, LegInput)
    assert getattr(first.instrument, "funding_interval_s", None) == 3600
    assert getattr(second.instrument, "exercise", None) == "european"
    transfer = NewTransferRequest.model_validate(
        {
            "asset": None,
            "qty": "1",
            "target_pool_location": rec.POOL_ID,
            "counterparty": rec.MAKER,
            "transfer_type": "deposit",
        }
    )
    assert transfer.asset == "USDC"
    strategy = UseExistingPool.model_validate({"strategy": "use_existing", "pool_id": rec.POOL_ID})
    assert strategy.pool_id == rec.POOL_ID


def test_a_required_request_key_sent_as_null_is_still_refused() -> None:
    with pytest.raises(ValidationError) as caught:
        NewRfqRequest.model_validate(_rfq_body(qty=None))
    assert _locations(caught.value) == {("qty",)}
    legs = [{"side": None, "instrument": rec.PERP}]
    with pytest.raises(ValidationError) as caught:
        NewRfqRequest.model_validate(_rfq_body(structure={"legs": legs}))
    assert _locations(caught.value) == {("structure", "legs", 0, "side")}


# -- the venue's rule too: through the sandbox ---------------------------------------------------


def _raw_rfq(sandbox: Any, **changes: Any) -> dict[str, Any]:
    expires = format_timestamp(sandbox.clock.now() + timedelta(seconds=300))
    return _rfq_body(expires_at=expires, target_companies=[sandbox.company_ids["ALPHA"]], **changes)


def test_the_sandbox_refuses_wrong_json_types_naming_the_field(sandbox: Any) -> None:
    refused = sandbox.request("POST", "/v1/rfqs/new", json_body=_raw_rfq(sandbox, qty=1.5))
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == 1000
    assert "qty" in refused.json()["error"]["message"]

    legs = [{"side": "buy", "ratio": True, "instrument": rec.PERP}]
    refused = sandbox.request(
        "POST", "/v1/rfqs/new", json_body=_raw_rfq(sandbox, structure={"legs": legs})
    )
    assert refused.status_code == 400
    assert "structure.legs.0.ratio" in refused.json()["error"]["message"]

    blank = _pool_body(pool_name="  ", company_other=sandbox.company_ids["BORE"])
    refused = sandbox.request("POST", "/v1/settlement_pools/new", json_body=blank)
    assert refused.status_code == 400
    assert "pool_name" in refused.json()["error"]["message"]


def test_the_sandbox_takes_null_for_an_optional_key(sandbox: Any) -> None:
    pools = sandbox.request("GET", "/v1/settlement_pools").json()["result"]
    address = next(p["data"]["address"] for p in pools if p["data"] and p["data"]["address"])
    answer = sandbox.request(
        "POST",
        "/v1/transfers/permit/template",
        json_body={
            "pool_address": address,
            "allowance": {"type": "decimal", "value": "5"},
            "seconds_until_expiry": None,
        },
    )
    assert answer.status_code == 200, answer.text
    deadline = answer.json()["result"]["message"]["deadline"]
    assert deadline == sandbox.clock.now_ms() // 1000 + 60
    legs = [{"side": "buy", "ratio": None, "instrument": rec.PERP}]
    answer = sandbox.request(
        "POST",
        "/v1/rfqs/new",
        json_body=_raw_rfq(sandbox, structure={"legs": legs}),
    )
    assert answer.status_code == 200, answer.text
