"""A ``dmbench deposit`` killed while it stages or between its swap's renames leaves the earlier
deposit or the new one, and the next run finishes it; a file apart from test_deposit.py so that
pytest-xdist runs the two on different workers."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from results_support import two_series_package

from dmbench.core.hashing import file_sha256
from dmbench.release.deposit import build_deposit

_KILLED_DEPOSIT = """
import os, signal, sys
from pathlib import Path
from dmbench.release import deposit
package, out, repo, at = sys.argv[1:]
def die(*_args, **_kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if at == "staging":
    deposit.stage_package = die
else:
    rename = os.replace
    def replace(source, target):
        if Path(source).name.startswith(f".{Path(out).name}-staging-"):
            die()
        rename(source, target)
    os.replace = replace
deposit.build_deposit(Path(package), Path(out), draft=True, repo=Path(repo))
"""


def _killed_deposit(package: Path, out: Path, at: str) -> None:
    """Run the deposit in a child process that SIGKILLs itself ``at`` a point: while it stages
    the package, or between the swap's two renames (the old folder aside, the new not in)."""
    result = subprocess.run(
        [sys.executable, "-c", _KILLED_DEPOSIT, str(package), str(out), str(ROOT), at],
        capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == -signal.SIGKILL, result.stderr[-2000:]


def _contents(folder: Path) -> dict[str, str]:
    return {p.name: file_sha256(p) for p in sorted(folder.iterdir())}


@pytest.mark.needs_shared
def test_a_killed_deposit_leaves_the_old_or_the_new_folder_and_no_staging(deposit, tmp_path):
    """Made from the two-series package (how a deposit is swapped in does not depend on the runs
    it holds); the earlier deposit, of the whole package, differs from the new one."""
    package = two_series_package()
    out = shutil.copytree(deposit, tmp_path / "deposit")
    earlier = _contents(out)

    _killed_deposit(package, out, "staging")
    assert _contents(out) == earlier
    assert len(list(tmp_path.glob(".deposit-staging-*"))) == 1

    _killed_deposit(package, out, "swap")
    assert not out.exists()
    (retired,) = tmp_path.glob(".dmbench-retired-*")
    assert _contents(retired / "deposit") == earlier  # aside whole, for the next run
    staged = list(tmp_path.glob(".deposit-staging-*"))
    assert len(staged) == 1 and _contents(staged[0]).keys() == earlier.keys()
    killed = _contents(staged[0])  # the killed run's deposit, complete but not swapped in
    assert killed != earlier

    build_deposit(package, out, draft=True, repo=ROOT)
    assert _contents(out) == killed  # two builds of a commit, in two processes: the same bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deposit"]
