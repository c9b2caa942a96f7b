"""Swapping a built package into place, and finishing a swap that a kill interrupted.

A build assembles the package in a staging folder inside it, then swaps each of its folders
and, last, its descriptor in with ``core.swap`` (moving the staged ``datapackage.json`` into
place is the commit point). The next command, under the package lock, completes or rolls back a
swap a kill interrupted; a rollback loses nothing, since a build only copies runs out of the old
package. Staging folders of killed builds are removed last.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from dmbench.core import swap
from dmbench.package.descriptor import DESCRIPTOR, LICENSES_DIR, SCHEMAS_DIR
from dmbench.runs.store import RUNS_DIR

PACKAGE_FOLDERS = ("data", "prompts", RUNS_DIR, SCHEMAS_DIR, LICENSES_DIR)

RETIRED_PREFIX = swap.RETIRED_PREFIX
STAGING_PREFIX = ".dmbench-build-"


def swap_in(staging: Path, package_dir: Path) -> None:
    """Replace the package's folders and descriptor with the staged ones, descriptor last."""
    names = (*PACKAGE_FOLDERS, DESCRIPTOR)
    swap.swap_in([(staging / name, package_dir / name) for name in names], package_dir)


def finish_interrupted_swap(package_dir: Path) -> None:
    """Complete or roll back what a killed command left in ``package_dir``; call under the lock."""
    package_dir = Path(package_dir)
    swap.finish_interrupted_swap(package_dir)
    for leftover in package_dir.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)
