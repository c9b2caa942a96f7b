"""Parse time per diagram on real diagrams: the human-written corpus and the package's outputs.

Run: ``.venv/bin/python benchmarks/bench_parse_corpus.py [CORPUS_DIR]`` (default
``../shared/plantuml-corpus``). Each distinct text is read once, in one process, as a run reads
them (the per-line memo shares short lines such as ``}`` between diagrams, not whole texts); the
diagrams a reading refuses are timed too, up to the error.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

from dmbench.errors import ParseError
from dmbench.plantuml import parse_compat
from dmbench.plantuml._standard import parse_standard
from dmbench.sources.published import output_rows, reference_rows


def timings(texts: list[str], read) -> list[float]:
    seconds = []
    for text in texts:
        start = time.perf_counter()
        try:
            read(text)
        except ParseError:
            pass
        seconds.append(time.perf_counter() - start)
    return seconds


def row(name: str, texts: list[str], read) -> str:
    ms = sorted(1000 * s for s in timings(texts, read))
    return (f"{name:<28} {len(ms):>6} {statistics.median(ms):>8.2f} {statistics.mean(ms):>8.2f} "
            f"{ms[int(0.95 * (len(ms) - 1))]:>8.2f} {ms[-1]:>8.2f}")


def main() -> int:
    root = Path(__file__).resolve().parents[1]
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else root.parent / "shared" / "plantuml-corpus"
    upstream = root.parent / "shared" / "upstream"
    corpus_texts = [p.read_text("utf-8", errors="replace") for p in sorted(corpus.glob("*.puml"))]
    rows = [*reference_rows(upstream), *output_rows(upstream)]
    package_texts = sorted({r.text for r in rows if r.text and r.text.strip()})
    parse_standard("@startuml\nclass A\n@enduml")  # build the parser outside the timings
    print(f"load average {os.getloadavg()[0]:.1f} (timings move with it)")
    print(f"{'ms per diagram':<28} {'n':>6} {'median':>8} {'mean':>8} {'p95':>8} {'max':>8}")
    print(row("corpus, standard", corpus_texts, parse_standard))
    print(row("package, standard", package_texts, parse_standard))
    print(row("package, compat", package_texts, parse_compat))
    return 0


if __name__ == "__main__":
    sys.exit(main())
