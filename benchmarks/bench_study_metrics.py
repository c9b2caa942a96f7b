"""One metric over the 840 pairs of the metric-study golden file, against upstream's times.

Run: ``.venv/bin/python benchmarks/bench_study_metrics.py [--published] metrik-1 [metrik-2 ...]``
from the checkout, with ``../shared`` beside it; any registered metric with golden lines can be
named; ``--published`` keeps the 801 pairs of the published runs (the issue's figure).
Each metric is scored in a fresh child process: the import of ``dmbench.metrics`` is timed on its
own, the cold time is the first pass (every first read and memo fill), the warm time a second
pass in that process. Upstream's time is the sum of
the golden lines' ``seconds`` (wall time of ``get_metric(..).compute(ref, gen)`` per pair,
parse included, on a loaded 2-core machine; a timed-out line counts with the time it ran).
CPU time is printed beside wall time because this machine is shared: it is the steadier
number. Both passes are checked against the golden scores (within 1e-9 where upstream
succeeded, an error where upstream raised; timed-out lines are not checked).
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLDEN = SHARED / "golden" / "metrics-study.jsonl"
SCORES = ("class_score", "attribute_score", "association_score")


def golden_lines(metric: str, published: bool = False) -> list[dict]:
    """The metric's golden lines; ``published``: only the pairs of the published runs (801 of
    the 840; the rest are the 39 pairs of the study's own data set)."""
    with GOLDEN.open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [
        row
        for row in rows
        if row["metric"] == metric
        and (not published or all(source.startswith("run:") for source in row["sources"]))
    ]


def check(scores: list, rows: list[dict]) -> dict[str, int]:
    """How the benchmark view compares with the golden lines."""
    counts = {"bit_identical": 0, "within_1e-9": 0, "errors_as_upstream": 0, "not_checked": 0}
    for score, row in zip(scores, rows, strict=True):
        if row["error"] == "timeout":
            counts["not_checked"] += 1
        elif row["error"] is not None:
            assert score.error is not None, (row["sources"][0], "upstream raised", row["error"])
            counts["errors_as_upstream"] += 1
        else:
            got = [getattr(score, name) for name in SCORES]
            expected = [row[name] for name in SCORES]
            assert score.error is None, (row["sources"][0], score.error)
            assert all(math.isclose(g, e, rel_tol=0, abs_tol=1e-9) for g, e in zip(got, expected))
            counts["within_1e-9"] += 1
            counts["bit_identical"] += got == expected
    return counts


def child(metric: str, published: bool) -> None:
    """Score the pairs twice in this process and print the timings as one JSON line."""
    from dmbench.sources.published import texts_by_sha256

    rows = golden_lines(metric, published)
    texts = texts_by_sha256(SHARED / "upstream")
    pairs = [(texts[row["ref_sha256"]], texts[row["gen_sha256"]]) for row in rows]
    started, started_cpu = time.perf_counter(), time.process_time()
    from dmbench.metrics import score_benchmark_many

    passes, counts = [(time.perf_counter() - started, time.process_time() - started_cpu)], {}
    started, started_cpu = time.perf_counter(), time.process_time()
    for _ in range(2):
        scores = score_benchmark_many(pairs, metric, workers=1)
        passes.append((time.perf_counter() - started, time.process_time() - started_cpu))
        counts = check(scores, rows)
        started, started_cpu = time.perf_counter(), time.process_time()
    timings = {"import": passes[0], "cold": passes[1], "warm": passes[2]}
    print(json.dumps({"pairs": len(pairs), **timings, **counts}))


def report(metric: str, published: bool) -> None:
    rows = golden_lines(metric, published)
    if not rows:
        raise SystemExit(f"no golden lines for {metric!r} in {GOLDEN}")
    output = subprocess.run(
        [sys.executable, __file__, "--child", metric, *(["--published"] if published else [])],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result = json.loads(output.stdout)
    upstream = sum(row["seconds"] for row in rows)
    slowest = max(row["seconds"] for row in rows)
    timeouts = sum(row["error"] == "timeout" for row in rows)
    print(f"{metric}{' (published runs only)' if published else ''}")
    print(
        f"  pairs            {result['pairs']} ({len({(r['ref_sha256'], r['gen_sha256']) for r in rows})} distinct)"
    )
    print(
        f"  upstream seconds {upstream:.2f}  (sum of golden `seconds`; slowest pair "
        f"{slowest:.2f} s; {timeouts} timeouts)"
    )
    wall, cpu = result["import"]
    print(f"  import seconds   {wall:.3f} wall, {cpu:.3f} CPU  (dmbench.metrics, once per process)")
    for name, what in (("cold", "first pass"), ("warm", "second pass, same process")):
        wall, cpu = result[name]
        print(
            f"  {name} seconds     {wall:.3f} wall, {cpu:.3f} CPU  ({upstream / wall:.0f}x "
            f"upstream by wall time, {upstream / cpu:.0f}x by CPU time; {what})"
        )
    print(
        f"  parity           {result['bit_identical']} bit-identical, {result['within_1e-9']} "
        f"within 1e-9, {result['errors_as_upstream']} errors where upstream raised, "
        f"{result['not_checked']} timeouts not checked"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("metrics", nargs="+", help="registered metric names, e.g. metrik-1")
    parser.add_argument(
        "--published", action="store_true", help="only the 801 pairs of the published runs"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.metrics[0], args.published)
        return 0
    for metric in args.metrics:
        report(metric, args.published)
    return 0


if __name__ == "__main__":
    sys.exit(main())
