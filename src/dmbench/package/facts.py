"""What a package holds, counted from its tables, and the description written from the counts.

Every count and list a description gives (records, runs, candidates, LLMs, metrics) is read
from the package when the description is written, so the record page cannot drift from the
data: a hand-written "two LLMs" stayed on the page after a third model's runs were imported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dmbench.core.escape import one_line
from dmbench.core.csvio import read_csv
from dmbench.package.tables import OUTPUTS_PATH, RUNS_PATH, SCORES_PATH
from dmbench.sources.records import RECORDS_PATH

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True, slots=True)
class Facts:
    datasets: tuple[tuple[str, int], ...]
    """(dataset, records) in the order of the records table."""
    runs: int
    outputs: int
    candidates: tuple[str, ...]
    llms: tuple[str, ...]
    """The models of the runs that use one."""
    llm_candidates: tuple[str, ...]
    metrics: tuple[str, ...]

    @property
    def records(self) -> int:
        return sum(n for _, n in self.datasets)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``three LLMs``: small counts in words, as prose writes them."""
    word = _WORDS[n] if n < len(_WORDS) else str(n)
    return f"{word} {noun if n == 1 else plural or noun + 's'}"


def listing(items: tuple[str, ...]) -> str:
    """``a, b and c``."""
    return " and ".join(filter(None, [", ".join(items[:-1]), *items[-1:]]))


def package_facts(package_dir: Path) -> Facts:
    """The counts of the package in ``package_dir`` (its records, runs, outputs, scores tables)."""
    package_dir = Path(package_dir)
    datasets = Counter(row["dataset"] for _, row in read_csv(package_dir / RECORDS_PATH))
    runs = [row for _, row in read_csv(package_dir / RUNS_PATH)]
    with_llm = [row for row in runs if row["uses_llm"] == "true"]
    return Facts(
        datasets=tuple(datasets.items()),
        runs=len(runs),
        outputs=len(read_csv(package_dir / OUTPUTS_PATH)),
        candidates=tuple(sorted({row["candidate"] for row in runs})),
        llms=tuple(sorted({row["model"] for row in with_llm})),
        llm_candidates=tuple(sorted({row["candidate"] for row in with_llm})),
        metrics=tuple(sorted({row["metric"] for _, row in read_csv(package_dir / SCORES_PATH)})),
    )


def describe(facts: Facts, name: Callable[[str], str] = one_line) -> str:
    """The package's description, every number and name in it taken from ``facts``.

    ``name`` escapes each candidate, model and metric name for where the description goes
    (:mod:`dmbench.core.escape`: Markdown, HTML); they come from the package's runs, and a model
    name there is whatever a run or an imported log said.
    """
    names = {
        field: tuple(name(item) for item in getattr(facts, field))
        for field in ("candidates", "llms", "llm_candidates", "metrics")
    }
    datasets = "; ".join(f"{name.upper().replace('DS', 'DS-')}: {n} records" for name, n in facts.datasets)
    llms = (
        f", of which {listing(names['llm_candidates'])} prompt "
        f"{count(len(facts.llms), 'LLM')} ({listing(names['llms'])})"
        if facts.llms
        else ""
    )
    return (
        f"{facts.records} natural-language domain descriptions with expert reference UML class "
        f"diagrams in PlantUML ({datasets}); the {facts.outputs} outputs of {facts.runs} runs of "
        f"{count(len(facts.candidates), 'candidate')} ({listing(names['candidates'])}){llms}; "
        f"their scores under {count(len(facts.metrics), 'metric')} ({listing(names['metrics'])}); "
        "and the "
        "code that re-scores them and rebuilds the published tables."
    )
