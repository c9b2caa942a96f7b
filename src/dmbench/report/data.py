"""What the report shows, read from the package: each record with every canonical output and
every output of a run made after the paper (generated, imported from inspect or a bundle).

A *cell* is one (candidate, LLM) series of the tables; the paper's have three runs per dataset.
Scores per output are the rows the tables use (``published`` where a run has them, else
``recomputed``), for each metric present; what metrik-4 matched comes from its explanation, the
pairs it picked as it picked them. Identical outputs of a cell (a deterministic candidate's three
runs) are shown once, with their count.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from dmbench.candidates import CANDIDATES
from dmbench.core.hashing import sha256_text
from dmbench.errors import MissingPrerequisiteError
from dmbench.judge import list_judge_runs, raw_reply
from dmbench.metrics import METRICS, PUBLISHED_METRIC, Explanation, explain
from dmbench.package import BenchmarkRecord
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import Run
from dmbench.tables import nothing_to_match
from dmbench.tables.nothing_to_match import output_counts
from dmbench.tables.results import is_rejection, select_scores, series_of

CANDIDATE_ORDER = tuple(CANDIDATES)


@dataclass(frozen=True, slots=True)
class Cell:
    """One (candidate, LLM) series of the paper's tables."""

    series: str
    candidate: str
    model: str | None
    canonical: bool = True
    """One of the paper's cells; a later run's (generated, imported) is not."""
    variant: str | None = None
    """The prompt variant's name; None for the pinned prompts."""

    @property
    def label(self) -> str:
        label = f"{self.candidate} · {self.model}" if self.model else self.candidate
        return label if self.variant is None else f"{label} · prompts {self.variant}"

    @property
    def slug(self) -> str:
        return self.series.replace(".", "-").replace("_", "-")


@dataclass(frozen=True, slots=True)
class JudgeNote:
    """One judge's view of one output in one order: its S_final and a reason per criterion."""

    judge_run_id: str
    judge: str
    reference_shown_as: str
    s_final: float | None
    error: str | None
    criteria: tuple[tuple[str, int, int, str], ...]
    """(criterion, score of the output, score of the reference, the judge's reason)."""
    raw: str | None = None
    """A failed judgement's last raw reply, its first :data:`RAW_SHOWN` characters."""


RAW_SHOWN = 4000


def _shown_raw(judgement: dict, judge_run_id: str) -> str | None:
    raw = raw_reply(judgement) if judgement["failed"] else None
    if raw is None or len(raw) <= RAW_SHOWN:
        return raw
    return (f"{raw[:RAW_SHOWN]}\n… ({len(raw) - RAW_SHOWN} more characters in "
            f"runs/{judge_run_id}/judgements.jsonl)")


def judge_notes(package_dir: Path) -> dict[tuple[str, str], list[JudgeNote]]:
    """By (run id, record id), every judgement of every judge run in the package."""
    notes: dict[tuple[str, str], list[JudgeNote]] = defaultdict(list)
    for judge_run in list_judge_runs(package_dir):
        for row in judge_run.rows():
            for j in row["judgements"]:
                generated_as = "B" if j["reference_shown_as"] == "A" else "A"
                reference_as = j["reference_shown_as"]
                criteria = tuple(
                    (name, given[generated_as], given[reference_as], given["reason"])
                    for name, given in (j.get("scores") or {}).items()
                )
                notes[row["run_id"], row["record_id"]].append(
                    JudgeNote(
                        judge_run.run_id,
                        j["judge"],
                        reference_as,
                        j["s_final"],
                        j.get("error"),
                        criteria,
                        _shown_raw(j, judge_run.run_id),
                    )
                )
    return notes


