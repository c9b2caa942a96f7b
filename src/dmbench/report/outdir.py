"""Folders a command writes whole (the report, the drawn SVGs, a deposit): refused or swapped.

A command that replaces a folder must never replace one it did not make: the package itself,
a folder of the package (``runs/``...), a folder holding the package, or any non-empty folder
without the marker the command leaves in what it writes. The new content is assembled beside
the target and swapped in with ``core.swap``; a kill between its renames leaves the old folder
aside in a retired folder beside the target, which the next command puts back (or discards,
when the new one is in), and staging folders of killed commands are removed.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from pathlib import Path

from dmbench.core import swap
from dmbench.errors import OutDirRefusedError
from dmbench.package.swap import PACKAGE_FOLDERS
from dmbench.render import RenderBatch

MARKER = ".dmbench-output"


def refuse_foreign(
    out_dir: Path,
    package_dir: Path,
    what: str,
    option: str = "--out",
    own_files: tuple[str, ...] = (),
) -> None:
    """Raise unless ``out_dir`` is absent, empty, or a folder an earlier run of ``what`` made:
    one with the marker, or (given ``own_files``, glob patterns) holding only such files."""
    out, package = Path(out_dir).resolve(), Path(package_dir).resolve()
    hint = f"give {option} a new folder, or one an earlier `dmbench {what}` wrote"
    if out == package or out in package.parents:
        raise OutDirRefusedError(
            f"{option} {out_dir}: this folder holds the data package; {what} replaces its "
            "folder whole and would delete the package",
            hint=hint,
        )
    for name in PACKAGE_FOLDERS:
        folder = package / name
        if out == folder or folder in out.parents:
            raise OutDirRefusedError(
                f"{option} {out_dir}: inside the package's {name}/ folder, which {what} "
                "must not write to",
                hint=hint,
            )
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise OutDirRefusedError(f"{option} {out_dir}: not a folder", hint=hint)
    if out.is_dir() and any(out.iterdir()) and not _ours(out, own_files):
        raise OutDirRefusedError(
            f"{option} {out_dir}: a folder with files that dmbench {what} did not write; "
            "it would replace them",
            hint=hint,
        )


def _ours(out: Path, own_files: tuple[str, ...]) -> bool:
    if (out / MARKER).is_file():
        return True
    entries = list(out.iterdir())
    return bool(own_files) and all(
        not entry.is_symlink() and any(fnmatch.fnmatchcase(entry.name, p) for p in own_files)
        for entry in entries
    )


def staging_for(out_dir: Path) -> Path:
    """A fresh staging folder beside ``out_dir`` (after finishing any interrupted swap)."""
    out_dir = _absolute(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    finish_interrupted(out_dir)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-staging-", dir=out_dir.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp's 0700 would make the swapped-in folder private
    return staging


def swap_in(staging: Path, out_dir: Path, marker_text: str) -> None:
    """Mark ``staging`` and put it in place of ``out_dir``; the old one is deleted last."""
    (staging / MARKER).write_text(marker_text, "utf-8")
    out_dir = _absolute(out_dir)
    swap.swap_in([(staging, out_dir)], out_dir.parent)


def finish_interrupted(out_dir: Path) -> None:
    """Undo what a killed swap left: the old folder back if no new one is in, staging gone."""
    out_dir = _absolute(out_dir)
    swap.finish_interrupted_swap(out_dir.parent)
    for staging in out_dir.parent.glob(f".{out_dir.name}-staging-*"):
        shutil.rmtree(staging, ignore_errors=True)


def _absolute(out_dir: Path) -> Path:
    """``out_dir`` with a name to put beside it, also when given as ``.`` or ``..``."""
    return Path(os.path.abspath(out_dir))


def write_drawings(batch: RenderBatch, out_dir: Path, package_dir: Path) -> int:
    """Replace ``out_dir`` with the batch's drawings as ``<sha256>.svg``; how many there are."""
    refuse_foreign(out_dir, package_dir, "render")
    staging = staging_for(out_dir)
    try:
        drawn = [(r.path, r.sha256) for r in batch.renderings.values() if r.path is not None]
        for path, sha256 in drawn:
            shutil.copyfile(path, staging / f"{sha256}.svg")
        swap_in(staging, out_dir, "dmbench render\n")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(drawn)
