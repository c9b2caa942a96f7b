"""The standard reading against PlantUML on any folder of diagrams: how much it reads, and agrees.

Run: ``.venv/bin/python benchmarks/bench_oracle.py DIR`` (every ``*.puml`` under DIR, at any
depth). PlantUML's own model of each file comes from the pinned jar in one JVM, through the test
suite's oracle (``tests/support/oracle_support.py``, imported from there, cached by sha256 under
``$DMBENCH_RENDER_CACHE``); the standard reading is timed per diagram. Prints the counts, the
percentages of what PlantUML accepts, how many of what it rejects the reading refuses or reads
through a named repair, and one ``FILE: reason`` line per refusal, disagreement, or rejected
diagram read without a word.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from dmbench.core.hashing import sha256_text
from dmbench.errors import ParseError
from dmbench.plantuml._standard import parse_standard

ROOT = Path(__file__).resolve().parents[1]


def _oracle_support():
    """The test suite's oracle module, loaded by path (it lives beside the tests, not in src)."""
    path = ROOT / "tests" / "support" / "oracle_support.py"
    spec = importlib.util.spec_from_file_location("oracle_support", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reason(oracle, model: dict, text: str, seconds: list[float]) -> str | None:
    """None when the reading agrees with PlantUML's model; else what parts them."""
    start = time.perf_counter()
    try:
        diagram = parse_standard(text)
    except ParseError as error:
        seconds.append(time.perf_counter() - start)
        return f"refused: {error}"
    seconds.append(time.perf_counter() - start)
    if diagram.repairs:
        return f"repaired what PlantUML accepts: {[r.rule for r in diagram.repairs]}"
    found = oracle.disagreements(oracle.plantuml_comparable(model), oracle.reading_comparable(diagram))
    return "; ".join(found) or None


def _flags_rejection(text: str) -> bool:
    """Whether the reading refuses a text PlantUML rejects, or says which repair it read it by."""
    try:
        return bool(parse_standard(text).repairs)
    except ParseError:
        return True


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: bench_oracle.py DIR", file=sys.stderr)
        return 2
    folder = Path(sys.argv[1])
    files = sorted(folder.rglob("*.puml"))
    if not files:
        print(f"{folder}: no *.puml files", file=sys.stderr)
        return 1
    oracle = _oracle_support()
    texts = {f: f.read_text("utf-8", errors="replace") for f in files}
    start = time.perf_counter()
    models = oracle.plantuml_models(list(texts.values()))
    oracle_seconds = time.perf_counter() - start
    parse_standard("@startuml\nclass A\n@enduml")  # build the parser outside the timings

    accepted = rejected = flagged = read = agree = 0
    others: Counter[str] = Counter()
    seconds: list[float] = []
    lines = []
    for path, text in texts.items():
        model = models[sha256_text(text)]
        empty = model["verdict"] == "rejected" and model.get("error", "").startswith(oracle.EMPTY)
        if model["verdict"] == "rejected" and not empty:
            rejected += 1
            if _flags_rejection(text):
                flagged += 1
            else:
                lines.append(f"{path.relative_to(folder)}: read what PlantUML rejects "
                             f"({model.get('error', '')[:60]})")
            continue
        if model["verdict"] not in ("accepted", "rejected"):  # another kind of diagram, a crash
            others[model.get("type") or model["verdict"]] += 1
            continue
        accepted += 1
        reason = _reason(oracle, model, text, seconds)
        if reason is None or not reason.startswith("refused"):
            read += 1
        if reason is None:
            agree += 1
        else:
            lines.append(f"{path.relative_to(folder)}: {reason}")

    ms = sorted(1000 * s for s in seconds)
    print(f"files {len(files)}; PlantUML accepts {accepted}, rejects {rejected} "
          f"(oracle {oracle_seconds:.1f} s)")
    print(f"of what PlantUML rejects, refused or repaired {flagged}/{rejected}")
    if others:
        print(f"not class diagrams to PlantUML (left out): {dict(others)}")
    print(f"read {read}/{accepted} ({100 * read / max(accepted, 1):.1f} %), "
          f"agree {agree}/{accepted} ({100 * agree / max(accepted, 1):.1f} %), "
          f"agree of read {agree}/{read} ({100 * agree / max(read, 1):.1f} %)")
    if ms:
        print(f"parse ms per diagram: mean {statistics.mean(ms):.2f}, "
              f"p95 {ms[int(0.95 * (len(ms) - 1))]:.2f}, max {ms[-1]:.2f}")
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
