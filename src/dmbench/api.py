"""dmbench from Python: one object per data package, and the two functions a notebook needs most.

The command line is a thin layer over these calls. Tables come back as pandas DataFrames with
the package's own column names and a plain range index, read fresh on every call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from dmbench.candidates import CandidateSpec
from dmbench.core import paths
from dmbench.flows.changes import (
    ImportedBundle,
    ScoringResult,
    build_candidate,
    build_own_candidate,
    export_package_run,
    generate_dataset_runs,
    import_package_run,
    judge_own_pairs,
    judge_package,
    make_judges,
    score_runs,
)
from dmbench.flows.reproduce import reproduce as run_pipeline
from dmbench.inspect_eval import ImportedRun, import_inspect_logs
from dmbench.judge import JUDGE, JudgeOptions
from dmbench.judge.runs import CONTROLS, JudgeRun
from dmbench.judge.runs import Progress as JudgeProgress
from dmbench.llm.llm_candidate import CUT
from dmbench.metrics import DEFAULT_METRIC, Scores, compute
from dmbench.package import BuildResult, Report, load_records, require_package, validate_package
from dmbench.package import build as build_package
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.metadata import write_metadata
from dmbench.package.tables import (
    JUDGEMENTS_PATH,
    OUTPUTS_PATH,
    RUNS_PATH,
    SCORES_PATH,
    TABLE_FIELDS,
    run_table_rows,
)
from dmbench.package.zenodo import API_URLS, TOKEN_ENV, ZenodoClient
from dmbench.plantuml import DEFAULT_READING, Diagram
from dmbench.plantuml import parse as parse_reading
from dmbench.plantuml._quirks import quirk_cost, to_csv, to_markdown
from dmbench.release.check import CheckReport
from dmbench.release.check import check as check_package
from dmbench.release.deposit import Deposit, build_deposit, upload_deposit
from dmbench.render import LAYOUT, PLANTUML_VERSION, cache_dir_for, render_diagrams
from dmbench.report import build_site
from dmbench.report.data import package_diagrams
from dmbench.report.outdir import refuse_foreign, write_drawings
from dmbench.runs.generate import Progress as GenerateProgress
from dmbench.runs.jobs import generate_records, read_records_file
from dmbench.runs.store import Run
from dmbench.runs.verify import VerifyReport
from dmbench.runs.verify import verify as verify_runs
from dmbench.sources import DEFAULT_BASE_URL, fetch
from dmbench.sources.published import output_rows, reference_rows
from dmbench.sources.records import ALL_DATASETS, DATASET_CHOICES, RECORD_FIELDS
from dmbench.tables import SCORE_SOURCES
from dmbench.tables.agreement import agreement_csv, agreement_markdown, agreement_table
from dmbench.tables.errata import write_errata
from dmbench.tables.leaderboard_files import judge_leaderboard
from dmbench.tables.leaderboard_files import write_leaderboard as write_leaderboard_file
from dmbench.tables.published_tables import write_scored_tables
from dmbench.tables.render import TableSet, build_tables, write_tables
from dmbench.tables.validity import (
    VALIDITY_FIELDS,
    validity_csv_rows,
    validity_markdown,
    validity_table,
    write_validity,
)

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

    def generate(
        self,
        candidate: str | Callable[[str], str] | CandidateSpec | None = None,
        model: str | None = None,
        dataset: str = ALL_DATASETS,
        runs: int = 1,
        hosts: Sequence[str] = (),
        offline: bool = False,
        workers: int = 1,
        on_output: GenerateProgress | None = None,
        command: str | None = None,
        name: str | None = None,
        **options: Any,
    ) -> list[Run]:
        """Runs 1..``runs`` of ``candidate`` on ``dataset`` (``all``: both), resumed where stored.

        ``candidate`` is a registered name, a ``CandidateSpec``, or a Python function (text in,
        PlantUML out) named ``name``; or give ``command`` and ``name`` for a command run once per
        record (text on stdin, PlantUML on stdout). ``options`` are the candidate's generation
        settings (``dmbench.candidates()`` lists them with upstream's defaults); each one given
        becomes part of the run's settings and id."""
        if isinstance(candidate, str):
            system = build_candidate(self.path, candidate, model, hosts, offline, workers,
                                     **options)  # fmt: skip
        else:
            system = build_own_candidate(name, command, candidate, workers=workers,
                                         model=model, hosts=hosts, offline=offline, **options)  # fmt: skip
        return generate_dataset_runs(self.path, system, dataset, runs, on_output)

    def generate_records(
        self,
        candidate: str | Callable[[str], str] | CandidateSpec | None,
        records: IO[bytes] | IO[str],
        source: str = "<records>",
        model: str | None = None,
        hosts: Sequence[str] = (),
        offline: bool = False,
        workers: int = 1,
        command: str | None = None,
        name: str | None = None,
        **options: Any,
    ) -> Iterator[dict[str, Any]]:
        """``candidate`` (or ``command``, as for ``generate``) on your own JSON-lines records
        (``{"id", "text"}``), nothing stored: one ``{"id", "generated", "failed", "error"}``
        per record, in order."""
        if isinstance(candidate, str):
            system = build_candidate(self.path, candidate, model, hosts, offline, workers,
                                     **options)  # fmt: skip
        else:
            system = build_own_candidate(name or "records", command, candidate, workers=workers,
                                         model=model, hosts=hosts, offline=offline, **options)  # fmt: skip
        return generate_records(system, read_records_file(records, source=source))

    def export_run(self, run_id: str, out: PathLike) -> Path:
        """Stored run ``run_id`` as a checked bundle (zip) at ``out``, for another package."""
        return export_package_run(self.path, run_id, Path(out))

    def import_run(self, bundle: PathLike) -> ImportedBundle:
        """A bundle's run stored here as it was exported, after checking that its records are
        this package's and its hashes and schema hold; then scored here (Tables 2-3's
        metrics)."""
        return import_package_run(self.path, Path(bundle))

    def judge(
        self,
        models: Sequence[str],
        runs: Sequence[str] = (),
        canonical: bool = False,
        study: bool = False,
        sources: PathLike | None = None,
        hosts: Sequence[str] = (),
        options: JudgeOptions = JUDGE.options,
        criteria: PathLike | None = None,
        control: str | None = None,
        workers: int = 1,
        timeout: float = JUDGE.timeout,
        offline: bool = False,
        retry_failed: bool = False,
        on_start: Callable[[JudgeRun, int], None] | None = None,
        on_row: JudgeProgress | None = None,
        on_warning: Callable[[str], None] | None = None,
    ) -> JudgeRun:
        """Judge the outputs of stored ``runs`` (or every ``canonical`` run, or the metric
        ``study``'s 39 pairs) with judge ``models`` into a judge run, resumed where stored.

        ``options`` (seed, both orders, num_predict, num_ctx, think) hold the judge's defaults;
        ``criteria`` is a criteria file (default: dmbench's criteria-v1.json)."""
        judges = make_judges(self.path, models, _path(criteria), options, hosts, timeout, offline)
        return judge_package(self.path, judges, runs, canonical, study, _path(sources), control,
                             workers, retry_failed, on_start, on_row, on_warning)  # fmt: skip

    def judge_pairs(
        self,
        models: Sequence[str],
        pairs: IO[bytes] | IO[str],
        source: str = "<pairs>",
        hosts: Sequence[str] = (),
        options: JudgeOptions = JUDGE.options,
        criteria: PathLike | None = None,
        control: str | None = None,
        workers: int = 1,
        timeout: float = JUDGE.timeout,
        offline: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """Judge your own JSON-lines pairs (``{"id", "text", "reference", "generated"}``),
        nothing stored: one result per pair, in input order (the package holds the cache)."""
        judges = make_judges(self.path, models, _path(criteria), options, hosts, timeout, offline)
        return judge_own_pairs(judges, pairs, source, control, workers)

    def leaderboard(self, judge: str | None = None) -> dict[str, Any]:
        """The judge leaderboard (every judge run, or run ``judge``): ``{"rows",
        "comparisons", "warnings"}``, as ``dmbench leaderboard --format json`` prints it."""
        return judge_leaderboard(require_package(self.path), judge)

    def import_inspect(self, logs: Sequence[PathLike]) -> list[ImportedRun]:
        """Store the runs of ``inspect eval dmbench/domain_modelling`` logs (one per epoch),
        checked before anything is written; a run already imported from its log is left as is.
        Reading a log needs the extra ``dmbench[inspect]``."""
        return import_inspect_logs(self.path, [Path(log) for log in logs])

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

    def write_tables(self, out: PathLike = "results") -> tuple[list[Path], TableSet]:
        """Tables 1-3 of every metric that has scores, as ``dmbench tables`` writes them under
        ``out`` (metrik-4 at the top, metrik-4-standard in its folder); the published set."""
        return write_scored_tables(require_package(self.path), Path(out))

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


def _path(path: PathLike | None) -> Path | None:
    return Path(path) if path is not None else None


def write_leaderboard(board: dict[str, Any], out: PathLike, fmt: str) -> Path:
    """``leaderboard.md`` (``fmt="md"``) or ``leaderboard.csv`` in ``out`` from
    :meth:`Package.leaderboard`'s board."""
    return write_leaderboard_file(board, Path(out), fmt)


def quirk_tables(sources: PathLike | None = None) -> tuple[str, str]:
    """What the compat reading loses against the standard one over the published references
    and outputs, per dataset and candidate: (CSV, Markdown), as ``dmbench quirks`` writes them."""
    chosen = Path(sources) if sources is not None else paths.default_sources_dir()
    records = quirk_cost([*reference_rows(chosen), *output_rows(chosen)])
    return to_csv(records), to_markdown(records)


def parse(text: str, reading: str = DEFAULT_READING) -> Diagram:
    """Read PlantUML as it means it (``standard``); ``compat`` reads it as metrik-4 scored it."""
    return parse_reading(text, reading)


def score_pair(reference: str, generated: str, metric: str = DEFAULT_METRIC) -> Scores:
    """The three scores of ``generated`` against ``reference`` (PlantUML strings)."""
    return compute(reference, generated, metric)


#: The library API, and below it what the command line uses besides (its one door to the stages).
__all__ = [
    "Package",
    "parse",
    "quirk_tables",
    "score_pair",
    "write_leaderboard",
    "API_URLS",
    "CONTROLS",
    "CUT",
    "DATASET_CHOICES",
    "DEFAULT_BASE_URL",
    "JUDGE",
    "DESCRIPTOR",
    "JudgeOptions",
    "JudgeRun",
    "LAYOUT",
    "PLANTUML_VERSION",
    "VALIDITY_FIELDS",
    "SCORE_SOURCES",
    "TOKEN_ENV",
    "ZenodoClient",
    "agreement_csv",
    "agreement_markdown",
    "agreement_table",
    "build_deposit",
    "build_site",
    "cache_dir_for",
    "check_package",
    "fetch",
    "package_diagrams",
    "refuse_foreign",
    "render_diagrams",
    "require_package",
    "run_pipeline",
    "upload_deposit",
    "validity_csv_rows",
    "validity_markdown",
    "validity_table",
    "write_drawings",
    "write_errata",
    "write_metadata",
    "write_tables",
    "write_validity",
]
