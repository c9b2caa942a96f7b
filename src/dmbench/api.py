"""dmbench from Python: one object per data package, and the two functions a notebook needs most.

The command line is a thin layer over these calls. Tables come back as pandas DataFrames with
the package's own column names and a plain range index, read fresh on every call.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dmbench import paths
from dmbench.check import CheckReport
from dmbench.check import check as check_package
from dmbench.deposit import Deposit, build_deposit
from dmbench.metrics import DEFAULT_METRIC, Scores, compute
from dmbench.package import BuildResult, Report, load_records, require_package, validate_package
from dmbench.package import build as build_package
from dmbench.package.tables import (
    JUDGEMENTS_PATH,
    OUTPUTS_PATH,
    RUNS_PATH,
    SCORES_PATH,
    TABLE_FIELDS,
    run_table_rows,
)
from dmbench.plantuml import Diagram
from dmbench.plantuml import parse as parse_reading
from dmbench.runs.verify import VerifyReport
from dmbench.runs.verify import verify as verify_runs
from dmbench.sources.records import RECORD_FIELDS
from dmbench.tables.leaderboard import judge_leaderboard
from dmbench.tables.render import TableSet, build_tables
from dmbench.workflows import ScoringResult, score_runs

if TYPE_CHECKING:
    import pandas as pd

PathLike = str | os.PathLike[str]


def _frame(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    # pandas is loaded on first use: the command line calls this module but never needs a
    # DataFrame, and importing pandas would be most of `dmbench --help`'s start-up.
    import pandas

    return pandas.DataFrame(rows, columns=list(columns))


class Package:
    """A dmbench data package on disk (the folder holding ``datapackage.json``)."""

    def __init__(self, path: PathLike = ".") -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"Package({str(self.path)!r})"

    def build(self, sources: PathLike | None = None) -> BuildResult:
        """Build (or rebuild) the package here from the pinned upstream sources."""
        chosen = Path(sources) if sources is not None else paths.default_sources_dir(self.path)
        return build_package(self.path, chosen)

    def records(self) -> pd.DataFrame:
        """The 53 benchmark records (``data/records.csv``), texts and references verbatim."""
        records = load_records(require_package(self.path))
        return _frame([asdict(r) for r in records], RECORD_FIELDS)

    def runs(self) -> pd.DataFrame:
        """One row per run (``data/runs.csv``), with the settings that took effect."""
        return self._run_table(RUNS_PATH)

    def outputs(self) -> pd.DataFrame:
        """One row per run and record (``data/outputs.csv``): the generated PlantUML."""
        return self._run_table(OUTPUTS_PATH)

    def scores(self) -> pd.DataFrame:
        """Published and recomputed scores per run, record and metric (``data/scores.csv``)."""
        return self._run_table(SCORES_PATH)

    def judgements(self) -> pd.DataFrame:
        """One row per judge-model judgement of an output (``data/judgements.csv``)."""
        return self._run_table(JUDGEMENTS_PATH)

    def leaderboard(self, judge: str | None = None) -> dict[str, Any]:
        """The judge leaderboard (every judge run, or run ``judge``): ``{"rows",
        "comparisons", "warnings"}``, as ``dmbench leaderboard --format json`` prints it."""
        return judge_leaderboard(require_package(self.path), judge)

    def validate(self) -> Report:
        """Frictionless validation plus dmbench's own checks; ``.valid`` says whether all hold."""
        return validate_package(self.path)

    def verify(self, workers: int | None = None) -> VerifyReport:
        """Re-score every published record and compare with the published values (``.ok``)."""
        return verify_runs(require_package(self.path), workers=workers)

    def score(
        self,
        metric: str = DEFAULT_METRIC,
        runs: Sequence[str] | None = None,
        workers: int | None = None,
    ) -> ScoringResult:
        """Recompute the scores of ``runs`` (all by default) and store them as ``recomputed``."""
        return score_runs(self.path, metric, runs, workers)

    def tables(self, metric: str = DEFAULT_METRIC, scores: str = "published") -> TableSet:
        """Tables 1-3 as ``dmbench tables`` makes them (``.records()`` gives plain dicts)."""
        return build_tables(require_package(self.path), metric, scores)

    def check(self) -> CheckReport:
        """The downloader's check of this folder or zip, offline (``dmbench check``; ``.ok``)."""
        return check_package(self.path)

    def deposit(self, out: PathLike, doi: str | None = None, draft: bool = False) -> Deposit:
        """The Zenodo deposit's files, built reproducibly into ``out`` (``dmbench deposit``)."""
        return build_deposit(require_package(self.path), Path(out), doi, draft)

    def _run_table(self, path: str) -> pd.DataFrame:
        order = {r.record_id: i for i, r in enumerate(load_records(require_package(self.path)))}
        rows = run_table_rows(self.path, order)[path]
        return _frame(rows, TABLE_FIELDS[path])


def parse(text: str, reading: str = "compat") -> Diagram:
    """Read PlantUML; ``compat`` (the default here) reads it as the published metric did."""
    return parse_reading(text, reading)


def score_pair(reference: str, generated: str, metric: str = DEFAULT_METRIC) -> Scores:
    """The three scores of ``generated`` against ``reference`` (PlantUML strings)."""
    return compute(reference, generated, metric)