@dataclass(frozen=True, slots=True)
class Output:
    """One run's output for one record, with its scores and what the metric matched."""

    run_id: str
    run_index: int
    generated: str
    failed: bool
    failure: str | None
    scores: dict[str, ScoreRow]
    """By metric name; a metric the run was not scored with is absent."""
    explanation: Explanation | None
    """metrik-4's intermediates; None when the output is empty or the metric rejected it."""
    judged: tuple[JudgeNote, ...] = ()

    @property
    def sha256(self) -> str:
        return sha256_text(self.generated)

    @property
    def has_diagram(self) -> bool:
        return bool(self.generated.strip())

    @property
    def rejected(self) -> bool:
        row = self.scores.get(PUBLISHED_METRIC)
        return row is not None and is_rejection(row)


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """One judge run's S_final of one output: the mean over the orders it was scored in."""

    judge_run_id: str
    judge: str
    s_final: float | None
    """None when no order was scored."""
    orders: tuple[float, ...]
    failed: int


def judge_verdicts(notes: tuple[JudgeNote, ...]) -> tuple[JudgeVerdict, ...]:
    """Per judge run, its S_final averaged over both orders (reference shown as A, then B)."""
    by_run: dict[tuple[str, str], list[JudgeNote]] = defaultdict(list)
    for note in notes:
        by_run[note.judge_run_id, note.judge].append(note)
    verdicts = []
    for (run_id, judge), given in by_run.items():
        scored = tuple(n.s_final for n in given if n.s_final is not None)
        mean = sum(scored) / len(scored) if scored else None
        verdicts.append(JudgeVerdict(run_id, judge, mean, scored, len(given) - len(scored)))
    return tuple(verdicts)


@dataclass(frozen=True, slots=True)
class Shown:
    """Outputs of one cell that are the same (the same lines, scores and failure): drawn and
    explained once. rule_based's runs write the same lines in an order that varies by run."""

    outputs: tuple[Output, ...]

    @property
    def first(self) -> Output:
        return self.outputs[0]

    @property
    def count(self) -> int:
        return len(self.outputs)

    @property
    def runs(self) -> str:
        indexes = [str(o.run_index) for o in self.outputs]
        if len(indexes) == 1:
            return f"run {indexes[0]}"
        return f"runs {', '.join(indexes[:-1])} and {indexes[-1]}"

    @property
    def reordered(self) -> bool:
        """The outputs differ only in the order of their lines."""
        return len({o.generated for o in self.outputs}) > 1

    @property
    def judged(self) -> tuple[JudgeNote, ...]:
        return tuple(note for o in self.outputs for note in o.judged)

    @property
    def verdicts(self) -> tuple[JudgeVerdict, ...]:
        return judge_verdicts(self.judged)


def _sameness(output: Output) -> tuple:
    scores = tuple(
        (name, row.class_score, row.attribute_score, row.association_score, row.error)
        for name, row in sorted(output.scores.items())
    )
    lines = tuple(sorted(output.generated.splitlines()))
    return lines, output.failed, output.failure, scores


def shown_once(outputs: tuple[Output, ...]) -> tuple[Shown, ...]:
    """The outputs grouped by sameness, in the order of each group's first run."""
    groups: dict[tuple, list[Output]] = {}
    for output in outputs:
        groups.setdefault(_sameness(output), []).append(output)
    return tuple(Shown(tuple(group)) for group in groups.values())


@dataclass(frozen=True, slots=True)
class RecordView:
    """One record's page as data: the record and, per shown cell, its runs' outputs."""
    record: BenchmarkRecord
    outputs: tuple[tuple[Cell, tuple[Output, ...]], ...]
    """Per shown cell, its runs' outputs in run order."""

    @property
    def page(self) -> str:
        return f"{self.record.record_id}.html"

    @property
    def shown(self) -> tuple[tuple[Cell, tuple[Shown, ...]], ...]:
        """Per canonical cell, its outputs with identical ones shown once."""
        return tuple((cell, shown_once(outputs)) for cell, outputs in self.outputs)


def shown_runs(runs: list[Run]) -> list[Run]:
    """The runs the record pages show: the paper's canonical runs and every run that was not
    published with it (the published non-canonical runs stay in the tables only)."""
    return [r for r in runs if r.info.canonical or r.info.origin != "published"]


