"""Tables 2 and 3: per (candidate, LLM), the median over three runs of each run's mean score.

The paper summarises a run by the mean of its per-record scores and a (candidate, LLM) cell by
the median of the three run means with the sample standard deviation (ddof=1) beside it, and
gives the median over runs of the share of records whose generation ``failed``. This module
computes exactly that from the run store, plus the share of records the metric rejected (scored
0.0 because metrik-4 raised, not because the output was empty), which the paper does not show
but which explains many low cells.

Which score rows a table reads is a choice, so it is an argument and it is printed beside every
row: ``published`` takes each imported run's upstream values (the numbers the paper was built
from) and falls back to dmbench's recomputed values for runs that have no published ones (runs
dmbench generated); ``recomputed`` takes dmbench's own values for every run. ``dmbench verify``
shows the two agree to 1e-9 on all but one record, so the choice only matters there.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dmbench.candidates import CANDIDATES
from dmbench.errors import PackageError, UnknownNameError
from dmbench.metrics import DEFAULT_METRIC, EMPTY_GENERATED_MODEL
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import Run
from dmbench.tables.statistics import cell_intervals

SCORE_SOURCES = ("published", "recomputed")
ELEMENTS = ("class", "attribute", "association")
PAPER_TABLES = {"ds1": "table2", "ds2": "table3"}
CELL_STATISTICS = ("median", "std", "ci_low", "ci_high")
"""What each score cell carries: the paper's median ± std, and a 95% bootstrap interval."""
RESULT_FIELDS = (
    "table",
    "metric",
    "dataset",
    "candidate",
    "model",
    "series",
    "origin",
    "canonical",
    "scores",
    "runs",
    *(f"{e}_{s}" for e in ELEMENTS for s in CELL_STATISTICS),
    "fail_pct",
    "rejected_pct",
    "rejected_records",
)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One run reduced to what Tables 2/3 need."""

    run_id: str
    series: str
    dataset: str
    candidate: str
    model: str | None
    origin: str
    canonical: bool
    run_index: int
    scores_from: str
    n_records: int
    means: dict[str, float]
    failed: int
    rejected: int
    record_scores: Mapping[str, tuple[float, ...]]
    """record id -> the record's scores in ``ELEMENTS`` order."""
    variant: str | None = None
    """The prompt variant's name; None for the pinned prompts."""

    @property
    def failed_pct(self) -> float:
        return 100.0 * self.failed / self.n_records

    @property
    def rejected_pct(self) -> float:
        return 100.0 * self.rejected / self.n_records


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One (dataset, candidate, LLM) cell group of Table 2 or 3."""

    table: str
    metric: str
    dataset: str
    series: str
    candidate: str
    model: str | None
    origin: str
    canonical: bool
    scores_from: str
    runs: int
    median: dict[str, float]
    std: dict[str, float | None]
    fail_pct: float
    rejected_pct: float
    rejected_records: int
    ci_low: dict[str, float | None]
    ci_high: dict[str, float | None]
    record_means: Mapping[str, tuple[float, ...]]
    """record id -> its mean over the runs per element (records every run scored)."""
    variant: str | None = None
    """The prompt variant's name; None for the pinned prompts."""

    @property
    def model_label(self) -> str | None:
        """The LLM as a row names it, with the prompt variant, so that a variant's row does
        not read like the pinned prompts' row."""
        if self.variant is None:
            return self.model
        return f"{self.model or '–'} · prompts {self.variant}"

    def to_record(self) -> dict:
        """The JSON shape: each element as ``{"median", "std"}``, three decimals as printed;
        ``variant`` only in a prompt variant's row."""
        record: dict[str, Any] = {
            "table": self.table,
            "metric": self.metric,
            "dataset": self.dataset,
            "candidate": self.candidate,
            "model": self.model,
            **({} if self.variant is None else {"variant": self.variant}),
            "series": self.series,
            "origin": self.origin,
            "canonical": self.canonical,
            "scores": self.scores_from,
            "runs": self.runs,
        }
        for element in ELEMENTS:
            record[element] = {
                "median": _round(self.median[element], 3),
                "std": _round(self.std[element], 3),
                "ci_low": _round(self.ci_low[element], 3),
                "ci_high": _round(self.ci_high[element], 3),
            }
        record["fail_pct"] = _round(self.fail_pct, 1)
        record["rejected_pct"] = _round(self.rejected_pct, 1)
        record["rejected_records"] = self.rejected_records
        return record

    def to_flat(self) -> dict:
        """The CSV shape: one column per element and statistic (``RESULT_FIELDS``)."""
        record = self.to_record()
        for element in ELEMENTS:
            cell = record.pop(element)
            for statistic in CELL_STATISTICS:
                record[f"{element}_{statistic}"] = cell[statistic]
        return {name: record[name] for name in RESULT_FIELDS}


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def series_of(run_id: str) -> str:
    """Runs that differ only in dataset and run index: ``chen__glm-5.1_cloud`` (+ settings hash).

    Run ids are ``<candidate>__<model>__<dataset>__run<N>[__<settings hash>]``.
    """
    parts = run_id.split("__")
    return "__".join(parts[:2] + parts[4:])


