"""Benchmark of the sandbox over HTTP (on demand only; never part of the default test run).

Run either way:

    python tests/bench/bench_sandbox.py [--requests N]
    python -m pytest tests/bench -s

It starts ``rfq-desk sandbox`` in a subprocess (so the server does not share this process's GIL
with the client) with ``--token-budget`` raised far above the interface's 100 tokens per 10 s:
that flag exists for benchmarking only, since the real budget would refuse (429) all but ~100
requests per 10 s. Then, in one run, it measures:

- the baseline: unsigned ``GET /v1/status`` with raw httpx;
- the same request through `ServiceClient` (signed, budgeted, parsed into models);
- signed ``GET /v1/companies`` through `ServiceClient`, sequential and 8 in flight: the
  sandbox's signed-request throughput.

Every figure is printed with its ratio to the baseline measured in the same run, so results
compare across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tui.api.budget import TokenBudget  # noqa: E402
from tui.api.client import ServiceClient  # noqa: E402

READY = re.compile(r"^sandbox ready at (http://127\.0\.0\.1:\d+) \(credentials: (.+)\)$")
BENCH_TOKEN_BUDGET = 1_000_000_000


def start_sandbox(directory: Path) -> tuple[subprocess.Popen[str], Path]:
    """``rfq-desk sandbox`` with a benchmark-sized budget; returns the process and creds path."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [
            sys.executable,
            "-m",
            "tui",
            "sandbox",
            "--db",
            str(directory / "bench.db"),
            "--credentials",
            str(directory / "creds.json"),
            "--no-actors",
            "--token-budget",
            str(BENCH_TOKEN_BUDGET),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    match = READY.match(lines.get(timeout=60).strip())
    if match is None:
        proc.kill()
        raise RuntimeError("the sandbox did not print its ready line")
    return proc, Path(match.group(2))


async def rate(call: Callable[[], Awaitable[object]], n: int, workers: int = 1) -> float:
    """Requests per second of ``call`` over ``n`` calls spread over ``workers`` tasks."""
    for _ in range(min(50, n)):  # warm up connections, caches, adapters
        await call()
    per_worker = max(1, n // workers)

    async def worker() -> None:
        for _ in range(per_worker):
            await call()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(workers)))
    elapsed = time.perf_counter() - start
    return per_worker * workers / elapsed


async def measure(base_url: str, entry: dict[str, str], n: int) -> dict[str, float]:
    """The figures of one run, in requests per second."""
    budget = TokenBudget(BENCH_TOKEN_BUDGET)
    figures: dict[str, float] = {}
    async with (
        httpx.AsyncClient(base_url=base_url) as raw,
        ServiceClient(base_url, entry["api_key"], entry["api_secret"], budget=budget) as client,
    ):

        async def raw_status() -> object:
            response = await raw.get("/v1/status")
            response.raise_for_status()
            return response.json()

        await client.sync_clock()
        figures["raw httpx GET /v1/status (unsigned)"] = await rate(raw_status, n)
        figures["ServiceClient GET /v1/status (signed)"] = await rate(client.status, n)
        figures["ServiceClient GET /v1/companies (signed)"] = await rate(client.companies, n)
        figures["ServiceClient GET /v1/companies x8 in flight"] = await rate(
            client.companies, n, workers=8
        )
    return figures


def report(figures: dict[str, float]) -> str:
    """The figures as a table: req/s, and cost per request relative to the baseline."""
    baseline_label = next(iter(figures))
    baseline = figures[baseline_label]
    lines = [f"baseline: {baseline_label}"]
    for label, per_second in figures.items():
        lines.append(
            f"{label:<48} {per_second:>9.0f} req/s   "
            f"throughput x{per_second / baseline:.2f}   "
            f"cost per request x{baseline / per_second:.2f}"
        )
    return "\n".join(lines)


def run(n: int) -> dict[str, float]:
    """Start a sandbox, measure, stop it; returns the figures."""
    with tempfile.TemporaryDirectory() as tmp:
        proc, credentials = start_sandbox(Path(tmp))
        try:
            document = json.loads(credentials.read_text())
            entry = next(c for c in document["companies"] if c["role"] == "writer")
            return asyncio.run(measure(document["base_url"], entry, n))
        finally:
            proc.terminate()
            proc.wait(timeout=30)


@pytest.mark.bench
def test_bench_sandbox() -> None:
    """The benchmark as a pytest run (prints its table with ``-s``)."""
    figures = run(2000)
    print()
    print(report(figures))
    assert all(value > 0 for value in figures.values())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="requests per measurement")
    print(report(run(parser.parse_args().requests)))
