"""``dmbench build``: the data package from the pinned sources, built aside and swapped in.

Every pinned file is hash-checked before anything is written. The package is assembled in a
temporary folder inside the package directory, validated there, and only then moved into place,
so a failed build leaves the previous package exactly as it was. Runs that dmbench generated
(not imported) are carried over from the previous package.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from dmbench.errors import PackageError
from dmbench.package.descriptor import (
    LICENSES_DIR,
    SCHEMAS_DIR,
    write_prompts_table,
)
from dmbench.package.lock import package_lock
from dmbench.package.refresh import refresh
from dmbench.package.swap import PACKAGE_FOLDERS, STAGING_PREFIX, swap_in
from dmbench.package.validate import validate_package
from dmbench.runs.import_published import import_published_runs
from dmbench.runs.scores import SCORES_FILE, read_scores, replace_scores
from dmbench.runs.store import OUTPUTS_FILE, RUN_FILE, RUNS_DIR, cut_torn_tail
from dmbench.sources import read_verified, repositories, verify_all
from dmbench.sources.prompts import install_prompts
from dmbench.sources.records import (
    RECORDS_PATH,
    records_from_sources,
    write_records,
)


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a build made and kept, for the command's summary and the main job's report."""
    package_dir: Path
    records: int
    runs_imported: int
    runs_carried_over: int
    scores_kept: int = 0
    """Published runs whose recomputed scores were carried over (their outputs unchanged)."""
    scores_dropped: tuple[str, ...] = ()
    """Published runs whose recomputed scores were dropped because their outputs changed;
    ``dmbench score --runs ...`` computes them again."""


def install_schemas(package_dir: Path) -> None:
    """The package's own schemas and the judge's (judgements table, judge run, criteria)."""
    target = Path(package_dir) / SCHEMAS_DIR
    target.mkdir(parents=True, exist_ok=True)
    for owner in ("dmbench.package", "dmbench.judge"):
        for item in resources.files(owner).joinpath("schemas").iterdir():
            if item.name.endswith(".json"):
                (target / item.name).write_bytes(item.read_bytes())


def install_upstream_licenses(sources_dir: Path, package_dir: Path) -> None:
    """The upstream MIT notices travel with the upstream data the package redistributes."""
    target = Path(package_dir) / LICENSES_DIR
    target.mkdir(parents=True, exist_ok=True)
    for repo in repositories():
        pin = next(p for p in repo.files if p.role == "license")
        (target / f"{repo.name}.LICENSE").write_bytes(read_verified(sources_dir, pin))


def _carry_generated_runs(old_package: Path, staging: Path, imported: set[str]) -> int:
    """Copy the runs dmbench generated into the new package, cutting a torn last output line.

    A run folder that is not an imported one and cannot be read, or that holds a link, stops
    the build: dropping it would lose its outputs, and copying a link would publish whatever it
    points at.
    """
    carried = 0
    old_runs = old_package / RUNS_DIR
    if not old_runs.is_dir():
        return 0
    for run_dir in sorted(old_runs.iterdir()):
        if run_dir.name in imported and not run_dir.is_symlink():
            continue  # re-imported from the pinned sources
        if _origin(run_dir) == "generated":
            target = staging / RUNS_DIR / run_dir.name
            shutil.copytree(run_dir, target, symlinks=True)
            cut_torn_tail(target / OUTPUTS_FILE)
            carried += 1
    return carried


def _carry_recomputed_scores(
    old_package: Path, staging: Path, imported: list[str]
) -> tuple[int, tuple[str, ...]]:
    """Keep the recomputed scores of the re-imported published runs whose outputs are the same
    bytes as before (a rebuild must not silently drop them); name the runs whose outputs
    changed, whose scores no longer hold."""
    kept, dropped = 0, []
    for run_id in imported:
        old, new = old_package / RUNS_DIR / run_id, staging / RUNS_DIR / run_id
        if old.is_symlink() or not (old / SCORES_FILE).is_file():
            continue
        recomputed = [row for row in read_scores(old) if row.origin == "recomputed"]
        if not recomputed:
            continue
        if _same_bytes(old / OUTPUTS_FILE, new / OUTPUTS_FILE):
            replace_scores(new, recomputed)
            kept += 1
        else:
            dropped.append(run_id)
    return kept, tuple(dropped)


def _same_bytes(first: Path, second: Path) -> bool:
    try:
        return first.read_bytes() == second.read_bytes()
    except OSError:
        return False


def _origin(run_dir: Path) -> str | None:
    """The run's ``origin``; a ``PackageError`` for a folder build must neither drop nor copy."""
    keep = "nothing was changed; repair it or move it out of runs/, then build again"
    links = [p for p in (run_dir, *run_dir.rglob("*")) if p.is_symlink()]
    if links:
        raise PackageError(f"{links[0]}: a link inside the run store is refused", hint=keep)
    if not run_dir.is_dir():
        raise PackageError(f"{run_dir}: not a run folder", hint=keep)
    run_file = run_dir / RUN_FILE
    try:
        run = json.loads(run_file.read_text("utf-8"))
        return run.get("origin") if isinstance(run, dict) else None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise PackageError(f"{run_file}: cannot read this run ({exc})", hint=keep) from None


def build(package_dir: Path, sources_dir: Path) -> BuildResult:
    """Build the package in ``package_dir`` from the pinned sources: made aside under the package
    lock, validated, then swapped in whole, so a failed or killed build leaves the previous one."""
    package_dir = Path(package_dir).resolve()
    package_dir.mkdir(parents=True, exist_ok=True)
    verify_all(sources_dir)
    with package_lock(package_dir):
        return _build_locked(package_dir, sources_dir)


def refuse_links(package_dir: Path) -> None:
    """A link among the package's folders would be swapped out or, in a deposit, followed to
    whatever it points at; the build refuses it before changing anything (the run store's
    links are refused as it is carried over)."""
    for folder in (f for f in PACKAGE_FOLDERS if f != RUNS_DIR):
        root = Path(package_dir) / folder
        found = [root] if root.is_symlink() else [p for p in root.rglob("*") if p.is_symlink()]
        if found:
            raise PackageError(
                f"{found[0]}: a link inside the package is refused",
                hint="nothing was changed; replace the link by the file or folder, then build "
                "again",
            )


def _build_locked(package_dir: Path, sources_dir: Path) -> BuildResult:
    refuse_links(package_dir)
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=package_dir))
    try:
        records = records_from_sources(sources_dir)
        write_records(staging / RECORDS_PATH, records)
        install_prompts(sources_dir, staging)
        write_prompts_table(staging)
        imported = import_published_runs(sources_dir, staging, records)
        carried = _carry_generated_runs(package_dir, staging, set(imported))
        kept, dropped = _carry_recomputed_scores(package_dir, staging, imported)
        install_schemas(staging)
        install_upstream_licenses(sources_dir, staging)
        refresh(staging)
        report = validate_package(staging)
        if not report.valid:
            raise PackageError(
                "the built package does not validate; the previous package is unchanged:\n"
                + report.render()
            )
        swap_in(staging, package_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BuildResult(package_dir, len(records), len(imported), carried, kept, dropped)
