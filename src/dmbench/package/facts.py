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

from dmbench.core.csvio import read_csv
from dmbench.core.escape import one_line
from dmbench.package.tables import (
    JUDGE_CONTROLS_PATH,
    JUDGE_STUDY_PATH,
    JUDGEMENTS_PATH,
    OUTPUTS_PATH,
    RUNS_PATH,
    SCORES_PATH,
)
from dmbench.sources.records import RECORDS_PATH

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True, slots=True)
class ModelRuns:
    """The runs of one LLM, by where they come from."""

    model: str
    published: int
    canonical: int
    """Published runs of the paper's tables."""
    generated: int

    @property
    def status(self) -> str:
        """``published, in the paper's tables``: what its runs are, in words."""
        parts = []
        if self.canonical:
            parts.append(f"published, {count(self.canonical, 'run')} in the paper's tables")
        if self.published - self.canonical:
            parts.append(
                f"published, {count(self.published - self.canonical, 'run')} not in the paper's "
                "tables"
            )
        if self.generated:
            parts.append(f"{count(self.generated, 'run')} generated with dmbench")
        return "; ".join(parts)


@dataclass(frozen=True, slots=True)
class Facts:
    """What the package holds, counted once from its tables, for the README, the report and
    the deposit's description."""
    datasets: tuple[tuple[str, int], ...]
    """(dataset, records) in the order of the records table."""
    runs: int
    outputs: int
    candidates: tuple[str, ...]
    llms: tuple[str, ...]
    """The models of the runs that use one."""
    llm_candidates: tuple[str, ...]
    metrics: tuple[str, ...]
    published_runs: int = 0
    generated_runs: int = 0
    model_runs: tuple[ModelRuns, ...] = ()
    judge_runs: int = 0
    """Judge runs with a row in the judgements, controls or study table."""
    judgements: int = 0
    judge_models: tuple[str, ...] = ()

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
    """The counts of the package in ``package_dir`` (its records, runs, outputs, scores and
    judge tables)."""
    package_dir = Path(package_dir)
    datasets = Counter(row["dataset"] for _, row in read_csv(package_dir / RECORDS_PATH))
    runs = [row for _, row in read_csv(package_dir / RUNS_PATH)]
    with_llm = [row for row in runs if row["uses_llm"] == "true"]
    judged = {
        path: [row for _, row in read_csv(package_dir / path)]
        for path in (JUDGEMENTS_PATH, JUDGE_CONTROLS_PATH, JUDGE_STUDY_PATH)
        if (package_dir / path).is_file()
    }
    judgements = judged.get(JUDGEMENTS_PATH, [])
    judge_models = {row["judge"] for rows in judged.values() for row in rows if row.get("judge")}
    judge_models |= {
        name for row in judged.get(JUDGE_STUDY_PATH, []) for name in row["judges"].split("+") if name
    }
    return Facts(
        datasets=tuple(datasets.items()),
        runs=len(runs),
        outputs=len(read_csv(package_dir / OUTPUTS_PATH)),
        candidates=tuple(sorted({row["candidate"] for row in runs})),
        llms=tuple(sorted({row["model"] for row in with_llm})),
        llm_candidates=tuple(sorted({row["candidate"] for row in with_llm})),
        metrics=tuple(sorted({row["metric"] for _, row in read_csv(package_dir / SCORES_PATH)})),
        published_runs=sum(row["origin"] == "published" for row in runs),
        generated_runs=sum(row["origin"] != "published" for row in runs),
        model_runs=tuple(_model_runs(model, with_llm) for model in sorted({r["model"] for r in with_llm})),
        judge_runs=len({row["judge_run_id"] for rows in judged.values() for row in rows}),
        judgements=len(judgements),
        judge_models=tuple(sorted(judge_models)),
    )


def _model_runs(model: str, runs: list[dict[str, str]]) -> ModelRuns:
    mine = [row for row in runs if row["model"] == model]
    published = [row for row in mine if row["origin"] == "published"]
    return ModelRuns(
        model,
        published=len(published),
        canonical=sum(row["canonical"] == "true" for row in published),
        generated=len(mine) - len(published),
    )


def run_origins(facts: Facts) -> str:
    """``42 published upstream`` or ``40 published upstream and 2 generated with dmbench``."""
    parts = [f"{facts.published_runs} published upstream"] if facts.published_runs else []
    if facts.generated_runs:
        parts.append(f"{facts.generated_runs} generated with dmbench")
    return listing(tuple(parts)) or "none"


def llm_statuses(facts: Facts, name: Callable[[str], str] = one_line) -> str:
    """Each LLM with what its runs are: ``glm-5.1:cloud (published, six runs in the paper's
    tables)``. ``name`` renders a model name for the output format."""
    return "; ".join(f"{name(m.model)} ({m.status})" for m in facts.model_runs)


def judge_sentence(facts: Facts, name: Callable[[str], str] = one_line) -> str:
    """What the judge tables hold, or the empty string when they hold nothing."""
    if not facts.judge_runs:
        return ""
    models = listing(tuple(name(m) for m in facts.judge_models))
    return (
        f"{count(facts.judge_runs, 'judge run')} of LLM judges ({models}) with "
        f"{facts.judgements} judgements of outputs"
    )


def describe(facts: Facts, name: Callable[[str], str] = one_line) -> str:
    """The package's description, every number and name in it taken from ``facts``.

    ``name`` escapes each candidate, model and metric name for where the description goes
    (:mod:`dmbench.core.escape`: Markdown, HTML); they come from the package's runs, and a model
    name there is whatever a run or an imported log said.
    """
    datasets = "; ".join(
        f"{dataset.upper().replace('DS', 'DS-')}: {n} records" for dataset, n in facts.datasets
    )
    llms = (
        f", of which {listing(tuple(map(name, facts.llm_candidates)))} prompt "
        f"{count(len(facts.llms), 'LLM')} ({listing(tuple(map(name, facts.llms)))})"
        if facts.llms
        else ""
    )
    judged = judge_sentence(facts, name)
    statuses = f" The LLMs' runs: {llm_statuses(facts, name)}." if facts.model_runs else ""
    return (
        f"{facts.records} natural-language domain descriptions with expert reference UML class "
        f"diagrams in PlantUML ({datasets}); the {facts.outputs} outputs of {facts.runs} runs "
        f"({run_origins(facts)}) of {count(len(facts.candidates), 'candidate')} "
        f"({listing(tuple(map(name, facts.candidates)))}){llms}; their scores under "
        f"{count(len(facts.metrics), 'metric')} ({listing(tuple(map(name, facts.metrics)))}); "
        + (f"{judged}; " if judged else "")
        + f"and the code that re-scores them and rebuilds the published tables.{statuses}"
    )
