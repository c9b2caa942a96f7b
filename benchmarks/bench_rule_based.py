"""Time the rule_based candidate on the 53 benchmark records (issue 5: median <= 0.05 s).

Run from the checkout: ``.venv/bin/python benchmarks/bench_rule_based.py [--sources DIR]``.
Model loading is timed on its own; per-record times are the candidate's ``elapsed_seconds``
(own work plus an even share of its batch's parsing), on a cold cardinality cache. These are
wall-clock times, so other load on the machine inflates them; the CPU time of this process is
printed beside them to tell the two apart.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from dmbench.candidates import Record
from dmbench.candidates.rule_based import RuleBasedCandidate
from dmbench.core import paths
from dmbench.sources.records import records_from_sources


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, default=None, help="upstream sources directory")
    args = parser.parse_args()
    sources = args.sources or paths.default_sources_dir()
    records = [Record(r.record_id, r.text) for r in records_from_sources(sources)]

    candidate = RuleBasedCandidate()
    started = time.perf_counter()
    model = candidate.model
    load = time.perf_counter() - started
    if model is None:
        raise SystemExit(candidate.check())

    started, cpu_started = time.perf_counter(), time.process_time()
    outputs = list(candidate.generate_many(records))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    times = [o.elapsed_seconds for o in outputs]

    print(f"spaCy {model.spacy_version}, {model.package} {model.version}")
    print(f"model load: {load:.2f} s")
    print(f"records: {len(records)} ({sum(o.failed for o in outputs)} failed)")
    print(f"per record: median {statistics.median(times):.3f} s, mean {statistics.mean(times):.3f} s")
    print(f"wall: {wall:.2f} s ({wall / len(records):.3f} s per record)")
    print(f"cpu: {cpu:.2f} s ({cpu / len(records):.3f} s per record)")


if __name__ == "__main__":
    main()