def canonical_cells(runs: list[Run]) -> list[Cell]:
    """The cells of ``runs`` in the tables' order: the paper's (rule_based, then chen, then
    calamo, by LLM), then the others in the same order."""
    cells = {
        series_of(r.info.run_id): Cell(
            series_of(r.info.run_id),
            r.info.candidate,
            r.info.model,
            r.info.canonical,
            r.info.prompt_variant,
        )
        for r in runs
    }

    def order(cell: Cell) -> tuple[bool, int, str, str]:
        rank = CANDIDATE_ORDER.index(cell.candidate) if cell.candidate in CANDIDATE_ORDER else 9
        return not cell.canonical, rank, cell.model or "", cell.series

    return sorted(cells.values(), key=order)


def _scores_by_record(run: Run) -> dict[str, dict[str, ScoreRow]]:
    by_record: dict[str, dict[str, ScoreRow]] = defaultdict(dict)
    for metric in METRICS:
        selected = select_scores(run, metric, "published")
        for row in selected[1] if selected else ():
            by_record[row.record_id][metric] = row
    return by_record


def _explanation(reference: str, generated: str) -> Explanation | None:
    if not generated.strip():
        return None
    try:
        # The published metric is metrik-4, whose explanation the report's pages show.
        return cast(Explanation, explain(reference, generated, PUBLISHED_METRIC))
    except MissingPrerequisiteError:
        raise
    except Exception:  # noqa: BLE001 - as in scoring, any metric failure is a rejection, whose
        return None  # message the score row carries


def _memo(
    explained: dict[tuple[str, str], Explanation | None], reference: str, generated: str
) -> Explanation | None:
    """Identical outputs (rule_based's three runs, repeated LLM replies) are explained once."""
    key = (reference, generated)
    if key not in explained:
        explained[key] = _explanation(reference, generated)
    return explained[key]


def record_views(package: PackageSource) -> list[RecordView]:
    """Every record of the package with the outputs of every shown run of its dataset."""
    opened = open_package(package)
    package_dir = opened.path
    records = opened.records()
    runs = shown_runs(opened.runs())
    cells = canonical_cells(runs)
    # (series, dataset) -> record id -> outputs in run order
    table: dict[tuple[str, str], dict[str, list[Output]]] = defaultdict(lambda: defaultdict(list))
    references = {r.record_id: r.reference for r in records}
    explained: dict[tuple[str, str], Explanation | None] = {}
    judged = judge_notes(package_dir)
    for run in sorted(runs, key=lambda r: r.info.run_index):
        scores = _scores_by_record(run)
        series = series_of(run.info.run_id)
        for row in run.outputs():
            if row.record_id not in references:
                continue
            explanation = _memo(explained, references[row.record_id], row.generated)
            table[series, run.info.dataset][row.record_id].append(
                Output(
                    run_id=run.info.run_id,
                    run_index=run.info.run_index,
                    generated=row.generated,
                    failed=row.failed,
                    failure=row.error,
                    scores=scores.get(row.record_id, {}),
                    explanation=explanation,
                    judged=tuple(judged.get((run.info.run_id, row.record_id), ())),
                )
            )
    return [
        RecordView(
            record,
            tuple(
                (cell, tuple(table[cell.series, record.dataset].get(record.record_id, ())))
                for cell in cells
            ),
        )
        for record in records
    ]


def package_diagrams(package: PackageSource, run_ids: list[str] | None = None) -> list[str]:
    """The PlantUML sources to draw: every reference, then every non-empty output of the runs
    (all runs, canonical or not, unless ``run_ids`` names some)."""
    opened = open_package(package)
    sources = [r.reference for r in opened.records()]
    for run in opened.select_runs(run_ids):
        sources += [o.generated for o in run.outputs() if o.generated.strip()]
    return sources


def perfect_on_nothing(output: Output) -> tuple[tuple[str, str], ...]:
    """(metric, element) where a metric gives 1.000 though the output has none of the element:
    the metric's own definition scores an empty comparison as perfect (the errata count them)."""
    if not output.has_diagram:
        return ()
    return nothing_to_match.perfect_on_nothing(output.scores, output_counts(output.generated))
