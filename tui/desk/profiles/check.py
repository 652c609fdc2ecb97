"""Check a venue profile before it is saved: does the venue answer, whose key is this, and is
this machine's clock close enough to the venue's?

`check_credentials` asks ``GET /v1/status`` three ways: unsigned (is anything there, and what
time does the venue keep), signed on the venue's time (whose key: company and role), and, when
the venue refuses the key, a signed call that the venue refuses in words, so the trader reads
the venue's own reason. The venue answers an unknown key and a wrong secret alike on purpose
(telling them apart would tell a stranger which keys exist), so the check says exactly that;
what it can tell apart locally (a secret that is not hex, an empty key) it names by field.

A clock more than the venue's 5 s window away from the venue's is named with its size: the
desk signs on the venue's time (`tui.api.clock`) and works regardless, but any other tool on
this machine would be refused, so the trader is told to set the clock right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx
from pydantic import SecretStr, ValidationError

from tui.api.endpoints import MAX_SKEW_MS
from tui.api.models import ApiErrorBody, Company, Page, Single, Status
from tui.api.signing import KEY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, sign, system_time_ms

__all__ = ["CredentialCheck", "VenueIdentity", "check_credentials"]

STATUS_PATH = "/v1/status"
COMPANIES_PATH = "/v1/companies"


@dataclass(frozen=True)
class VenueIdentity:
    """Who the venue says the key belongs to."""

    company_id: str
    key_id: str
    role: str
    short_name: str | None = None
    legal_name: str | None = None

    def describe(self) -> str:
        """``DESK (Desk Trading Ltd, c_123), writer key``: company first, then the role."""
        names = [n for n in (self.legal_name, self.company_id) if n]
        company = f"{self.short_name} ({', '.join(names)})" if self.short_name else self.company_id
        return f"{company}, {self.role} key"


@dataclass(frozen=True)
class CredentialCheck:
    """What the check found: the identity, or the one thing that was wrong, and any notes.

    ``field`` names the form field a problem is about (``base_url``, ``api_key``,
    ``api_secret``), or None when it is about the credentials as a pair. ``skew_ms`` is the
    venue's clock minus this machine's (None when the venue never answered).
    """

    identity: VenueIdentity | None = None
    problem: str = ""
    field: str | None = None
    skew_ms: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the venue accepted the key (notes may still warn)."""
        return self.identity is not None and not self.problem

    def lines(self) -> list[str]:
        """The result in words, one line each: found or wrong, then the notes."""
        head = f"found {self.identity.describe()}" if self.identity else self.problem
        return [head, *self.notes]


def _skew_note(skew_ms: int) -> str:
    direction = "behind" if skew_ms > 0 else "ahead of"
    return (
        f"clock skewed by {abs(skew_ms)} ms: this machine's clock is {direction} the venue's "
        f"(the venue allows {MAX_SKEW_MS} ms). The desk signs on the venue's time, but set "
        "this clock right (NTP)."
    )


def _local_problem(api_key: str, api_secret: SecretStr) -> CredentialCheck | None:
    if not api_key.strip():
        return CredentialCheck(problem="api_key: required", field="api_key")
    if any(c.isspace() or c == "|" for c in api_key.strip()):
        return CredentialCheck(problem="api_key: must not contain spaces or '|'", field="api_key")
    secret = api_secret.get_secret_value().strip()
    if not secret:
        return CredentialCheck(problem="api_secret: required", field="api_secret")
    try:
        bytes.fromhex(secret)
    except ValueError:
        return CredentialCheck(
            problem="api_secret: not hexadecimal (the venue gives the secret as hex digits)",
            field="api_secret",
        )
    return None


def _unreachable(base_url: str, error: httpx.HTTPError, timeout_s: float) -> CredentialCheck:
    if isinstance(error, httpx.TimeoutException):
        words = f"no answer within {timeout_s:g} s"
    elif isinstance(error, httpx.ConnectError):
        words = f"cannot connect ({error})" if str(error) else "cannot connect"
    else:
        words = f"{type(error).__name__}: {error}"
    return CredentialCheck(problem=f"venue unreachable at {base_url}: {words}", field="base_url")


