"""Shared fixtures: the read-only ../shared material beside the checkout.

Tests that need ../shared are skipped with one reason when it is absent (a deposit's code
archive, extracted with nothing beside it): mark them ``needs_shared``, use one of its fixtures,
or, in a module that reads it on import, call :func:`require_shared` first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import results_support

pytest_plugins = ("fake_ollama",)  # the fake_ollama fixture, for every test module

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream"
GOLDEN = SHARED / "golden"


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def complete_lines(path: Path | None) -> list[dict]:
    """The JSON lines a writer has finished (a torn last line has no newline yet)."""
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_bytes().split(b"\n")[:-1]]


def zip_member(zip_path: Path, name: str) -> str:
    with zipfile.ZipFile(zip_path) as archive:
        return archive.read(name).decode("utf-8")


def score_pairs_from_shell(pairs, metric: str, tmp_path: Path) -> list[dict]:
    """Run the installed ``dmbench score-pairs --jsonl`` on (reference, generated) pairs, ids
    ``"0"``, ``"1"``, ...; returns its output lines."""
    batch = tmp_path / "pairs.jsonl"
    batch.write_text(
        "".join(
            json.dumps({"id": str(i), "reference": ref, "generated": gen}) + "\n"
            for i, (ref, gen) in enumerate(pairs)
        ),
        encoding="utf-8",
    )
    dmbench = Path(sys.executable).with_name("dmbench")
    result = subprocess.run(
        [str(dmbench), "score-pairs", "--jsonl", str(batch), "--metric", metric],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


#: Why a test that needs ../shared is skipped; CI has ../shared, so there every test runs.
SHARED_REASON = (
    f"needs ../shared ({SHARED} is absent: the upstream mirror, golden fixtures and NLTK data "
    "live there, not in a deposit's code archive)"
)
SHARED_FIXTURES = {
    "shared_dir", "upstream_dir", "golden_dir", "built_package", "deposit_package", "deposit"
}


def require_shared() -> None:
    """For a test module that reads ../shared while it is imported: skip it whole when absent."""
    if not SHARED.is_dir():
        pytest.skip(SHARED_REASON, allow_module_level=True)


def pytest_configure(config: pytest.Config) -> None:
    # One folder for the session, made here so that pytest-xdist's workers inherit it: the
    # packages the results tests share, and one render cache (the many package copies hold the
    # same diagrams, and a cold render of them all is a minute of PlantUML).
    session = results_support.session_dir()
    os.environ.setdefault("DMBENCH_RENDER_CACHE", str(session / "render"))
    # The user's cache (derived NLTK files, kept pair scores) is the session's: no test reads
    # what a developer's earlier runs left, and none writes into it.
    os.environ["XDG_CACHE_HOME"] = str(session / "cache")
    config.addinivalue_line(
        "markers", "needs_shared: the test reads ../shared; skipped when it is absent"
    )
    config.addinivalue_line(
        "markers", "needs_nltk: the test runs metrik-4; skipped when its NLTK data is not found"
    )


def _nltk_reason() -> str | None:
    from dmbench.metrics.nltk_data import missing_resources

    missing = missing_resources()
    if not missing:
        return None
    return (
        f"needs the NLTK data metrik-4 reads ({', '.join(missing)} not found): set NLTK_DATA to "
        "../shared/nltk_data or to the nltk_data/ folder of the deposit's package zip"
    )


#: The test files that take longest, longest first, each where it keeps the two workers busy:
#: pytest-xdist hands out whole files in collection order (scripts/test.sh turns off its own
#: reordering by number of tests), so no worker is left with a long file while the other one has
#: finished; the others run after them in their usual order. test_deposit.py makes the session's
#: package and deposit (about 75 s, most of it PlantUML drawing the package's diagrams); the
#: files that wait for it (the report's diagrams come from that drawing, the deposit's check and
#: kill tests from the deposit) come after about as much work (15 to 40 s a file) for the other
#: worker. test_deposit_wheels.py fetches ~500 MB of wheels and installs them offline (several
#: minutes, mostly network and pip), so it starts first.
SLOWEST_FILES = (
    "test_deposit_wheels.py",
    "test_deposit.py",
    "test_judge_runs.py",
    "test_adversarial_package.py",
    "test_inspect_eval.py",
    "test_render.py",
    "test_report.py",
    "test_deposit_check.py",
    "test_reproduce.py",
    "test_deposit_kill.py",
    "test_metrik3_metrik5.py",
    "test_llm_generate.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the slowest files first; skip, with one reason each, the tests whose ../shared or
    NLTK data is absent."""
    rank = {name: place for place, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: others keep order
    needs_shared = [
        item
        for item in items
        if item.get_closest_marker("needs_shared") or SHARED_FIXTURES & set(item.fixturenames)
    ]
    if not SHARED.is_dir():
        for item in needs_shared:
            item.add_marker(pytest.mark.skip(reason=SHARED_REASON))
    needs_nltk = [item for item in items if item.get_closest_marker("needs_nltk")]
    reason = _nltk_reason() if needs_nltk else None
    if reason:
        for item in needs_nltk:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return SHARED


@pytest.fixture(scope="session")
def upstream_dir(shared_dir: Path) -> Path:
    return shared_dir / "upstream"


@pytest.fixture(scope="session")
def golden_dir(shared_dir: Path) -> Path:
    return shared_dir / "golden"


@pytest.fixture(scope="session")
def built_package() -> Path:
    """The package as ``dmbench build`` makes it, built once per session for every test module.

    Read it freely; copy it (``results_support.copy_package``) before changing it.
    """
    return results_support.built_package()


@pytest.fixture(scope="session")
def deposit_package() -> Path:
    """The package a deposit is built from, as the main job leaves it (see results_support);
    copy it before changing it."""
    return results_support.deposit_package()


@pytest.fixture(scope="session")
def deposit() -> Path:
    """The folder ``dmbench deposit --draft`` wrote from :func:`deposit_package`, built once per
    session for the deposit, check and kill tests; copy it before changing it."""
    return results_support.draft_deposit()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A small committed git checkout, for what ``dmbench deposit`` checks before anything."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (
        ["init", "-q"],
        ["config", "user.email", "t@example.org"],
        ["config", "user.name", "t"],
    ):
        subprocess.run(["git", "-C", repo, *args], check=True)
    (repo / "README.md").write_text("x\n")
    subprocess.run(["git", "-C", repo, "add", "README.md"], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-qm", "x"], check=True)
    return repo
