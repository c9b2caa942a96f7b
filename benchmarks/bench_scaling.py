"""Parse and score time of hostile inputs at 1x, 10x and 100x size, with the growth ratios.

Run: ``.venv/bin/python benchmarks/bench_scaling.py [--max-scale 100] [--only TEXT]``. Each shape
is one way an input once made a reading backtrack or rescan (issue 15); for each size it prints
the CPU seconds of the ``compat`` and ``standard`` readings, upstream's validator, the LLM
candidates' block extraction and metrik-4 scoring against a small reference (the benchmark view,
so an unreadable diagram is scored 0/0/0 with its error), and then the ratios 10x/1x and
100x/10x: 10 means linear, 100 quadratic.

A ratio a little above 10 is not yet growth beyond linear: at 100x a reading holds hundreds of
thousands of objects, which no longer fit the CPU's caches, and the collector's full passes walk
them all. So each shape also gets a ``control`` row, a pass that is linear by construction
(split the input into lines, keep one small object per line), timed the same way. The last
column divides each step's 100x/10x ratio by what linear growth measures here: 10, or the
control's ratio where that is larger. About 1 or less: linear; 10 would be quadratic.
``--work`` counts instead the Python lines each step executes (the readers, lark, the validator
and metrik-4 are Python; only a regular expression's own steps go uncounted): a measure no cache
or load can change, slower to take. The last shape is two diagrams of n classes scored against
each other: metrik-4 compares every class pair, so its time is given per pair (n * n pairs).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
from work_count import python_lines  # noqa: E402

from dmbench.llm.llm_candidate import extract_plantuml
from dmbench.metrics import score_benchmark
from dmbench.plantuml import ParseError, parse, validate

REFERENCE = "@startuml\nclass Order {\n  id : int\n}\nclass Customer\nCustomer -- Order\n@enduml\n"


def _wrap(body: str) -> str:
    return f"@startuml\n{body}@enduml\n"


# name -> (input at scale n, what 1x is)
SHAPES: dict[str, tuple[Callable[[int], str], str]] = {
    "attribute line ' a :' + spaces + '!'": (
        lambda n: _wrap("class A {\n a :" + " " * 3000 * n + "!\n}\n"),
        "3000 spaces: the 3 KB line",
    ),
    "'@startuml' lines, no @enduml": (lambda n: "@startuml\n" * 3000 * n, "3000 lines"),
    "repeated 'A : x' lines": (lambda n: _wrap("A : x\n" * 1000 * n), "1000 lines"),
    "notes holding ':'": (lambda n: _wrap("note left : x\n" * 1000 * n), "1000 lines"),
    "class redeclared": (lambda n: _wrap("class A {\n x : int\n}\n" * 1000 * n), "1000 times"),
    "unclosed /' comments": (lambda n: _wrap("/' x\n" * 1000 * n), "1000 lines"),
    "open cardinality quote": (lambda n: _wrap('A "' + " " * 1000 * n + "!\n"), "1000 spaces"),
    "open cardinality quote, letters": (lambda n: _wrap('A -- "' + "o" * 1000 * n + "!\n"), "1000"),
    "inline enum without '}'": (lambda n: _wrap("enum A {" + " " * 1000 * n + "!\n"), "1000"),
}


def _kilolines(action: Callable[[], object]) -> float:
    """Thousands of Python lines ``action`` executes."""

    def step() -> None:
        try:
            action()
        except ParseError:
            pass

    return python_lines(step) / 1e3


def _seconds(action: Callable[[], object], repeats: int = 5) -> float:
    """CPU seconds, the best of ``repeats`` runs: on a shared machine wall time measures the
    other processes too. Each run starts after a collection, so none pays for another's garbage."""
    best = float("inf")
    for _ in range(repeats):
        gc.collect()
        start = time.process_time()
        try:
            action()
        except ParseError:
            pass
        best = min(best, time.process_time() - start)
    return best


def _class_diagram(n: int, shift: int) -> str:
    words = ["order", "customer", "invoice", "product", "payment", "account", "address"]
    names = [f"{words[(i + shift) % len(words)].capitalize()}{i}" for i in range(n)]
    lines = ["@startuml"]
    for i, name in enumerate(names):
        lines += [f"class {name} {{", f"  {words[i % len(words)]}Name : String", "}"]
        if i:
            lines.append(f'{names[i - 1]} "1" -- "*" {name} : has')
    return "\n".join([*lines, "@enduml"]) + "\n"


