"""What code produced a result: the dmbench version and, in a checkout, the git commit."""

from __future__ import annotations

import platform
import subprocess
from functools import cache
from pathlib import Path

from dmbench._version import __version__


@cache
def git_commit() -> str | None:
    """The checkout's commit, so a run records exactly which code made it (None outside git)."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    dirty = subprocess.run(
        ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out.stdout.strip() + ("-dirty" if dirty else "")


def code_provenance() -> dict[str, str | None]:
    """Version, commit and Python of the code at work: recorded in every run, so a result
    names what produced it."""
    return {
        "dmbench_version": __version__,
        "dmbench_commit": git_commit(),
        "python": platform.python_version(),
    }
