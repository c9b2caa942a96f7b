"""The main job as one library call: prerequisites, build, verify, score, tables, errata, validate,
report.

Each stage is timed and reported, so a reader sees where the minutes go, and the job is ``ok``
only when verification and validation both hold. On a machine with nothing but the checkout,
the first stage downloads the pinned upstream archives and the NLTK data.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dmbench.core import paths
from dmbench.errors import MissingPrerequisiteError, SourceError
from dmbench.flows.changes import score_metrics
from dmbench.metrics import (
    METRICS,
    PUBLISHED_METRIC,
    download_nltk_data,
    require_nltk_data,
)
from dmbench.package import build, validate_package
from dmbench.report import build_site
from dmbench.runs.opened import OpenedPackage
from dmbench.runs.pair_scores import PairScores
from dmbench.runs.rescoring import Rescored, rescore
from dmbench.runs.verify import verify
from dmbench.sources import fetch, pinned_files, verify_all
from dmbench.tables.errata import errata_markdown, write_errata_text
from dmbench.tables.published_tables import (
    RESULT_SETS,
    ResultSet,
    published_tables,
    write_published_tables,
)
from dmbench.tables.render import TableSet
from dmbench.tables.validity import ValidityTable, validity_table, write_validity


@dataclass(frozen=True, slots=True)
class StageResult:
    """One stage of the main job as it finished: its report line, and whether the job may go on."""
    name: str
    seconds: float
    ok: bool
    summary: str
    detail: str = ""


OFFLINE_SOURCES_HINT = (
    f"without the network, point --sources DIR or ${paths.SOURCES_ENV} at a folder holding the "
    "pinned upstream files (`dmbench sources fetch --cache DIR` fills one where there is network)"
)


def _reuse_note(reused: int, pairs: int) -> str:
    """What a stage took from the kept pair scores, if anything."""
    if not reused:
        return ""
    return (
        f"; {reused} of {pairs} distinct pair scores computed by an earlier run with the same "
        "scoring code and libraries, kept in the user cache (--rescore computes them all)"
    )


def ensure_prerequisites(sources_dir: Path | None, package_dir: Path) -> tuple[Path, str]:
    """The sources to build from and what was done to get them and the NLTK data ready.

    An explicit ``sources_dir`` must hold the pinned files; by default the mirrored sources are
    used when present, else the fetch cache, which is filled by downloading when incomplete.
    """
    notes = []
    if sources_dir is None:
        sources_dir = paths.default_sources_dir(package_dir)
        if sources_dir == paths.fetch_cache_dir():
            try:
                verify_all(sources_dir)
            except SourceError:
                try:
                    fetch(sources_dir)
                except SourceError as exc:
                    raise SourceError(str(exc), hint=OFFLINE_SOURCES_HINT) from exc
                notes.append(f"downloaded the pinned sources into {sources_dir}")
    verify_all(sources_dir)
    notes.append(f"sources {sources_dir} verified ({len(pinned_files())} files)")
    try:
        require_nltk_data()
    except MissingPrerequisiteError:
        notes.append(f"downloaded NLTK data: {', '.join(download_nltk_data())}")
    return sources_dir, "; ".join(notes)


@dataclass
class Job:
    """What the main job was asked, and what its stages have made so far for those after them.

    Each stage reads the fields the stages before it filled and fills its own; the package is
    opened once, after the build, and handed down (``opened``), so records and runs are read
    once in the process and every table is made once.
    """

    package_dir: Path
    sources_dir: Path | None
    results_dir: Path
    errata_path: Path
    report_dir: Path
    workers: int | None = None
    rescore_all: bool = False
    sources: Path | None = None
    """The verified sources (prepare)."""
    opened: OpenedPackage | None = None
    """The built package, opened (build); taken ``rescored()`` once scores are stored (score)."""
    kept: PairScores | None = None
    """The pair scores kept in the user cache, grown by verify and score."""
    rescored: Rescored | None = None
    """Every run's metrik-4 rows, computed once for verify and score."""
    tables: list[tuple[ResultSet, TableSet]] = field(default_factory=list)
    """The published Tables 1-3 (tables), which the errata and the report read."""
    validity: ValidityTable | None = None
    """PlantUML's verdict on every diagram (tables), which the errata read."""
    errata: str = ""
    """The errata's Markdown (errata), which the report shows."""

    @property
    def package(self) -> OpenedPackage:
        """The opened package; a stage after the build may rely on it."""
        if self.opened is None:
            raise RuntimeError("the package is opened by the build stage, which has not run")
        return self.opened