@dataclass(frozen=True)
class _Line:
    text: str
    indent: int


def _linear_control(text: str) -> list[_Line]:
    """Linear by construction: what a one-pass reading at least does with each line."""
    return [_Line(line.strip(), len(line) - len(line.lstrip())) for line in text.split("\n")]


def _growth(times: list[float]) -> list[float]:
    return [later / max(earlier, 1e-6) for earlier, later in zip(times, times[1:])]


def _ratios(times: list[float]) -> str:
    return "  ".join(f"{ratio:6.1f}" for ratio in _growth(times))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-scale", type=int, default=100, choices=(10, 100))
    parser.add_argument(
        "--only", metavar="TEXT", default="", help="only the shapes whose name contains TEXT"
    )
    parser.add_argument(
        "--work", action="store_true", help="count Python lines executed instead of CPU time"
    )
    args = parser.parse_args()
    measure = _kilolines if args.work else _seconds
    measured = "thousands of Python lines executed" if args.work else "CPU seconds, best of 5"
    scales = (1, 10, 100)[: 2 if args.max_scale == 10 else 3]
    parse(REFERENCE, "standard")  # build the parser and load WordNet outside the timings
    score_benchmark(REFERENCE, REFERENCE)
    # WordNet, loaded once, is about 440,000 objects that live as long as the process. Frozen,
    # they are left out of the full collections a larger input triggers: otherwise whichever size
    # first crosses the collector's threshold pays a fixed cost that has nothing to do with it.
    gc.freeze()
    steps: dict[str, Callable[[str], object]] = {
        "compat": lambda text: parse(text, "compat"),
        "standard": lambda text: parse(text, "standard"),
        "validate": validate,
        "extract": extract_plantuml,
        "score": lambda text: score_benchmark(REFERENCE, text),
    }
    print(f"{measured} at each size")
    header = "  ".join(f"{f'{x}x':>9}" for x in scales)
    last = "  vs linear" if len(scales) == 3 else ""
    print(f"{'shape (1x)':<52} {'step':<9} {header}   ratios 10x/1x, 100x/10x{last}")
    worst: tuple[float, str] = (0.0, "")
    for name, (make, unit) in SHAPES.items():
        if args.only not in name:
            continue
        texts = [make(scale) for scale in scales]
        control: list[float] = []
        for step, action in {"control": _linear_control, **steps}.items():
            times = [measure(lambda text=text: action(text)) for text in texts]
            control = control or _growth(times)
            cells = "  ".join(f"{t:9.1f}" if args.work else f"{t:9.4f}" for t in times)
            label = f"{name} ({unit}, {len(texts[0]):,} chars)" if step == "control" else ""
            beyond = ""
            if len(scales) == 3 and step != "control":
                excess = _growth(times)[-1] / max(10.0, control[-1])
                worst = max(worst, (excess, f"{name}, {step}"))
                beyond = f"    {excess:6.2f}"
            print(f"{label:<52} {step:<9} {cells}   {_ratios(times)}{beyond}", flush=True)
    pairs = "two diagrams of 3 classes, scored"
    if args.only in pairs:
        _print_pairs(pairs, scales)
    if worst[1]:
        print(f"largest 100x/10x growth relative to linear: {worst[0]:.2f} ({worst[1]})")
    return 0


def _print_pairs(label: str, scales: tuple[int, ...]) -> None:
    times, cells = [], []
    for scale in scales:
        n = 3 * scale
        reference, generated = _class_diagram(n, 0), _class_diagram(n, 3)
        seconds = _seconds(lambda: score_benchmark(reference, generated), repeats=1)
        times.append(seconds / (n * n))
        cells.append(f"{seconds:9.4f}")
    print(f"{label:<52} {'score':<9} {'  '.join(cells)}")
    per_pair = "  ".join(f"{1e6 * t:9.1f}" for t in times)
    print(
        f"{'  the same, microseconds per class pair':<52} {'per pair':<9} {per_pair}   "
        f"{_ratios(times)}"
    )


if __name__ == "__main__":
    sys.exit(main())
