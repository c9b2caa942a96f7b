"""The package the results tests share, built once per test session from ``../shared/upstream``.

pytest runs a session fixture once per defining module when several modules import it, so the
expensive steps (the build, the full verification) are cached here and the tests' fixtures call
them.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from dmbench.flows.changes import score_runs
from dmbench.metrics import METRICS, PUBLISHED_METRIC
from dmbench.package import build
from dmbench.runs.verify import VerifyReport, verify

UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "upstream"


@functools.cache
def built_package() -> Path:
    """The package as ``dmbench build`` makes it; tests must not change it (copy it first).

    Without ../shared the test asking for it is skipped (every shared package starts here).
    """
    from conftest import require_shared  # conftest imports this module; import it late

    require_shared()
    root = Path(tempfile.mkdtemp(prefix="dmbench-results-"))
    atexit.register(shutil.rmtree, root, True)
    build(root / "package", UPSTREAM)
    return root / "package"


@functools.cache
def standard_scored_package() -> Path:
    """A copy of the built package with the recomputed scores of every metric but the published
    one, as the main job adds them (the errata compare metrik-4-standard with the published
    values, count metrik-2's crashes and rank the candidates under every study metric)."""
    target = Path(tempfile.mkdtemp(prefix="dmbench-results-standard-"))
    atexit.register(shutil.rmtree, target, True)
    package = copy_package(target / "package")
    for metric in METRICS:
        if metric != PUBLISHED_METRIC:
            score_runs(package, metric)
    return package


@functools.cache
def deposit_ready_package() -> Path:
    """A copy of the standard-scored package with PlantUML's verdict in ``results/`` as the
    main job writes it (a deposit ships it, so it refuses a package without it)."""
    from dmbench.tables.validity import validity_table, write_validity

    target = Path(tempfile.mkdtemp(prefix="dmbench-results-deposit-"))
    atexit.register(shutil.rmtree, target, True)
    package = shutil.copytree(standard_scored_package(), target / "package")
    write_validity(validity_table(package), package / "results")
    return package


def copy_package(target: Path) -> Path:
    shutil.copytree(built_package(), target)
    return target


@functools.cache
def full_verification() -> VerifyReport:
    """``dmbench verify`` over all 42 published runs (re-scores 1113 records once)."""
    return verify(built_package())
