"""Venue refusals in words: the one mapping from a refusal's status or code to what it means.

The venue says why it refused in a message that may start with a clearing status
(``rejected_maker_last_look_rejected: ...``) or with the field it objects to
(``expires_at: must not outlive the RFQ``), and carries an HTTP status and a catalogue code.
A trader reads the words ("the maker declined at last look"); the raw status, field, HTTP
status and code go in the detail, for the support desk.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tui.api.models import ClearingStatus
from tui.desk.messages import ActionOutcome
from tui.desk.widgets.common import fmt

if TYPE_CHECKING:
    from tui.api.errors import ApiError

_CLEARING = frozenset(s.value for s in ClearingStatus)
_FIELD = re.compile(r"^[a-z_][a-z0-9_.\[\]]*$")
_PLAIN: dict[int, str] = {
    401: "the venue did not accept this desk's credentials or clock",
    403: "the venue does not allow this company to do that",
    404: "the venue does not know that record",
    429: "too many requests: the venue's request budget is spent for now",
}
"""Words for an HTTP status whose message says nothing more useful."""


def refusal_words(error: ApiError) -> tuple[str, str]:
    """A refusal as (words, detail): what it means, and the raw status, field and code."""
    message = error.message.strip()
    head, _, rest = message.partition(": ")
    raw: list[str] = []
    if head in _CLEARING:
        words = fmt.status_words(head).removeprefix("rejected: ")
        raw.append(head)
        reason = rest.partition(": ")[2] or rest
        if reason:
            raw.append(reason)
    elif rest and _FIELD.match(head):
        words = rest
        raw.append(f"field {head}")
    else:
        words = message or _PLAIN.get(error.status, "the venue refused")
    if error.status:
        raw.append(f"HTTP {error.status}")
    if error.code is not None:
        raw.append(f"code {error.code}")
    if error.endpoint:
        raw.append(error.endpoint)
    return words, " · ".join(raw)


def outcome_words(outcome: ActionOutcome) -> str:
    """Why an action failed, in words (the venue's refusal mapped; the desk's own as said)."""
    if outcome.error is not None and outcome.error.status:
        return refusal_words(outcome.error)[0]
    return outcome.problem
