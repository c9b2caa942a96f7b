"""The published tables: which metrics and score rows ``results/`` holds, written in one place.

The main job writes them, a deposit ships them and ``dmbench check`` recomputes them, so all
three read this one list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dmbench.metrics import DEFAULT_METRIC, STANDARD_METRIC
from dmbench.runs.opened import PackageSource, open_package
from dmbench.tables.render import TableSet, build_tables, write_tables
from dmbench.tables.results import has_scores


@dataclass(frozen=True, slots=True)
class ResultSet:
    """One set of Tables 1-3: the metric, which score rows, the folder under ``results/``."""

    metric: str
    source: str
    folder: str


RESULT_SETS = (
    ResultSet(DEFAULT_METRIC, "published", ""),
    ResultSet(STANDARD_METRIC, "recomputed", STANDARD_METRIC),
)


def published_tables(package: PackageSource) -> list[tuple[ResultSet, TableSet]]:
    """Each result set with its Tables 1-3, as ``results/`` holds them."""
    return [
        (result_set, build_tables(package, result_set.metric, result_set.source))
        for result_set in RESULT_SETS
    ]


def write_scored_tables(package: PackageSource, results_dir: Path) -> tuple[list[Path], TableSet]:
    """What ``dmbench tables`` writes by default: the published set, and each other set whose
    metric has scores in the package, so that no folder of ``results/`` goes stale after new
    runs are scored. The paths written and the published set's tables."""
    opened = open_package(package)
    first = build_tables(opened, RESULT_SETS[0].metric, RESULT_SETS[0].source)
    written = write_tables(first, Path(results_dir) / RESULT_SETS[0].folder)
    for result_set in RESULT_SETS[1:]:
        if has_scores(opened, result_set.metric, result_set.source):
            table = build_tables(opened, result_set.metric, result_set.source)
            written += write_tables(table, Path(results_dir) / result_set.folder)
    return written, first


def write_published_tables(
    tables: Sequence[tuple[ResultSet, TableSet]], results_dir: Path
) -> list[Path]:
    """Every published table (``published_tables``' sets) under ``results_dir``; the paths
    written."""
    written = []
    for result_set, table in tables:
        written += write_tables(table, Path(results_dir) / result_set.folder)
    return written
