"""Scores of 1.000 where the output has none of the element: the metrics' own definitions.

metrik-1 scores ``1 - mistakes / max(1, elements)`` and finds no attribute mistake where no
mapped class has an attribute; metrik-2 gives 1 when no attribute weighs anything; metrik-4
gives 1 to a set similarity of two empty sets and to relSim when neither diagram has an edge.
So an output with no attribute (or no edge) can score 1.000 for it. Upstream's metrics do this
and dmbench keeps it for parity; the errata count it and a record page says so beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from dmbench.errors import ParseError
from dmbench.metrics import METRICS, element_counts
from dmbench.plantuml import parse
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.scores import ScoreRow
from dmbench.tables.results import select_scores

ELEMENT_KINDS = {
    "class": ("classes",),
    "attribute": ("attributes",),
    "association": ("associations", "dependencies", "generalizations"),
}
"""Which of metrik-4's counts of a diagram hold each scored element."""
PERFECT = 0.9995
"""Shown as 1.000 with three decimals."""


def output_counts(generated: str) -> dict[str, int] | None:
    """The output's elements as metrik-4 counts them (its reading); None if it does not parse."""
    try:
        return element_counts(parse(generated, "compat"))
    except ParseError:
        return None


def perfect_on_nothing(
    scores: Mapping[str, ScoreRow], counts: Mapping[str, int] | None
) -> tuple[tuple[str, str], ...]:
    """(metric, element) of every score of 1.000 for an element the output has none of."""
    if counts is None:
        return ()
    return tuple(
        (metric, element)
        for metric, row in scores.items()
        for element, kinds in ELEMENT_KINDS.items()
        if getattr(row, f"{element}_score") >= PERFECT and not any(counts[k] for k in kinds)
    )


def count_perfect_on_nothing(package: PackageSource) -> Counter[tuple[str, str]]:
    """Per (metric, element), the non-empty canonical outputs (each run's) scored so, with
    the scores the tables use (published where a run has them)."""
    found: Counter[tuple[str, str]] = Counter()
    for run in open_package(package).runs():
        if not run.info.canonical:
            continue
        by_record: dict[str, dict[str, ScoreRow]] = {}
        for metric in METRICS:
            for row in (select_scores(run, metric, "published") or ("", []))[1]:
                by_record.setdefault(row.record_id, {})[metric] = row
        for output in run.outputs():
            if output.generated.strip():
                counts = output_counts(output.generated)
                found.update(perfect_on_nothing(by_record.get(output.record_id, {}), counts))
    return found
