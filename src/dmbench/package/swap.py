"""Swapping a built package into place, and finishing a swap that a kill interrupted.

A build assembles the package in a staging folder, then moves each old folder into a retired
folder and the new one into place, the old descriptor aside and the new one in last: moving the
staged ``datapackage.json`` into place is the commit point. Killed in between, a package lacks
folders that now sit in the retired folder. The next command that takes the package lock calls
:func:`finish_interrupted_swap`: a swap whose staged descriptor has left the staging folder is
complete, and its retired folder is renamed, then deleted; any other is rolled back, which
loses nothing, since a build only copies runs out of the old package. Whether the new
descriptor differs from the old is no test: a rebuild from the same sources writes the same
bytes. Staging folders of killed builds are removed last.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from dmbench.package.descriptor import DESCRIPTOR, LICENSES_DIR, SCHEMAS_DIR
from dmbench.runs.store import RUNS_DIR

PACKAGE_FOLDERS = ("data", "prompts", RUNS_DIR, SCHEMAS_DIR, LICENSES_DIR)

RETIRED_PREFIX = ".dmbench-retired-"
STAGING_PREFIX = ".dmbench-build-"
DISCARD_PREFIX = ".dmbench-discard-"
_STAGING_NAME = "staging-folder"


def swap_in(staging: Path, package_dir: Path) -> None:
    """Replace the package's folders and descriptor with the staged ones, descriptor last.

    The replaced folders wait in a retired folder until the descriptor is in place; if a step
    fails they are moved back, so a failed swap leaves the previous package whole.
    """
    retired = Path(tempfile.mkdtemp(prefix=RETIRED_PREFIX, dir=package_dir))
    with (retired / _STAGING_NAME).open("w", encoding="utf-8") as handle:
        handle.write(staging.name)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        for name in PACKAGE_FOLDERS:
            if (package_dir / name).exists():
                os.replace(package_dir / name, retired / name)
            os.replace(staging / name, package_dir / name)
        if (package_dir / DESCRIPTOR).exists():
            os.replace(package_dir / DESCRIPTOR, retired / DESCRIPTOR)
        os.replace(staging / DESCRIPTOR, package_dir / DESCRIPTOR)
    except BaseException:
        _roll_back(retired, package_dir)
        shutil.rmtree(retired, ignore_errors=True)
        raise
    _discard(retired)


def _discard(retired: Path) -> None:
    """Delete a committed swap's retired folder, renamed first: a half-deleted retired folder
    must never be taken for one to roll back."""
    doomed = retired.with_name(DISCARD_PREFIX + retired.name.removeprefix(RETIRED_PREFIX))
    os.replace(retired, doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def _roll_back(retired: Path, package_dir: Path) -> None:
    for name in (*PACKAGE_FOLDERS, DESCRIPTOR):
        if (retired / name).exists():
            if (package_dir / name).is_dir():
                shutil.rmtree(package_dir / name)
            os.replace(retired / name, package_dir / name)


def _committed(retired: Path, package_dir: Path) -> bool:
    """Whether the swap got past its commit point: the staged descriptor is in place."""
    record = retired / _STAGING_NAME
    if not record.is_file():  # killed before the first move: nothing to undo or finish
        return False
    staging = package_dir / record.read_text("utf-8").strip()
    return not (staging / DESCRIPTOR).exists() and (package_dir / DESCRIPTOR).is_file()


def finish_interrupted_swap(package_dir: Path) -> None:
    """Complete or roll back what a killed build left in ``package_dir``; call under the lock."""
    package_dir = Path(package_dir)
    for retired in sorted(package_dir.glob(f"{RETIRED_PREFIX}*")):
        if _committed(retired, package_dir):
            _discard(retired)
        else:
            _roll_back(retired, package_dir)
            shutil.rmtree(retired)
    for leftover in (
        *package_dir.glob(f"{DISCARD_PREFIX}*"),
        *package_dir.glob(f"{STAGING_PREFIX}*"),
    ):
        shutil.rmtree(leftover, ignore_errors=True)
