"""``score-pair`` on huge diagrams: CPU seconds and peak memory, each pair in its own process.

Run: ``.venv/bin/python benchmarks/bench_huge_pairs.py``. Pairs of generated diagrams (one
attribute per class, a chain of associations) of 20, 200 and 2000 classes each, as issue 37
measured them (0.34 / 1.19 / 149 s, 78 / 89 / 1434 MB before the bound), and the largest pair
each metric's bound lets through (``Metric.bound``: classes, and attributes and relationships
each).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PROBE = """
import json, resource, sys, time
sys.path.insert(0, {tests!r})
from test_huge_pairs import diagram
from dmbench.api import score_pair
from dmbench.errors import MetricError
classes, attributes, relationships, metric = {shape!r}
a = diagram(classes, "A", attributes, relationships)
b = diagram(classes, "B", attributes, relationships)
started = time.process_time()
try:
    outcome = "scored %.3f/%.3f/%.3f" % tuple(score_pair(a, b, metric).to_dict().values())
except MetricError as exc:
    outcome = "refused: " + str(exc)
print(json.dumps([outcome, time.process_time() - started,
                  resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024]))
"""


def measure(classes: int, attributes: int, relationships: int | None, metric: str) -> None:
    probe = PROBE.format(tests=str(ROOT / "tests" / "metrics"), shape=(classes, attributes, relationships,
                                                           metric))  # fmt: skip
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    outcome, seconds, peak = json.loads(out)
    print(f"{metric:18} {classes:5} classes {attributes} attr/class: {seconds:6.2f} s CPU, "
          f"peak {peak:5.0f} MiB, {outcome[:90]}")


def main() -> None:
    from dmbench.metrics import METRICS
    for classes in (20, 200, 2000):
        measure(classes, 1, None, "metrik-4")
    for name, metric in METRICS.items():
        classes, elements = metric.bound
        measure(classes, elements // classes, elements, name)


if __name__ == "__main__":
    main()
