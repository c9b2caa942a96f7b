"""The packages (and the draft deposit) the results tests share, built once per test session
from ``../shared/upstream``.

They live in one session folder (``$DMBENCH_TEST_SESSION``, made by the first process that asks
and inherited by pytest-xdist's workers), each made under a file lock by whichever worker needs it
first, so the two workers do not both build, score and draw the same package. Within a process
the steps are cached here too: pytest runs a session fixture once per defining module when several
modules import it, so the tests' fixtures call these functions.
"""

from __future__ import annotations

import atexit
import fcntl
import functools
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from dmbench.flows.changes import score_metrics
from dmbench.metrics import METRICS, PUBLISHED_METRIC
from dmbench.package import build
from dmbench.runs.verify import VerifyReport, verify

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
SESSION_ENV = "DMBENCH_TEST_SESSION"


def session_dir() -> Path:
    """The test session's shared folder: made, and named in the environment for the processes
    started after it (the workers), by the first process that asks; removed when it exits."""
    if SESSION_ENV not in os.environ:
        folder = tempfile.mkdtemp(prefix="dmbench-tests-")
        atexit.register(shutil.rmtree, folder, True)
        os.environ[SESSION_ENV] = folder
    return Path(os.environ[SESSION_ENV])


def _made_once(name: str, make: Callable[[Path], None], leaf: str = "package") -> Path:
    """``<session>/<name>/<leaf>``, made by ``make(path)`` in the first process to ask; a
    second process waits on the lock and reads the finished folder."""
    folder = session_dir() / name
    with open(session_dir() / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not folder.is_dir():
            staging = session_dir() / f".{name}-staging"
            shutil.rmtree(staging, ignore_errors=True)  # left by a worker that died making it
            staging.mkdir()
            make(staging / leaf)
            os.replace(staging, folder)
    return folder / leaf


@functools.cache
def built_package() -> Path:
    """The package as ``dmbench build`` makes it; tests must not change it (copy it first).

    Without ../shared the test asking for it is skipped (every shared package starts here).
    """
    from conftest import require_shared  # conftest imports this module; import it late

    require_shared()
    return _made_once("built", lambda package: build(package, UPSTREAM))


@functools.cache
def standard_scored_package() -> Path:
    """A copy of the built package with the recomputed scores of every metric but the published
    one, as the main job adds them in one pass (the errata compare metrik-4-standard with the
    published values, count metrik-2's crashes and rank the candidates under every study
    metric)."""

    def make(package: Path) -> None:
        copy_package(package)
        score_metrics(package, [metric for metric in METRICS if metric != PUBLISHED_METRIC])

    return _made_once("standard-scored", make)


@functools.cache
def deposit_ready_package() -> Path:
    """A copy of the standard-scored package with PlantUML's verdict in ``results/`` as the
    main job writes it (a deposit ships it, so it refuses a package without it).

    Making it draws every diagram of the package into the session's render cache, so a test that
    needs them all drawn asks for this package rather than drawing them again in parallel."""
    from dmbench.tables.validity import validity_table, write_validity

    def make(package: Path) -> None:
        shutil.copytree(standard_scored_package(), package)
        write_validity(validity_table(package), package / "results")

    return _made_once("deposit-ready", make)


@functools.cache
def deposit_package() -> Path:
    """The deposit-ready package with a ``report/`` as the main job leaves it (a stand-in
    page, its marker left home), which a deposit ships."""

    def make(package: Path) -> None:
        shutil.copytree(deposit_ready_package(), package)
        (package / "report").mkdir()
        (package / "report" / "index.html").write_text("<!doctype html><title>dmbench</title>\n")
        (package / "report" / ".dmbench-output").write_text("")

    return _made_once("deposit-package", make)


@functools.cache
def two_series_package() -> Path:
    """:func:`deposit_package` with the runs of two series only (chen with glm-5.1:cloud and
    rule_based, both datasets: what Tables 1-3 and their comparisons need), its tables and
    PlantUML's verdict made again: a valid package whose deposit takes about half as long, for
    the tests of how a deposit is made rather than of what it holds."""
    from dmbench.package import refresh
    from dmbench.runs.store import list_runs
    from dmbench.tables.validity import validity_table, write_validity

    def make(package: Path) -> None:
        shutil.copytree(deposit_package(), package)
        for run in list_runs(package):
            if not run.info.run_id.startswith(("chen__glm-5.1_cloud__", "rule_based__")):
                shutil.rmtree(run.path)
        refresh(package)
        write_validity(validity_table(package), package / "results")

    return _made_once("two-series", make)


@functools.cache
def draft_deposit() -> Path:
    """``dmbench deposit --draft`` of :func:`deposit_package`, built once for the deposit and
    check tests (split over files so that pytest-xdist runs them on both workers)."""
    from conftest import ROOT

    from dmbench.release.deposit import build_deposit

    def make(out: Path) -> None:
        build_deposit(deposit_package(), out, draft=True, repo=ROOT)

    return _made_once("draft-deposit", make, leaf="deposit")


def copy_package(target: Path) -> Path:
    shutil.copytree(built_package(), target)
    return target


@functools.cache
def full_verification() -> VerifyReport:
    """``dmbench verify`` over all 42 published runs (re-scores 1113 records once)."""
    return verify(built_package())
