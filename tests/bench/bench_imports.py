"""Benchmark of import times (issue 11; on demand only): the client and the desk vs their libraries.

Run either way:

    python tests/bench/bench_imports.py [--runs N]
    python -m pytest tests/bench/bench_imports.py -s

Each statement runs in a fresh interpreter as ``python -X importtime -c STATEMENT``, with
bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed; caches in a temporary
``PYTHONPYCACHEPREFIX``, so nothing is written into the tree; the first run of each fills it and
is not counted). A statement's import time is the sum of the cumulative times of the top-level
imports it made, leaving out what the interpreter imports before running any statement (the
modules of ``-c pass``). Medians of ``--runs`` runs (default 9), runs interleaved:

- ``from tui.api.client import ServiceClient`` against ``import httpx, pydantic`` (what the
  client is built on; the package itself loads its rooms on first use, so a bare
  ``import tui.api.client`` costs next to nothing);
- ``import tui.desk.app`` against ``import textual.app``.

Issue 11's targets: at most x1.3 and x1.5 of the baseline. Also printed: the ten modules of
the project's statement whose own (self) import time is largest, and the libraries the
statement imports that its baseline does not, by cumulative time: where to look first.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PAIRS = (
    ("from tui.api.client import ServiceClient", "import httpx, pydantic", 1.3),
    ("import tui.desk.app", "import textual.app", 1.5),
)
"""Statement, its baseline, issue 11's target ratio."""


@dataclass(frozen=True)
class ImportLine:
    """One line of ``-X importtime``: the module, its nesting depth, self and cumulative µs."""

    module: str
    depth: int
    self_us: int
    cumulative_us: int


def parse_importtime(stderr: str) -> list[ImportLine]:
    """The lines of ``-X importtime`` output, in the order the interpreter printed them."""
    lines = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = line[len("import time:") :].split("|", 2)
        depth = (len(name) - len(name.lstrip(" ")) - 1) // 2
        lines.append(ImportLine(name.strip(), depth, int(self_us), int(cumulative_us)))
    return lines


def _importtime(statement: str, env: dict[str, str]) -> list[ImportLine]:
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-X", "importtime", "-c", statement],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return parse_importtime(done.stderr)


def statement_us(lines: list[ImportLine], startup: set[str]) -> int:
    """Microseconds the statement's own top-level imports took (startup modules left out)."""
    return sum(
        line.cumulative_us for line in lines if line.depth == 0 and line.module not in startup
    )


@dataclass
class Timing:
    """Every run's µs of one statement, and every run's lines."""

    runs: list[int]
    lines: list[list[ImportLine]]

    @property
    def median_ms(self) -> float:
        """The median, in milliseconds."""
        return statistics.median(self.runs) / 1000

    @property
    def best_ms(self) -> float:
        """The fastest run, in milliseconds (the least disturbed by a busy machine)."""
        return min(self.runs) / 1000

    def median_lines(self) -> list[ImportLine]:
        """Each module once, its self and cumulative µs the medians over the runs."""
        by_module: dict[str, list[ImportLine]] = {}
        for run in self.lines:
            for line in run:
                by_module.setdefault(line.module, []).append(line)
        return [
            ImportLine(
                module,
                seen[0].depth,
                int(statistics.median(line.self_us for line in seen)),
                int(statistics.median(line.cumulative_us for line in seen)),
            )
            for module, seen in by_module.items()
        ]


def measure(runs: int) -> dict[str, Timing]:
    """Import times of every statement of `PAIRS`, ``runs`` each (after one uncounted run)."""
    statements = [s for pair in PAIRS for s in pair[:2]]
    with tempfile.TemporaryDirectory(prefix="rfq-imports-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = tmp
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        startup = {line.module for line in _importtime("pass", env)}
        timings = {s: Timing([], []) for s in statements}
        for run in range(runs + 1):
            for statement in statements:
                lines = _importtime(statement, env)
                if run:
                    timings[statement].runs.append(statement_us(lines, startup))
                    timings[statement].lines.append(lines)
    return timings


def _heaviest(project: list[ImportLine], baseline: list[ImportLine]) -> list[str]:
    """The project's own slowest modules (median self time) and the libraries the baseline
    lacks (median cumulative time)."""
    own = sorted(
        (line for line in project if line.module.startswith("tui")),
        key=lambda line: line.self_us,
        reverse=True,
    )
    rows = [f"    {line.self_us / 1000:7.1f} ms self  {line.module}" for line in own[:10]]
    known = {line.module.split(".")[0] for line in baseline}
    extra: dict[str, int] = {}
    for line in project:
        top = line.module.split(".")[0]
        if line.module == top and top not in known and top != "tui":
            extra[top] = max(extra.get(top, 0), line.cumulative_us)
    for name, micros in sorted(extra.items(), key=lambda item: item[1], reverse=True)[:8]:
        rows.append(f"    {micros / 1000:7.1f} ms cumulative  {name} (not in the baseline)")
    return rows


def report(timings: dict[str, Timing]) -> str:
    """Each statement against its baseline: medians, ratio, target, every run, where to look."""
    lines = []
    for statement, baseline, target in PAIRS:
        mine, base = timings[statement], timings[baseline]
        ratio = mine.median_ms / base.median_ms
        verdict = "within" if ratio <= target else "OVER"
        lines.append(
            f"{statement:<24} {mine.median_ms:7.1f} ms   {baseline:<24} {base.median_ms:7.1f} ms"
            f"   x{ratio:.2f}  (target <= x{target:g}: {verdict};"
            f" best runs x{mine.best_ms / base.best_ms:.2f})"
        )
        for name, timing in ((statement, mine), (baseline, base)):
            runs = " ".join(f"{us / 1000:.1f}" for us in timing.runs)
            lines.append(f"    runs of {name!r}: {runs}")
        lines.extend(_heaviest(mine.median_lines(), base.median_lines()))
    return "\n".join(lines)


@pytest.mark.bench
def test_bench_imports() -> None:
    """The benchmark as a pytest run (prints its figures with ``-s``; no timed assertion)."""
    timings = measure(9)
    print()
    print(report(timings))
    assert all(timing.runs for timing in timings.values())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="counted runs of each (median)")
    print(report(measure(parser.parse_args().runs)))
