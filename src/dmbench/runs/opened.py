"""A package opened once: its records, its runs and each run's outputs and scores, each read on
first use and then kept.

The main job's stages (verify, score, tables, errata, report) all read the same records and runs;
handing them one opened package instead of its folder reads each file once per process instead
of once per stage. A stage that stores scores takes :meth:`OpenedPackage.rescored` afterwards,
so what follows reads the new scores. The functions of the later stages accept a folder as well
(``PackageSource``), for the commands that run one of them alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dmbench.errors import UnknownNameError
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import OutputRow, Run, list_runs
from dmbench.sources.records import (
    ALL_DATASETS,
    RECORDS_PATH,
    BenchmarkRecord,
    load_records,
    of_dataset,
    require_dataset,
)


class _KeptRun(Run):
    """A run whose outputs and scores are read from disk once; callers get their own lists."""

    def __init__(self, run: Run, outputs: list[OutputRow] | None = None) -> None:
        super().__init__(run.path, run.info, run.record_ids)
        self._outputs = outputs
        self._scores: list[ScoreRow] | None = None

    def outputs(self) -> list[OutputRow]:
        if self._outputs is None:
            self._outputs = super().outputs()
        return list(self._outputs)

    def scores(self) -> list[ScoreRow]:
        if self._scores is None:
            self._scores = super().scores()
        return list(self._scores)

    def rescored(self) -> _KeptRun:
        """The same run with its outputs kept and its scores to be read again."""
        return _KeptRun(self, self._outputs)


class OpenedPackage:
    """A package folder read lazily and once; see the module."""

    def __init__(
        self,
        path: Path,
        records: list[BenchmarkRecord] | None = None,
        runs: list[_KeptRun] | None = None,
    ) -> None:
        self.path = Path(path)
        self._records = records
        self._runs = runs

    def __repr__(self) -> str:
        return f"OpenedPackage({str(self.path)!r})"

    def records(self, dataset: str = ALL_DATASETS) -> list[BenchmarkRecord]:
        """The records of one dataset or ``all``, in run order, as ``load_records`` gives them."""
        require_dataset(dataset)
        if self._records is None:
            self._records = load_records(self.path)
        return of_dataset(self._records, dataset)

    def runs(self) -> list[Run]:
        """The package's generation runs, as ``list_runs`` gives them (outputs, scores kept)."""
        if self._runs is None:
            present = (self.path / RECORDS_PATH).is_file()
            runs = list_runs(self.path, self.records() if present else None)
            self._runs = [_KeptRun(run) for run in runs]
        return list(self._runs)

    def select_runs(self, run_ids: Sequence[str] | None = None) -> list[Run]:
        """The runs, or the named ones (an unknown name is an error, not a no-op)."""
        runs = self.runs()
        if not run_ids:
            return runs
        by_id = {run.info.run_id: run for run in runs}
        unknown = [r for r in run_ids if r not in by_id]
        if unknown:
            raise UnknownNameError(
                f"unknown run id(s): {', '.join(unknown)}",
                hint="`dmbench tables` or data/runs.csv list them",
            )
        return [by_id[r] for r in dict.fromkeys(run_ids)]

    def rescored(self) -> OpenedPackage:
        """This package after its score files were rewritten: records, runs and outputs kept,
        every run's scores read again on first use."""
        runs = None if self._runs is None else [run.rescored() for run in self._runs]
        return OpenedPackage(self.path, self._records, runs)


PackageSource = Path | OpenedPackage
"""What the stage functions read: a package folder, or a package already opened."""


def open_package(package: PackageSource) -> OpenedPackage:
    """``package`` itself when already opened, else its folder opened now."""
    return package if isinstance(package, OpenedPackage) else OpenedPackage(Path(package))

