"""Stage times of the main job (``dmbench reproduce``) on a fresh package in a temporary folder.

Run: ``.venv/bin/python benchmarks/bench_reproduce.py [--sources DIR] [--workers N]``. Prints one
line per stage with its seconds, the metric computations the stage did and the total, so that
a change to the pipeline can be measured before and after on the same machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from dmbench.core import paths
from dmbench.flows.reproduce import reproduce
from dmbench.metrics import scoring


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args()
    sources = args.sources or paths.default_sources_dir()
    computed = [0]
    original = scoring.score_benchmark

    def counting(*pair, **options):
        computed[0] += 1
        return original(*pair, **options)

    scoring.score_benchmark = counting  # counts pairs scored in this process (workers=1)
    with tempfile.TemporaryDirectory(prefix="dmbench-bench-") as root:
        package = Path(root) / "package"
        package.mkdir()
        started = time.perf_counter()
        for stage in reproduce(
            package, sources, package / "results", package / "errata.md", args.workers
        ):
            print(
                f"{stage.name:<8} {stage.seconds:7.1f} s  pairs scored {computed[0]:5d}  "
                f"{'ok' if stage.ok else 'FAILED'}"
            )
            computed[0] = 0
        print(f"total    {time.perf_counter() - started:7.1f} s")


if __name__ == "__main__":
    main()
