"""Does the ranking of the candidates in Tables 2-3 depend on the metric?

For each table (dataset) and score column, the canonical series (candidate and LLM) are ranked
by their median under each metric: metrik-4 from its published values, as the paper's tables,
every other metric from dmbench's recomputed scores. Agreement with the paper's ranking is
Kendall's tau-b (``scipy.stats.kendalltau``; ties allowed), and a "best" cell holds under a
metric when the series the paper ranks first is also first (or tied first) there.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.errors import PackageError
from dmbench.metrics import METRICS, PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.runs.opened import PackageSource
from dmbench.tables.results import ELEMENTS, results_tables


@dataclass(frozen=True, slots=True)
class Column:
    """One score column of Table 2 or 3: each canonical series' median under each metric."""

    dataset: str
    element: str
    series: tuple[str, ...]
    medians: dict[str, tuple[float, ...]]

    def tau(self, metric: str) -> float:
        """Kendall's tau-b between the paper's ranking and ``metric``'s (``scipy.stats`` imported
        here, not with the module: 0.6 s of every command's start-up that reaches the tables)."""
        from scipy.stats import kendalltau

        return float(kendalltau(self.medians[PUBLISHED_METRIC], self.medians[metric]).statistic)

    def best(self, metric: str) -> tuple[str, ...]:
        """The series with the highest median (more than one when tied)."""
        values = self.medians[metric]
        return tuple(s for s, v in zip(self.series, values, strict=True) if v == max(values))

    def paper_best_holds(self, metric: str) -> bool:
        return bool(set(self.best(PUBLISHED_METRIC)) & set(self.best(metric)))


def study_metrics() -> tuple[str, ...]:
    """The metrics compared: every registered one but the standard-reading variant of metrik-4."""
    return tuple(name for name in METRICS if name != STANDARD_METRIC)


def ranking_columns(package: PackageSource) -> tuple[tuple[Column, ...], tuple[str, ...]]:
    """Tables 2-3 column by column over the metrics that have scores; the ones that have none."""
    by_metric, missing = {}, []
    for metric in study_metrics():
        source = "published" if metric == PUBLISHED_METRIC else "recomputed"
        try:
            rows = [r for r in results_tables(package, metric, source) if r.canonical]
        except PackageError:
            missing.append(metric)
            continue
        by_metric[metric] = {(r.dataset, _label(r.candidate, r.model)): r for r in rows}
    paper = by_metric.get(PUBLISHED_METRIC, {})
    columns = []
    for dataset in dict.fromkeys(d for d, _ in paper):
        series = tuple(s for d, s in paper if d == dataset)
        for element in ELEMENTS:
            medians = {
                metric: tuple(rows[(dataset, s)].median[element] for s in series)
                for metric, rows in by_metric.items()
            }
            columns.append(Column(dataset, element, series, medians))
    return tuple(columns), tuple(missing)


def _label(candidate: str, model: str | None) -> str:
    return f"{candidate} ({model})" if model else candidate
