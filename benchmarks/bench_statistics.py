"""What the uncertainty of Tables 2-3 and the section 3.3 check cost in the main job.

Run: ``.venv/bin/python benchmarks/bench_statistics.py [PACKAGE]`` after ``dmbench reproduce``
(PACKAGE defaults to the current directory; the sources are found as ``dmbench`` finds them).
Prints the best of three timings of each piece the statistics added to the tables and errata
stages; the rest of those stages is unchanged.
"""

from __future__ import annotations

import sys
import time

from dmbench.core import paths
from dmbench.metrics import PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.sources.study import study_pairs
from dmbench.tables.agreement import published_rows, study_claims
from dmbench.tables.comparisons import compare_cells
from dmbench.tables.results import aggregate, run_summaries
from dmbench.tables.statistics import RESAMPLES, resample_counts, sign_patterns


def best_of(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        resample_counts.cache_clear()
        sign_patterns.cache_clear()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    package = paths.package_dir(sys.argv[1] if len(sys.argv) > 1 else None)
    sources = paths.default_sources_dir(package)
    summaries = {
        metric: run_summaries(package, metric, source)[0]
        for metric, source in ((PUBLISHED_METRIC, "published"), (STANDARD_METRIC, "recomputed"))
    }
    rows = {metric: aggregate(s, metric) for metric, s in summaries.items()}
    pairs = study_pairs(sources)

    def study() -> None:
        table, published = published_rows(sources, pairs)
        study_claims(table, published, pairs)

    timings = {
        "cell intervals + aggregate, both metrics": lambda: [
            aggregate(s, m) for m, s in summaries.items()
        ],
        "comparisons, both metrics": lambda: [compare_cells(r) for r in rows.values()],
        "study rows (5 published metrics) + claims": study,
    }
    print(f"{RESAMPLES:,} resamples")
    for name, work in timings.items():
        print(f"{name:>45}: {best_of(3, work):6.3f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
