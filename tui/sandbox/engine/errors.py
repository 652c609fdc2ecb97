"""The sandbox's one exception type: a refusal that becomes ``{"error": {code, message}}``."""

from __future__ import annotations

from tui.api.models import ErrorCode


class ServiceError(Exception):
    """A request the exchange refuses; the HTTP layer turns it into the error envelope.

    ``message`` is shown to API callers: it names the offending field and never carries a
    secret, a stack trace or another company's data.
    """

    def __init__(self, code: ErrorCode, message: str, *, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.headers = headers or {}

    @property
    def http_status(self) -> int:
        """The HTTP status of this refusal."""
        return self.code.http_status

    @classmethod
    def bad_request(cls, message: str) -> ServiceError:
        """400/1000: malformed JSON, wrong type, missing key, bad query parameter."""
        return cls(ErrorCode.BAD_REQUEST, message)

    @classmethod
    def out_of_range(cls, message: str) -> ServiceError:
        """400/1001: a well-formed value the exchange will not take."""
        return cls(ErrorCode.OUT_OF_RANGE, message)

    @classmethod
    def forbidden(cls, message: str) -> ServiceError:
        """403/2002: the key may not do this."""
        return cls(ErrorCode.FORBIDDEN, message)

    @classmethod
    def not_found(cls, what: str) -> ServiceError:
        """404/3000: no such record *for this caller* (another company's looks the same)."""
        return cls(ErrorCode.NOT_FOUND, f"{what} not found")

    @classmethod
    def conflict(cls, message: str) -> ServiceError:
        """409/4000: the record is not in a state that allows this."""
        return cls(ErrorCode.CONFLICT, message)
