"""The one crash-safe way dmbench puts finished work in place of what was there.

Everything that replaces a folder whole (the package build, a generated or judge run moving
into ``runs/``, the report, the drawings, a deposit) assembles the new content aside, then calls
:func:`swap_in` with its moves: each new item is moved onto its place, the old one first moved
into a *retired* folder in ``home`` under its own name; the last move is the commit point. Before the first move the
retired folder records each move (paths relative to ``home``) and the identity (device, inode)
of each new item, which a move keeps. Killed in between, ``home`` holds a retired folder; the
next command calls :func:`finish_interrupted_swap`: a swap whose last new item is in place is
complete and its retired folder is deleted (renamed first, so that a half-deleted one is never
taken for one to roll back); any other is rolled back, new items back where they were staged
and old ones into their places, which loses nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

RETIRED_PREFIX = ".dmbench-retired-"
DISCARD_PREFIX = ".dmbench-discard-"
_MOVES_RECORD = "moves.json"

Move = tuple[Path, Path]
"""``(new, place)``: the staged item and where it goes; both inside ``home``."""


def swap_in(moves: Sequence[Move], home: Path) -> None:
    """Move each staged item onto its place, old ones aside, in order; the last move commits.

    A step that fails (a full disk) rolls every move back before the error is raised, so a
    failed swap leaves the old content whole."""
    home = Path(home)
    names = [Path(place).name for _, place in moves]
    if len(set(names)) != len(names):
        raise ValueError(f"the places of one swap need distinct names: {names}")
    retired = Path(tempfile.mkdtemp(prefix=RETIRED_PREFIX, dir=home))
    record = [
        {"new": _relative(new, home), "place": _relative(place, home), "identity": _identity(new)}
        for new, place in moves
    ]
    with (retired / _MOVES_RECORD).open("w", encoding="utf-8") as handle:
        json.dump(record, handle)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        for new, place in moves:
            if os.path.lexists(place):
                os.replace(place, retired / Path(place).name)
            os.replace(new, place)
    except BaseException:
        _roll_back(retired, home, record)
        shutil.rmtree(retired, ignore_errors=True)
        raise
    _discard(retired)


def finish_interrupted_swap(home: Path) -> None:
    """Complete or roll back every swap a kill left in ``home``; call before using what it
    swaps (the package lock does, for the package's own swaps)."""
    home = Path(home)
    for retired in sorted(home.glob(f"{RETIRED_PREFIX}*")):
        record = _recorded(retired)
        if record and _is_in_place(home, record[-1]):
            _discard(retired)
        else:
            _roll_back(retired, home, record)
            shutil.rmtree(retired, ignore_errors=True)
    for leftover in home.glob(f"{DISCARD_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)


def _relative(path: Path, home: Path) -> str:
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(home))
    if relative.startswith(".."):
        raise ValueError(f"{path} is not inside {home}, where its swap is recorded")
    return relative


def _identity(path: Path) -> list[int]:
    stat = os.lstat(path)
    return [stat.st_dev, stat.st_ino]


def _is_in_place(home: Path, move: dict) -> bool:
    place = home / move["place"]
    return os.path.lexists(place) and _identity(place) == move["identity"]


def _discard(retired: Path) -> None:
    doomed = retired.with_name(DISCARD_PREFIX + retired.name.removeprefix(RETIRED_PREFIX))
    os.replace(retired, doomed)
    shutil.rmtree(doomed, ignore_errors=True)


def _roll_back(retired: Path, home: Path, record: list[dict]) -> None:
    """New items back to where they were staged (or removed, if that is gone), old ones back
    into their places, last move first. Safe to repeat."""
    for move in reversed(record):
        place = home / move["place"]
        if _is_in_place(home, move):
            new = home / move["new"]
            if new.parent.is_dir() and not os.path.lexists(new):
                os.replace(place, new)
            elif place.is_dir() and not place.is_symlink():
                shutil.rmtree(place)
            else:
                place.unlink()
        if os.path.lexists(retired / place.name):
            os.replace(retired / place.name, place)


def _recorded(retired: Path) -> list[dict]:
    """The moves recorded before the first one; none when the kill came before that."""
    try:
        record = json.loads((retired / _MOVES_RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    return record if isinstance(record, list) else []
