"""Re-deriving the run tables and the descriptor after runs or scores changed, kill-safely.

A command that moves runs into ``runs/`` leaves a marker first and removes it once the tables
and descriptor are re-derived; a kill in between leaves the marker, and the next command that
opens the package re-derives them before anything reads the stale tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dmbench.package.descriptor import DESCRIPTOR, write_descriptor
from dmbench.package.tables import write_run_tables
from dmbench.runs.opened import PackageSource, open_package

PENDING = ".dmbench-refresh-pending"


def refresh(package: PackageSource) -> None:
    """Re-derive the run tables and ``datapackage.json`` after runs or scores changed (an
    opened package must have been opened, or rescored, after the change)."""
    opened = open_package(package)
    order = {r.record_id: i for i, r in enumerate(opened.records())}
    write_run_tables(opened, order)
    write_descriptor(opened.path)


@contextmanager
def refreshing(package_dir: Path) -> Iterator[None]:
    """Change runs inside, then refresh a built package (also when the change failed half
    way, so that the runs already moved in are listed); a kill leaves the marker."""
    package_dir = Path(package_dir)
    if not (package_dir / DESCRIPTOR).is_file():
        yield
        return
    marker = package_dir / PENDING
    marker.touch()
    try:
        yield
    finally:
        refresh(package_dir)
        marker.unlink(missing_ok=True)


def finish_interrupted_refresh(package_dir: Path) -> None:
    """Re-derive what a killed command left stale; call under the package lock."""
    if (Path(package_dir) / PENDING).exists():
        refresh(package_dir)
        (Path(package_dir) / PENDING).unlink(missing_ok=True)
