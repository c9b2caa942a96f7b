"""``Package``, the API's one object per data package, and the verbs that need the whole stack.

``dmbench.api`` loads this module on first use of one of its names (see its docstring).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from dmbench.candidates import CandidateSpec, upstream_names
from dmbench.core import atomic, paths
from dmbench.errors import OptionError, PackageError
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
from dmbench.flows.reproduce import StageResult
from dmbench.flows.reproduce import reproduce as run_pipeline
from dmbench.inspect_eval import ImportedRun, import_inspect_logs
from dmbench.judge import JUDGE, JudgeOptions
from dmbench.judge.runs import JudgeRun
from dmbench.judge.runs import Progress as JudgeProgress
from dmbench.metrics import DEFAULT_METRIC
from dmbench.package import BuildResult, Report, load_records, require_package, validate_package
from dmbench.package import build as build_package
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.tables import (
    JUDGEMENTS_PATH,
    OUTPUTS_PATH,
    RUNS_PATH,
    SCORES_PATH,
    TABLE_FIELDS,
    run_table_rows,
)
from dmbench.package.zenodo import API_URLS, ZenodoClient
from dmbench.package.zipped import opened_package
from dmbench.plantuml._quirks import quirk_cost, to_csv, to_markdown
from dmbench.release.check import CheckReport
from dmbench.release.check import check as check_package
from dmbench.release.deposit import Deposit, Upload, build_deposit, upload_deposit
from dmbench.render import RenderBatch, cache_dir_for, render_diagrams
from dmbench.report import SiteResult, build_site
from dmbench.report.data import package_diagrams
from dmbench.report.outdir import refuse_foreign, write_drawings
from dmbench.runs.generate import Progress as GenerateProgress
from dmbench.runs.jobs import generate_records, read_records_file
from dmbench.runs.opened import OpenedPackage
from dmbench.runs.store import Run
from dmbench.runs.verify import VerifyReport
from dmbench.runs.verify import verify as verify_runs
from dmbench.sources import DEFAULT_BASE_URL, fetch
from dmbench.sources.published import output_rows, reference_rows
from dmbench.sources.records import ALL_DATASETS, RECORD_FIELDS
from dmbench.tables.agreement import AgreementTable, agreement_table
from dmbench.tables.errata import write_errata
from dmbench.tables.frames import Frame, leaderboard_frame, table_frame
from dmbench.tables.leaderboard_files import judge_leaderboard
from dmbench.tables.leaderboard_files import write_leaderboard as write_leaderboard_file
from dmbench.tables.published_tables import write_scored_tables
from dmbench.tables.render import TableSet, build_tables
from dmbench.tables.validity import (
    ValidityTable,
    validity_table,
    write_validity,
)

if TYPE_CHECKING:
    import pandas as pd

PathLike = str | os.PathLike[str]


def _frame(made: Frame) -> pd.DataFrame:
    # pandas is loaded on first use: the command line calls this module but never needs a
    # DataFrame, and importing pandas would be most of `dmbench --help`'s start-up.
    import pandas

    frame = pandas.DataFrame(made.rows, columns=list(made.columns))
    return frame.astype(made.dtypes) if made.dtypes else frame


class Package:
    """A dmbench data package on disk (the folder holding ``datapackage.json``)."""

    def __init__(self, path: PathLike | None = None) -> None:
        given = Path(path) if path is not None else Path.cwd()
        # The descriptor names its package, as frictionless takes it.
        self.path = given.parent if given.name == DESCRIPTOR else given

    def __repr__(self) -> str:
        return f"Package({str(self.path)!r})"

    def build(self, sources: PathLike | None = None) -> BuildResult:
        """Build (or rebuild) the package here from the pinned upstream sources."""
        chosen = Path(sources) if sources is not None else paths.default_sources_dir(self.path)
        return build_package(self.path, chosen)

    @contextmanager
    def _folder(self) -> Iterator[Path]:
        """The package's folder; a deposit's package zip is read from its declared files,
        extracted aside for the one call (as ``check`` reads it)."""
        if self.path.is_file():
            with opened_package(self.path) as folder:
                yield folder
        else:
            yield require_package(self.path)

    def records(self) -> pd.DataFrame:
        """The 53 benchmark records (``data/records.csv``), texts and references verbatim."""
        with self._folder() as folder:
            records = load_records(folder)
        return _frame(Frame(RECORD_FIELDS, [asdict(r) for r in records]))

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

    def leaderboard(
        self,
        judge: str | None = None,
        out: PathLike | None = None,
        fmt: str = "md",
        strict: bool = False,
    ) -> dict[str, Any]:
        """The judge leaderboard (every judge run, or run ``judge``): ``{"headline", "boards",
        "rows", "comparisons", "detectability", "view_agreement", "tells", "warnings"}``, as
        ``dmbench leaderboard --format json`` prints it. With ``out``, also written there as
        ``leaderboard.md`` (``fmt="md"``) or ``leaderboard.csv``; ``strict`` refuses a package
        without judge runs rather than giving an empty board."""
        with self._folder() as folder:
            board = judge_leaderboard(folder, judge)
        if strict and not board["rows"] and not board["detectability"]:
            raise PackageError("no judge runs in the package; run `dmbench judge --runs ...` first")
        if out is not None:
            if fmt not in ("md", "csv"):
                raise OptionError(f"leaderboard files are md or csv, not {fmt!r}")
            write_leaderboard_file(board, Path(out), fmt)
        return board

    def leaderboard_frame(self, judge: str | None = None) -> pd.DataFrame:
        """The judge leaderboard's rows as ``leaderboard.csv`` flattens them: ``rank`` an
        integer (missing for the identity control), the LLM column ``model`` as in every frame."""
        return _frame(leaderboard_frame(self.leaderboard(judge)))

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

    def tables(
        self,
        table: str = "table2",
        metric: str = DEFAULT_METRIC,
        scores: str = "published",
        all_rows: bool = False,
    ) -> pd.DataFrame:
        """``table1``, ``table2``, ``table3`` or ``comparisons`` as a DataFrame with flat
        columns: one float per element and statistic (``class_median``, ``class_ci_low``, ...),
        unrounded, NaN where there is none. Tables 2-3 and the comparisons hold the paper's
        (canonical) cells unless ``all_rows``; the LLM column is ``model``."""
        return _frame(table_frame(self.table_set(metric, scores), table, all_rows))

    def table_set(self, metric: str = DEFAULT_METRIC, scores: str = "published") -> TableSet:
        """Tables 1-3 and their comparisons as ``dmbench tables`` writes them (``.records()``
        gives the JSON list)."""
        with self._folder() as folder:
            return build_tables(folder, metric, scores)

    def write_tables(self, out: PathLike = "results") -> tuple[list[Path], TableSet]:
        """Tables 1-3 of every metric that has scores, as ``dmbench tables`` writes them under
        ``out`` (metrik-4 at the top, metrik-4-standard in its folder); the published set."""
        return write_scored_tables(require_package(self.path), Path(out))


    def check(
        self,
        sha256: str | None = None,
        md5: str | None = None,
        plantuml: bool = False,
        no_anchor: bool = False,
    ) -> CheckReport:
        """The downloader's check of this folder or zip, offline (``dmbench check``): ``.ok``
        when it holds and is anchored (on ``SHA256SUMS`` beside the zip, or the ``sha256`` /
        ``md5`` of the record page), or ``no_anchor`` accepts an unanchored one;
        ``.consistent`` when it holds, anchored or not; ``.exit_code`` the command's. ``plantuml``
        redraws PlantUML's verdict too (needs Java and Graphviz)."""
        return check_package(self.path, sha256, md5, plantuml, no_anchor)

    def deposit(
        self,
        out: PathLike,
        doi: str | None = None,
        draft: bool = False,
        repo: PathLike | None = None,
        wheels: bool = False,
    ) -> Deposit:
        """The Zenodo deposit's files, built reproducibly into ``out`` (``dmbench deposit``);
        ``repo`` is the checkout the code zip archives (default: the package folder); ``wheels``
        adds the wheels zip that installs ``check`` with no network."""
        # No package check first: what is wrong with the release (a dirty tree, the placeholder
        # DOI, a nameless citation) is refused before the package is read, as the command does.
        return build_deposit(self.path, Path(out), doi, draft, _path(repo), wheels)

    def upload(
        self,
        out: PathLike,
        token: str,
        target: str = "zenodo",
        new_version_of: int | None = None,
        draft: bool = False,
        repo: PathLike | None = None,
        progress: Callable[[str], None] = lambda _: None,
        wheels: bool = False,
    ) -> Upload:
        """Reserve a DOI on a new Zenodo draft (of record ``new_version_of``, when given), build
        the deposit with it into ``out``, upload every file and compare the checksums Zenodo
        returns (``dmbench deposit --upload``). ``target`` is ``zenodo``, ``sandbox`` or the
        URL of a Zenodo API; ``token`` a token with the ``deposit:write`` scope."""
        client = ZenodoClient(API_URLS.get(target, target), token)
        return upload_deposit(
            client, self.path, Path(out), new_version_of, draft, _path(repo),
            progress=progress, wheels=wheels,
        )  # fmt: skip

    def errata(self, out: PathLike = "docs/errata.md", sources: PathLike | None = None) -> Path:
        """Write the errata (``dmbench errata``): the paper's claims and the scoring facts,
        measured from the package; the study's files are read from ``sources``."""
        return write_errata(require_package(self.path), Path(out), _path(sources))

    def validity(self, out: PathLike | None = None) -> ValidityTable:
        """PlantUML's verdict per series and dataset (``dmbench validity``), drawing what is not
        drawn yet; with ``out``, also written there as validity.csv, .md and .json."""
        table = validity_table(require_package(self.path))
        if out is not None:
            write_validity(table, Path(out))
        return table

    def agreement(
        self,
        sources: PathLike | None = None,
        metrics: Sequence[str] | None = None,
        strict: bool = True,
    ) -> AgreementTable:
        """The metric study's consistency table and section 3.3's claims (``dmbench
        agreement``): the study's five metrics as published, ``metrics`` (default: every
        registered one) recomputed, and the judge study runs stored in this package. The study
        needs no package: unless ``strict``, a folder without one adds no judge rows."""
        if strict:
            require_package(self.path)
        chosen = Path(sources) if sources is not None else paths.default_sources_dir()
        return agreement_table(chosen, metrics or None, self.path)

    def render(self, runs: Sequence[str] = (), out: PathLike | None = None) -> RenderBatch:
        """Draw every reference and the outputs of ``runs`` (default: every run) with PlantUML,
        cached by source (``dmbench render``); with ``out``, the folder is replaced by the
        drawings as ``<sha256>.svg``."""
        if out is not None:
            refuse_foreign(Path(out), self.path, "render")
        batch = render_diagrams(package_diagrams(self.path, list(runs) or None),
                                cache_dir_for(self.path))  # fmt: skip
        if out is not None:
            write_drawings(batch, Path(out), self.path)
        return batch

    def report(
        self, out: PathLike = "report", progress: Callable[[str], None] | None = None
    ) -> SiteResult:
        """Build the HTML report into ``out`` (``dmbench report``), replaced whole, and check
        its links; ``.ok`` says whether every link and image resolves."""
        return build_site(self.path, Path(out), progress=progress)

    def reproduce(
        self,
        sources: PathLike | None = None,
        results: PathLike = "results",
        errata: PathLike = "docs/errata.md",
        report: PathLike = "report",
        workers: int | None = None,
        rescore_all: bool = False,
    ) -> Iterator[StageResult]:
        """The main job (``dmbench reproduce``), each stage's result as it finishes."""
        return run_pipeline(self.path, _path(sources), Path(results), Path(errata), workers,
                            Path(report), rescore_all)  # fmt: skip

    def _run_table(self, path: str) -> pd.DataFrame:
        with self._folder() as folder:
            opened = OpenedPackage(folder)
            order = {r.record_id: i for i, r in enumerate(opened.records())}
            rows = run_table_rows(opened, order)[path]
        return _frame(Frame(tuple(TABLE_FIELDS[path]), rows))


def _path(path: PathLike | None) -> Path | None:
    return Path(path) if path is not None else None


def fetch_sources(cache: PathLike | None = None, base_url: str = DEFAULT_BASE_URL) -> Path:
    """Download the pinned upstream archives into ``cache`` (default: the fetch cache) and
    extract the pinned files, each checked against its sha256 (``dmbench sources fetch``)."""
    return fetch(Path(cache) if cache is not None else paths.fetch_cache_dir(), base_url=base_url)


def quirk_tables(sources: PathLike | None = None, out: PathLike | None = None) -> tuple[str, str]:
    """What the compat reading loses against the standard one over the published references
    and outputs, per dataset and candidate: (CSV, Markdown), as ``dmbench quirks`` writes them;
    with ``out``, also written there as ``quirk_cost.csv`` and ``quirk_cost.md``."""
    chosen = Path(sources) if sources is not None else paths.default_sources_dir()
    records = quirk_cost([*reference_rows(chosen), *output_rows(chosen, upstream_names())])
    csv, markdown = to_csv(records), to_markdown(records)
    if out is not None:
        atomic.write_text(Path(out) / "quirk_cost.csv", csv)
        atomic.write_text(Path(out) / "quirk_cost.md", markdown)
    return csv, markdown