def is_rejection(row: ScoreRow) -> bool:
    """Scored 0.0 because the metric raised (not because the generation was empty)."""
    return (
        row.error is not None
        and row.error != EMPTY_GENERATED_MODEL
        and row.class_score == row.attribute_score == row.association_score == 0.0
    )


def select_scores(run: Run, metric: str, source: str) -> tuple[str, list[ScoreRow]] | None:
    """The score rows a table uses for ``run`` and where they come from, or None if unscored.

    ``published`` prefers the upstream rows and falls back to recomputed ones; ``recomputed``
    uses only dmbench's rows.
    """
    if source not in SCORE_SOURCES:
        raise UnknownNameError(f"unknown score source {source!r}; choose one of {SCORE_SOURCES}")
    rows = [r for r in run.scores() if r.metric == metric]
    order = ("published", "recomputed") if source == "published" else ("recomputed",)
    for origin in order:
        chosen = [r for r in rows if r.origin == origin]
        if chosen:
            return origin, chosen
    return None


def summarise_run(run: Run, metric: str, source: str) -> RunSummary | None:
    """A run's mean scores and counts; None when it has no scores of the kind asked for."""
    selected = select_scores(run, metric, source)
    if selected is None:
        return None
    origin, rows = selected
    outputs = {o.record_id: o for o in run.outputs()}
    by_record = {r.record_id: r for r in rows}
    if set(by_record) != set(outputs):
        raise PackageError(
            f"run {run.info.run_id}: {origin} {metric} scores cover {len(by_record)} of "
            f"{len(outputs)} outputs; run `dmbench score --runs {run.info.run_id}`"
        )
    n = len(rows)
    means = {e: sum(getattr(r, f"{e}_score") for r in rows) / n for e in ELEMENTS}
    return RunSummary(
        run_id=run.info.run_id,
        series=series_of(run.info.run_id),
        dataset=run.info.dataset,
        candidate=run.info.candidate,
        model=run.info.model,
        origin=run.info.origin,
        canonical=run.info.canonical,
        run_index=run.info.run_index,
        scores_from=origin,
        n_records=n,
        means=means,
        failed=sum(o.failed for o in outputs.values()),
        rejected=sum(is_rejection(r) for r in rows),
        record_scores={
            r.record_id: tuple(getattr(r, f"{e}_score") for e in ELEMENTS) for r in rows
        },
        variant=run.info.prompt_variant,
    )


def has_scores(package: PackageSource, metric: str, source: str) -> bool:
    """Whether any run has scores of the kind asked for (so its tables are not empty)."""
    return any(
        summarise_run(run, metric, source) is not None for run in open_package(package).runs()
    )


