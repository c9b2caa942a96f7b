"""One writer at a time: build, score and generate hold an exclusive lock on the package.

The folder must exist (``dmbench.package.folder`` checks it is a package first): taking the
lock never creates one.

Without it a build could swap in a copy of a run while a concurrent ``generate`` appends to the
original, and the appended records would be lost.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dmbench.errors import PackageError
from dmbench.package.refresh import finish_interrupted_refresh
from dmbench.package.swap import finish_interrupted_swap

LOCK_FILE = ".dmbench-lock"


@contextmanager
def package_lock(package_dir: Path) -> Iterator[None]:
    """Hold the package for one writer: a second command that would write it is refused with
    a message, not left to interleave."""
    path = Path(package_dir) / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise PackageError(
                f"{package_dir}: another dmbench command is writing this package "
                f"(lock {path}); run this one when it has finished"
            ) from None
        try:
            finish_interrupted_swap(package_dir)  # a killed command's swap, before anything else
            finish_interrupted_refresh(package_dir)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
