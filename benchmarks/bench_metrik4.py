"""Metrik-4 over the 840 golden pairs: cold (new process) and warm (second pass) wall time.

Run: ``.venv/bin/python benchmarks/bench_metrik4.py [--workers N]`` from the checkout, with
``../shared`` beside it. The pairs are scored in a fresh child process so that the cold time
includes importing dmbench and loading WordNet (with what earlier processes derived from the
NLTK data and kept in the user cache); the warm time is a second pass in that process. Both
passes are checked against the golden benchmark view.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def golden_pairs() -> tuple[list[tuple[str, str]], list[dict]]:
    """The (reference, generated) strings of every golden pair, and the expected views."""
    upstream = SHARED / "upstream"
    found = []
    benchmark = upstream / "Automated-DomainModel-Benchmark"
    for run in sorted((benchmark / "Workflow" / "Results" / "runs").glob("*.json")):
        for record in json.loads(run.read_text(encoding="utf-8"))["records"]:
            found += [record["reference"], record["generated"]]
    for corpus in sorted((benchmark / "Data").glob("*/*.json")):
        found += [record["puml"] for record in json.loads(corpus.read_text(encoding="utf-8"))]
    study = upstream / "domainModel-Metrics-Comparison" / "data" / "combined-data.json"
    for model in json.loads(study.read_text(encoding="utf-8"))["models"].values():
        found += [model["reference_plantuml"], *model["generated_plantuml"].values()]
    texts = {hashlib.sha256(t.encode("utf-8")).hexdigest(): t for t in found if isinstance(t, str)}
    with (SHARED / "golden" / "scores.jsonl").open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    pairs = [(texts[row["ref_sha256"]], texts[row["gen_sha256"]]) for row in rows]
    return pairs, [row["benchmark_view"] for row in rows]


def child(workers: int | None) -> None:
    """Score the pairs twice in this process and print the timings as one JSON line.

    The cold time runs from before ``dmbench.metrics`` is imported to the end of the first
    pass, so it includes loading NLTK, WordNet and the tagger.
    """
    pairs, expected = golden_pairs()
    started = time.perf_counter()
    from dmbench.metrics import score_benchmark_many

    passes = []
    for _ in range(2):
        scores = score_benchmark_many(pairs, workers=workers)
        passes.append(time.perf_counter() - started)
        assert [s.to_dict() for s in scores] == expected, "scores differ from the golden data"
        started = time.perf_counter()
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = {"pairs": len(pairs), "cold": passes[0], "warm": passes[1]}
    print(json.dumps(result | {"rss_kib": max(self_rss, child_rss)}))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.workers)
        return 0
    command = [sys.executable, __file__, "--child"]
    if args.workers is not None:
        command += ["--workers", str(args.workers)]
    launched = time.perf_counter()
    output = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    total = time.perf_counter() - launched
    result = json.loads(output.stdout)
    print(f"pairs          {result['pairs']}")
    print(f"cold seconds   {result['cold']:.2f}  (process start to end of first pass)")
    print(f"warm seconds   {result['warm']:.2f}  (second pass, same process)")
    cold_rate, warm_rate = result["pairs"] / result["cold"], result["pairs"] / result["warm"]
    print(f"pairs/s        {cold_rate:.1f} cold, {warm_rate:.1f} warm")
    print(f"peak RSS       {result['rss_kib'] / 1024:.0f} MiB")
    print(f"child wall     {total:.2f} s (both passes, interpreter start included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