def run_summaries(
    package: PackageSource, metric: str, source: str
) -> tuple[list[RunSummary], list[str]]:
    """The summaries of the runs that have scores of the kind asked for, and the ids of those
    that have none (left out of the tables, e.g. generated runs not scored yet)."""
    runs = open_package(package).runs()
    summaries, unscored = [], []
    for run in runs:
        summary = summarise_run(run, metric, source)
        if summary is None:
            unscored.append(run.info.run_id)
        else:
            summaries.append(summary)
    if runs and not summaries:
        raise PackageError(
            f"no run has {source} {metric} scores; run `dmbench score --metric {metric}` first"
        )
    return summaries, unscored


def _sample_std(values: Sequence[float]) -> float | None:
    return statistics.stdev(values) if len(values) > 1 else None


def _record_matrix(runs: Sequence[RunSummary]) -> tuple[list[str], np.ndarray]:
    """(records every run scored, sorted) and their scores as (records × runs × elements)."""
    records = sorted(set.intersection(*(set(r.record_scores) for r in runs)))
    matrix = np.array([[run.record_scores[record] for run in runs] for record in records])
    return records, matrix.reshape(len(records), len(runs), len(ELEMENTS))


def _intervals(
    runs: Sequence[RunSummary], matrix: np.ndarray
) -> list[tuple[float, float] | None]:
    """Each element's cell interval; none when the runs scored different records (then the
    cell's median is not a statistic of one record set)."""
    if any(len(r.record_scores) != matrix.shape[0] for r in runs) or not matrix.size:
        return [None] * len(ELEMENTS)
    return list(cell_intervals(matrix))


def aggregate(summaries: Iterable[RunSummary], metric: str) -> list[ResultRow]:
    """Group runs into (dataset, origin, series) rows: canonical first, in a stable order."""
    groups: dict[tuple, list[RunSummary]] = defaultdict(list)
    for summary in summaries:
        groups[(summary.dataset, summary.origin, summary.series)].append(summary)
    rows = []
    for (dataset, origin, series), runs in groups.items():
        runs.sort(key=lambda s: s.run_index)
        first = runs[0]
        records, matrix = _record_matrix(runs)
        intervals = dict(zip(ELEMENTS, _intervals(runs, matrix), strict=True))
        rows.append(
            ResultRow(
                table=PAPER_TABLES[dataset],
                metric=metric,
                dataset=dataset,
                series=series,
                candidate=first.candidate,
                model=first.model,
                origin=origin,
                canonical=all(r.canonical for r in runs),
                scores_from="+".join(sorted({r.scores_from for r in runs})),
                runs=len(runs),
                median={e: statistics.median(r.means[e] for r in runs) for e in ELEMENTS},
                std={e: _sample_std([r.means[e] for r in runs]) for e in ELEMENTS},
                fail_pct=statistics.median(r.failed_pct for r in runs),
                rejected_pct=statistics.median(r.rejected_pct for r in runs),
                rejected_records=sum(r.rejected for r in runs),
                ci_low={e: None if i is None else i[0] for e, i in intervals.items()},
                ci_high={e: None if i is None else i[1] for e, i in intervals.items()},
                record_means=dict(zip(records, map(tuple, matrix.mean(axis=1)), strict=True)),
                variant=first.variant,
            )
        )
    candidate_order = {name: index for index, name in enumerate(CANDIDATES)}
    rows.sort(
        key=lambda r: (
            r.dataset,
            not r.canonical,
            r.origin != "published",
            candidate_order.get(r.candidate, 9),
            r.candidate,
            r.model or "",
            r.series,
        )
    )
    return rows


def results_tables(
    package: PackageSource, metric: str = DEFAULT_METRIC, source: str = "published"
) -> list[ResultRow]:
    """Tables 2 (ds1) and 3 (ds2), every scored run series of the package, canonical first."""
    summaries, _ = run_summaries(package, metric, source)
    return aggregate(summaries, metric)
