"""Parse time against diagram size, to check that both readings grow about linearly.

Run: ``.venv/bin/python benchmarks/bench_parse.py`` (sizes in classes; the largest is 5,000).
Each class has three attributes and one association to the previous class.
"""

from __future__ import annotations

import sys
import time

from dmbench.plantuml import READINGS, parse

SIZES = (625, 1250, 2500, 5000)


def diagram(n_classes: int) -> str:
    lines = ["@startuml"]
    for i in range(n_classes):
        lines += [f"class C{i} {{", "  name : String", "  int size = 3", "  created : Date", "}"]
        if i:
            lines.append(f'C{i - 1} "1" -- "0..*" C{i} : next')
    lines.append("@enduml")
    return "\n".join(lines) + "\n"


def best_of(runs: int, text: str, reading: str) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parse(text, reading)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parse(diagram(10), "standard")  # build the parser once, outside the timings
    print(f"{'classes':>8} {'lines':>7} " + " ".join(f"{r + ' s':>11} {'us/line':>8}" for r in READINGS))
    for n in SIZES:
        text = diagram(n)
        n_lines = text.count("\n")
        cells = []
        for reading in READINGS:
            seconds = best_of(3, text, reading)
            cells.append(f"{seconds:11.3f} {1e6 * seconds / n_lines:8.1f}")
        print(f"{n:>8} {n_lines:>7} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
