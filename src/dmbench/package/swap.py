"""Swapping a built package into place, and finishing a swap that a kill interrupted.

A build assembles the package in a staging folder, then moves each old folder into a retired
folder and the new one into place, the old descriptor aside and the new one in last: moving the
staged ``datapackage.json`` into place is the commit point. Before the first move the retired
folder records the identity (device, inode) of every staged item, which a move keeps. Killed or
interrupted in between, a package lacks folders that now sit in the retired folder. The next
command calls :func:`finish_interrupted_swap`: a swap whose staged descriptor is in place is
complete, and its retired folder is renamed, then deleted; any other is rolled back (what was
moved in is removed, what was moved aside put back), which loses nothing, since a build only
copies runs out of the old package. Neither the staging folder (a build deletes it however it
ends) nor the descriptor's bytes (a rebuild writes the same ones) can tell a committed swap.
Staging folders of killed builds are removed last.
"""

from __future__ import annotations

import json
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
_STAGED_RECORD = "staged.json"
"""In the retired folder: each staged item's (device, inode), which a move keeps. An item in
place with a recorded identity is the new one; none is inferred from what is missing."""


def swap_in(staging: Path, package_dir: Path) -> None:
    """Replace the package's folders and descriptor with the staged ones, descriptor last.

    The replaced folders wait in a retired folder until the descriptor is in place; if a step
    fails they are moved back, so a failed swap leaves the previous package whole.
    """
    retired = Path(tempfile.mkdtemp(prefix=RETIRED_PREFIX, dir=package_dir))
    staged = {name: _identity(staging / name) for name in (*PACKAGE_FOLDERS, DESCRIPTOR)}
    with (retired / _STAGED_RECORD).open("w", encoding="utf-8") as handle:
        json.dump(staged, handle)
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
        _roll_back(retired, package_dir, staged)
        shutil.rmtree(retired, ignore_errors=True)
        raise
    _discard(retired)


def _identity(path: Path) -> list[int]:
    stat = os.lstat(path)
    return [stat.st_dev, stat.st_ino]


def _discard(retired: Path) -> None:
    """Delete a committed swap's retired folder, renamed first: a half-deleted retired folder
    must never be taken for one to roll back."""
    doomed = retired.with_name(DISCARD_PREFIX + retired.name.removeprefix(RETIRED_PREFIX))
    os.replace(retired, doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def _roll_back(retired: Path, package_dir: Path, staged: dict[str, list[int]]) -> None:
    """Remove what was moved in, put back what was moved aside. Safe to repeat."""
    for name in (*PACKAGE_FOLDERS, DESCRIPTOR):
        place = package_dir / name
        if place.exists() and _identity(place) == staged.get(name):
            if place.is_dir():
                shutil.rmtree(place)
            else:
                place.unlink()
        if (retired / name).exists():
            os.replace(retired / name, place)


def _staged(retired: Path) -> dict[str, list[int]]:
    """The identities recorded before the first move; none when the kill came before that."""
    try:
        recorded = json.loads((retired / _STAGED_RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def finish_interrupted_swap(package_dir: Path) -> None:
    """Complete or roll back what a killed build left in ``package_dir``; call under the lock."""
    package_dir = Path(package_dir)
    for retired in sorted(package_dir.glob(f"{RETIRED_PREFIX}*")):
        staged = _staged(retired)
        descriptor = package_dir / DESCRIPTOR
        if (
            DESCRIPTOR in staged
            and descriptor.exists()
            and _identity(descriptor) == staged[DESCRIPTOR]
        ):
            _discard(retired)  # past the commit point: the new package is whole
        else:
            _roll_back(retired, package_dir, staged)
            shutil.rmtree(retired)
    for leftover in (
        *package_dir.glob(f"{DISCARD_PREFIX}*"),
        *package_dir.glob(f"{STAGING_PREFIX}*"),
    ):
        shutil.rmtree(leftover, ignore_errors=True)
