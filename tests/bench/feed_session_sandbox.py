"""The sandbox of `bench_feed_session`, counting every 429 it sends (on demand only).

``python tests/bench/feed_session_sandbox.py DB CREDENTIALS COUNTS`` serves the sandbox as
``rfq-desk sandbox --db DB --credentials CREDENTIALS`` would (simulated makers and takers on,
the seeded day of history, the interface's 100-token budget, any free loopback port), prints
the same ready line, and stops on SIGTERM. On its way out it writes COUNTS: the refusals of
each of its three limits, by who was refused, as JSON::

    {"company": {"<company id>": 0}, "anonymous": {"127.0.0.1": 0}, "stats": {...}}

The limits themselves are untouched: each one's refusing method is wrapped to count the
`ServiceError` (429/5000) it raises on its way out, so a benchmark can say how many 429s the
venue gave, whatever the clients believe they met.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tui.sandbox.engine.errors import ServiceError  # noqa: E402
from tui.sandbox.http import limits  # noqa: E402
from tui.sandbox.run import SandboxOptions, run_sandbox  # noqa: E402

REFUSED: dict[str, Counter[str]] = {
    "company": Counter(),
    "anonymous": Counter(),
    "stats": Counter(),
}
"""Refusals so far, per limit, by company id or client address."""


def _counting(limit: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method`` (whose first argument after self is who is charged), counting its 429s."""

    @wraps(method)
    def counted(self: Any, who: str, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, who, *args, **kwargs)
        except ServiceError:
            REFUSED[limit][who] += 1
            raise

    return counted


def count_refusals() -> None:
    """Wrap the refusing method of each of the sandbox's limits (see module docs)."""
    meter = limits.CompanyTokenMeter
    meter.charge = _counting("company", meter.charge)  # type: ignore[method-assign]
    anonymous = limits.AnonymousLimiter
    anonymous.admit = _counting("anonymous", anonymous.admit)  # type: ignore[method-assign]
    stats = limits.StatsLimiter
    stats.admit = _counting("stats", stats.admit)  # type: ignore[method-assign]


def main(argv: list[str]) -> int:
    """Serve until SIGTERM, then write the counts; the sandbox's exit code."""
    db, credentials, counts = (Path(arg) for arg in argv)
    count_refusals()
    options = SandboxOptions(db=db, credentials=credentials, exit_with_parent=True)
    try:
        return run_sandbox(options)
    finally:
        counts.write_text(json.dumps({k: dict(v) for k, v in REFUSED.items()}), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
