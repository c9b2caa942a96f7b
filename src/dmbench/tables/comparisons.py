"""How sure the ranking of Tables 2-3 is: paired comparisons of the canonical cells.

Two cells of one table were run on the same records, so they are compared record by record:
``diff`` is the mean over the shared records of (the record's mean over a's runs − the same for
b), with a paired bootstrap interval and a sign-flip permutation p-value; ``p_holm`` adjusts the
p-values of one (metric, dataset, element) family by Holm. A column's best cell is called best
only when it beats the second with ``p_holm`` < ``ALPHA``; cells whose difference from the best
is not significant are tied with it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from dmbench.tables.results import ELEMENTS, ResultRow
from dmbench.tables.statistics import holm, paired_interval, sign_flip_p

ALPHA = 0.05
COMPARISON_FIELDS = (
    "table",
    "metric",
    "dataset",
    "element",
    "a",
    "b",
    "n",
    "diff",
    "ci_low",
    "ci_high",
    "p_value",
    "p_holm",
)
"""The columns of ``comparisons.csv`` and the keys of its JSON rows, in order."""


@dataclass(frozen=True, slots=True)
class Paired:
    """Series ``a`` against ``b`` on the records both have: the mean difference a − b, its
    paired bootstrap interval, the sign-flip p-value and its Holm adjustment in the family."""

    a: str
    b: str
    n: int
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    p_holm: float


def compare_paired(series: Sequence[tuple[str, Mapping[str, float]]]) -> list[Paired]:
    """Every pair of ``(name, value per record)`` series, in the order given, as one Holm
    family; a pair with no record in common is left out. Tables 2-3 and the judge leaderboard
    both compare this way."""
    family = []
    for (a, a_values), (b, b_values) in itertools.combinations(series, 2):
        shared = sorted(set(a_values) & set(b_values))
        if not shared:
            continue
        differences = np.array([a_values[r] - b_values[r] for r in shared])
        low, high = paired_interval(differences)
        family.append((a, b, differences, low, high, sign_flip_p(differences)))
    adjusted = holm([f[-1] for f in family])
    return [
        Paired(a, b, len(d), float(d.mean()), low, high, p, p_adj)
        for (a, b, d, low, high, p), p_adj in zip(family, adjusted, strict=True)
    ]


@dataclass(frozen=True, slots=True)
class Comparison(Paired):
    """A paired comparison of two cells of Tables 2-3, in one (metric, dataset, element)."""

    metric: str
    dataset: str
    element: str

    def to_record(self) -> dict:
        fields = COMPARISON_FIELDS[1:]
        return {"table": "comparisons"} | {name: getattr(self, name) for name in fields}


def compare_cells(rows: Sequence[ResultRow]) -> list[Comparison]:
    """Every pair of canonical cells per (metric, dataset, element), in table order."""
    comparisons = []
    canonical = [r for r in rows if r.canonical]
    families = sorted({(r.metric, r.dataset) for r in canonical})
    for (metric, dataset), element in itertools.product(families, ELEMENTS):
        index = ELEMENTS.index(element)
        cells = [r for r in canonical if (r.metric, r.dataset) == (metric, dataset)]
        series = [(r.series, {k: v[index] for k, v in r.record_means.items()}) for r in cells]
        comparisons += [
            Comparison(**asdict(paired), metric=metric, dataset=dataset, element=element)
            for paired in compare_paired(series)
        ]
    return comparisons


@dataclass(frozen=True, slots=True)
class ColumnVerdict:
    """One column of a paper table: its best cell, whether it is clearly best, and its ties."""

    element: str
    best: ResultRow
    second: ResultRow | None
    against_second: Comparison | None
    tied: tuple[tuple[ResultRow, Comparison], ...]
    """Cells not significantly different from the best, with that comparison."""

    @property
    def clear(self) -> bool:
        """The best beats the second in the same direction with Holm p < ALPHA."""
        c = self.against_second
        return c is not None and c.p_holm < ALPHA and _oriented_diff(c, self.best) > 0


def _oriented_diff(comparison: Comparison, best: ResultRow) -> float:
    return comparison.diff if comparison.a == best.series else -comparison.diff


def find(
    comparisons: Sequence[Comparison], element: str, x: ResultRow, y: ResultRow
) -> Comparison | None:
    """The comparison of cells ``x`` and ``y`` in ``element``, whichever was compared first."""
    for c in comparisons:
        if (c.metric, c.dataset, c.element) == (x.metric, x.dataset, element) and {c.a, c.b} == {
            x.series,
            y.series,
        }:
            return c
    return None


def column_verdicts(
    rows: Sequence[ResultRow], comparisons: Sequence[Comparison], dataset: str
) -> list[ColumnVerdict]:
    """Per element of one dataset's canonical cells: the best by median, as the paper bolds."""
    cells = [r for r in rows if r.canonical and r.dataset == dataset]
    verdicts = []
    for element in ELEMENTS if cells else ():
        ranked = sorted(cells, key=lambda r: -r.median[element])
        best = ranked[0]
        second = ranked[1] if len(ranked) > 1 else None
        tied = []
        for other in ranked[1:]:
            c = find(comparisons, element, best, other)
            if c is not None and c.p_holm >= ALPHA:
                tied.append((other, c))
        verdicts.append(
            ColumnVerdict(
                element,
                best,
                second,
                find(comparisons, element, best, second) if second else None,
                tuple(tied),
            )
        )
    return verdicts
