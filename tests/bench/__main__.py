"""Run every benchmark of ``tests/bench`` in turn: ``python -m tests.bench [NAME ...]``.

Each ``bench_*.py`` runs as its own process (``python tests/bench/bench_NAME.py``), one after
the other (they measure ratios against baselines of the same run, so they must not overlap),
and prints its own figures under a heading. Names pick some (``python -m tests.bench paging
imports``); ``--list`` shows them. The exit status is the number of benchmarks that failed.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def benchmarks() -> dict[str, Path]:
    """Every benchmark script, by its short name (``bench_paging.py`` is ``paging``)."""
    return {path.stem.removeprefix("bench_"): path for path in sorted(HERE.glob("bench_*.py"))}


def main(argv: list[str]) -> int:
    """Run the named benchmarks (all by default); the number that failed."""
    known = benchmarks()
    if "--list" in argv:
        print("\n".join(known))
        return 0
    unknown = [name for name in argv if name not in known]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(known)}")
        return 2
    failed = 0
    for name in argv or list(known):
        print(f"== {name} ({known[name].relative_to(HERE.parents[1])})", flush=True)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, str(known[name])], cwd=HERE.parents[1])  # noqa: S603
        failed += done.returncode != 0
        print(f"== {name}: exit {done.returncode}, {time.perf_counter() - started:.0f} s\n")
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
