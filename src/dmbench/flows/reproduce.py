"""The main job as one library call: prerequisites, build, verify, score, tables, errata, validate,
report.

Each stage is timed and reported, so a reader sees where the minutes go, and the job is ``ok``
only when verification and validation both hold. On a machine with nothing but the checkout,
the first stage downloads the pinned upstream archives and the NLTK data.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
from dmbench.package import build, load_records, validate_package
from dmbench.report import build_site
from dmbench.runs.pair_scores import PairScores
from dmbench.runs.rescoring import Rescored, rescore, select_runs
from dmbench.runs.verify import verify
from dmbench.sources import fetch, pinned_files, verify_all
from dmbench.tables.errata import write_errata
from dmbench.tables.published_tables import write_published_tables
from dmbench.tables.validity import validity_table, write_validity


@dataclass(frozen=True, slots=True)
class StageResult:
    name: str
    seconds: float
    ok: bool
    summary: str
    detail: str = ""


def _timed(name: str, stage: Callable[[], tuple[bool, str, str]]) -> StageResult:
    started = time.perf_counter()
    ok, summary, detail = stage()
    return StageResult(name, time.perf_counter() - started, ok, summary, detail)


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
    ready: list[Path] = []
    shared: list[Rescored] = []
    kept: list[PairScores] = []

    def do_prerequisites() -> tuple[bool, str, str]:
        sources, summary = ensure_prerequisites(sources_dir, package_dir)
        ready.append(sources)
        return True, summary, ""

    def do_build() -> tuple[bool, str, str]:
        result = build(package_dir, ready[0])
        return True, f"{result.records} records, {result.runs_imported} published runs", ""

    def do_verify() -> tuple[bool, str, str]:
        # Every run's metrik-4 scores, computed once: verification reads the published runs'
        # rows, the score stage stores all of them.
        records, runs = load_records(package_dir), select_runs(package_dir)
        kept.append(PairScores.read(fresh=rescore_all))
        shared.append(rescore(records, runs, PUBLISHED_METRIC, workers, kept[0]))
        kept[0].save()
        report = verify(package_dir, workers=workers, rescored=shared[0])
        summary = (
            f"{report.values_equal}/{report.values_checked} published values reproduced, "
            f"{len(report.explained_records)} explained exception(s)"
            f"{_reuse_note(shared[0].reused, shared[0].distinct_pairs)}"
        )
        return report.ok, summary, report.render()

    def do_score() -> tuple[bool, str, str]:
        results = score_metrics(
            package_dir, tuple(METRICS), None, workers, {PUBLISHED_METRIC: shared[0]}, kept[0]
        )
        kept[0].save()
        summary = ", ".join(f"{r.metric}: {r.records} outputs of {r.runs} runs" for r in results)
        reused = sum(r.reused for r in results if r.metric != PUBLISHED_METRIC)
        pairs = sum(r.distinct_pairs for r in results if r.metric != PUBLISHED_METRIC)
        return True, summary + _reuse_note(reused, pairs), ""

    def do_tables() -> tuple[bool, str, str]:
        written = write_published_tables(package_dir, results_dir)
        written += write_validity(validity_table(package_dir), results_dir)
        folders = sorted({str(path.parent) for path in written})
        return True, f"{len(written)} files in {' and '.join(folders)}", ""

    def do_errata() -> tuple[bool, str, str]:
        return True, str(write_errata(package_dir, errata_path, ready[0])), ""

    def do_validate() -> tuple[bool, str, str]:
        report = validate_package(package_dir)
        return report.valid, "valid" if report.valid else "INVALID", report.render()

    def do_report() -> tuple[bool, str, str]:
        site = build_site(package_dir, report_dir)
        return site.ok, site.summary(), "\n".join(site.check.problems)

    stages = (
        ("prepare", do_prerequisites),
        ("build", do_build),
        ("verify", do_verify),
        ("score", do_score),
        ("tables", do_tables),
        ("errata", do_errata),
        ("validate", do_validate),
        ("report", do_report),
    )
    for name, stage in stages:
        result = _timed(name, stage)
        yield result
        if not result.ok:
            return
