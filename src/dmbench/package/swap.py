"""Swapping a built package into place, and finishing a swap that a kill interrupted.

A build assembles the package in a staging folder, then moves each old folder into a retired
folder and the new one into place, the descriptor last: replacing ``datapackage.json`` is the
commit point. Killed in between, a package lacks folders that now sit in the retired folder.
The next command that takes the package lock calls :func:`finish_interrupted_swap`, which
completes a swap that reached its commit point and rolls back one that did not, and removes
the staging folders of killed builds.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from dmbench.hashing import sha256_bytes
from dmbench.package.descriptor import DESCRIPTOR, LICENSES_DIR, SCHEMAS_DIR
from dmbench.runs.store import RUNS_DIR

PACKAGE_FOLDERS = ("data", "prompts", RUNS_DIR, SCHEMAS_DIR, LICENSES_DIR)

RETIRED_PREFIX = ".dmbench-retired-"
STAGING_PREFIX = ".dmbench-build-"
_COMMIT_MARK = "new-descriptor.sha256"


def swap_in(staging: Path, package_dir: Path) -> None:
    """Replace the package's folders and descriptor with the staged ones, descriptor last.

    The replaced folders wait in a retired folder until the descriptor is in place; if a step
    fails they are moved back, so a failed swap leaves the previous package whole.
    """
    retired = Path(tempfile.mkdtemp(prefix=RETIRED_PREFIX, dir=package_dir))
    mark = sha256_bytes((staging / DESCRIPTOR).read_bytes())
    with (retired / _COMMIT_MARK).open("w", encoding="ascii") as handle:
        handle.write(mark)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        for name in PACKAGE_FOLDERS:
            if (package_dir / name).exists():
                os.replace(package_dir / name, retired / name)
            os.replace(staging / name, package_dir / name)
        os.replace(staging / DESCRIPTOR, package_dir / DESCRIPTOR)
    except BaseException:
        _roll_back(retired, package_dir)
        raise
    finally:
        shutil.rmtree(retired, ignore_errors=True)


def _roll_back(retired: Path, package_dir: Path) -> None:
    for name in PACKAGE_FOLDERS:
        if (retired / name).exists():
            if (package_dir / name).exists():
                shutil.rmtree(package_dir / name)
            os.replace(retired / name, package_dir / name)


def finish_interrupted_swap(package_dir: Path) -> None:
    """Complete or roll back what a killed build left in ``package_dir``; call under the lock."""
    for retired in sorted(Path(package_dir).glob(f"{RETIRED_PREFIX}*")):
        mark = retired / _COMMIT_MARK
        current = Path(package_dir) / DESCRIPTOR
        committed = (
            mark.is_file()
            and current.is_file()
            and mark.read_text("ascii").strip() == sha256_bytes(current.read_bytes())
        )
        if not committed:
            _roll_back(retired, Path(package_dir))
        shutil.rmtree(retired)
    for staging in Path(package_dir).glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(staging, ignore_errors=True)