class _Venue:
    """One check's HTTP conversation: the base address, the credentials, this machine's clock."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        base_url: str,
        api_key: str,
        api_secret: SecretStr,
        local_ms: Callable[[], int],
    ) -> None:
        self.http = http
        self.base_url = base_url
        self.api_key = api_key.strip()
        self.api_secret = api_secret
        self.local_ms = local_ms
        self.offset_ms = 0

    def _url(self, path: str) -> httpx.URL:
        return httpx.URL(self.base_url + path)

    async def server_time(self) -> Status | str:
        """Unsigned status: the venue's clock (sets the offset), or what is wrong with it."""
        url = self._url(STATUS_PATH)
        sent = self.local_ms()
        response = await self.http.get(url)
        received = self.local_ms()
        try:
            status = Single[Status].model_validate_json(response.content).result
        except ValidationError:
            status = None
        if response.status_code != 200 or status is None:
            return (
                f"{url} answered HTTP {response.status_code} without a venue status: not an "
                "RFQ venue's trading API (base_url is the address before /v1)"
            )
        self.offset_ms = round(status.server_timestamp_ms - (sent + received) / 2)
        return status

    async def signed_get(self, path: str) -> httpx.Response:
        """GET ``path`` signed on the venue's time."""
        url = self._url(path)
        target = url.raw_path.decode("ascii")
        stamp = self.local_ms() + self.offset_ms
        signature = sign(self.api_key, self.api_secret, stamp, "GET", target, None)
        headers = {
            TIMESTAMP_HEADER: str(stamp),
            KEY_HEADER: self.api_key,
            SIGNATURE_HEADER: signature,
        }
        return await self.http.get(url, headers=headers)

    async def identity(self) -> VenueIdentity | None:
        """Whose key this is, by signed status; None when the venue does not accept it."""
        response = await self.signed_get(STATUS_PATH)
        try:
            status = Single[Status].model_validate_json(response.content).result
        except ValidationError:
            return None
        if status.auth is None:
            return None
        auth = status.auth
        short_name = legal_name = None
        try:
            answer = await self.signed_get(f"{COMPANIES_PATH}?id={auth.company_id}")
            companies = Page[Company].model_validate_json(answer.content).result
        except (httpx.HTTPError, ValidationError):
            companies = []
        for company in companies:
            if company.id == auth.company_id:
                short_name, legal_name = company.short_name, company.legal_name
        return VenueIdentity(
            company_id=auth.company_id,
            key_id=auth.key_id,
            role=str(getattr(auth.role, "value", auth.role)),
            short_name=short_name,
            legal_name=legal_name,
        )

    async def refusal(self) -> str:
        """The venue's own words for refusing this key (a signed call it turns down)."""
        response = await self.signed_get(f"{COMPANIES_PATH}?limit=1")
        try:
            body = ApiErrorBody.model_validate(response.json().get("error"))
            said = f"{body.message} (HTTP {response.status_code}, code {body.code})"
        except (ValueError, ValidationError, AttributeError):
            said = f"HTTP {response.status_code}"
        return (
            f"the venue refused the key: {said}. Either the API key is unknown or the secret "
            "is not this key's secret (a bad signature); the venue does not say which"
        )


async def check_credentials(
    base_url: str,
    api_key: str,
    api_secret: SecretStr,
    *,
    local_ms: Callable[[], int] = system_time_ms,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout_s: float = 5.0,
) -> CredentialCheck:
    """Check a venue profile's credentials against ``GET /v1/status`` (see module docs).

    Never raises for what the venue or the network does; the secret appears in no result.
    """
    local = _local_problem(api_key, api_secret)
    base = base_url.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        return CredentialCheck(
            problem="base_url: must start with http:// or https://", field="base_url"
        )
    async with httpx.AsyncClient(timeout=timeout_s, transport=transport) as http:
        venue = _Venue(http, base, api_key, api_secret, local_ms)
        try:
            status = await venue.server_time()
        except httpx.InvalidURL as error:
            return CredentialCheck(problem=f"base_url: {error}", field="base_url")
        except httpx.HTTPError as error:
            return _unreachable(base, error, timeout_s)
        if isinstance(status, str):
            return CredentialCheck(problem=status, field="base_url")
        skew = venue.offset_ms
        notes = [_skew_note(skew)] if abs(skew) > MAX_SKEW_MS else []
        if local is not None:
            return CredentialCheck(
                problem=local.problem, field=local.field, skew_ms=skew, notes=tuple(notes)
            )
        try:
            found = await venue.identity()
            refusal = "" if found is not None else await venue.refusal()
        except httpx.HTTPError as error:
            return _unreachable(base, error, timeout_s)
    if found is not None and found.role != "writer":
        notes.append(f"a {found.role} key: the desk shows the venue but cannot trade with it")
    return CredentialCheck(identity=found, problem=refusal, skew_ms=skew, notes=tuple(notes))