Outcome = tuple[bool, str, str]
"""A stage's (ok, one-line summary, detail shown on failure)."""


def _prepare(job: Job) -> Outcome:
    job.sources, summary = ensure_prerequisites(job.sources_dir, job.package_dir)
    return True, summary, ""


def _build(job: Job) -> Outcome:
    assert job.sources is not None
    result = build(job.package_dir, job.sources)
    job.opened = OpenedPackage(job.package_dir)
    return True, f"{result.records} records, {result.runs_imported} published runs", ""


def _verify(job: Job) -> Outcome:
    # Every run's metrik-4 scores, computed once: verification reads the published runs' rows,
    # the score stage stores all of them.
    package = job.package
    job.kept = PairScores.read(fresh=job.rescore_all)
    job.rescored = rescore(
        package.records(), package.runs(), PUBLISHED_METRIC, job.workers, job.kept
    )
    job.kept.save()
    report = verify(package, workers=job.workers, rescored=job.rescored)
    summary = (
        f"{report.values_equal}/{report.values_checked} published values reproduced, "
        f"{len(report.explained_records)} explained exception(s)"
        f"{_reuse_note(job.rescored.reused, job.rescored.distinct_pairs)}"
    )
    return report.ok, summary, report.render()


def _score(job: Job) -> Outcome:
    assert job.rescored is not None and job.kept is not None
    given = {PUBLISHED_METRIC: job.rescored}
    results = score_metrics(job.package, tuple(METRICS), None, job.workers, given, job.kept)
    job.kept.save()
    job.opened = job.package.rescored()
    summary = ", ".join(f"{r.metric}: {r.records} outputs of {r.runs} runs" for r in results)
    reused = sum(r.reused for r in results if r.metric != PUBLISHED_METRIC)
    pairs = sum(r.distinct_pairs for r in results if r.metric != PUBLISHED_METRIC)
    return True, summary + _reuse_note(reused, pairs), ""


def _tables(job: Job) -> Outcome:
    job.tables = published_tables(job.package)
    job.validity = validity_table(job.package)
    written = write_published_tables(job.tables, job.results_dir)
    written += write_validity(job.validity, job.results_dir)
    folders = sorted({str(path.parent) for path in written})
    return True, f"{len(written)} files in {' and '.join(folders)}", ""


def _errata(job: Job) -> Outcome:
    job.errata_path.parent.mkdir(parents=True, exist_ok=True)  # unwritable: fail before the work
    job.errata = errata_markdown(job.package, job.sources, job.tables, job.validity)
    path = write_errata_text(job.errata_path, job.errata)
    return True, str(path), ""


def _validate(job: Job) -> Outcome:
    report = validate_package(job.package)
    return report.valid, "valid" if report.valid else "INVALID", report.render()


def _report(job: Job) -> Outcome:
    published = next((t for s, t in job.tables if s == RESULT_SETS[0]), None)
    site = build_site(job.package, job.report_dir, tables=published, errata=job.errata or None)
    return site.ok, site.summary(), "\n".join(site.check.problems)


STAGES: tuple[tuple[str, Callable[[Job], Outcome]], ...] = (
    ("prepare", _prepare),
    ("build", _build),
    ("verify", _verify),
    ("score", _score),
    ("tables", _tables),
    ("errata", _errata),
    ("validate", _validate),
    ("report", _report),
)
"""The main job's stages in order, each a function of the job it reads and fills."""


def reproduce(
    package_dir: Path,
    sources_dir: Path | None,
    results_dir: Path,
    errata_path: Path,
    workers: int | None = None,
    report_dir: Path = Path("report"),
    rescore_all: bool = False,
) -> Iterator[StageResult]:
    """Yield each stage's result as it finishes; stop after a stage that failed.

    Pair scores computed by an earlier run with the same scoring code and data are reused (see
    ``runs.pair_scores``) unless ``rescore_all``; the verify and score stages say how many.
    """
    job = Job(package_dir, sources_dir, results_dir, errata_path, report_dir, workers, rescore_all)
    for name, stage in STAGES:
        started = time.perf_counter()
        ok, summary, detail = stage(job)
        result = StageResult(name, time.perf_counter() - started, ok, summary, detail)
        yield result
        if not result.ok:
            return
