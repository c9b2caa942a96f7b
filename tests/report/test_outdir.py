"""Folders a command replaces whole: refused unless new, empty or its own; a killed swap undone."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest
from kill_support import in_child_killed_after

from dmbench.errors import OutDirRefusedError
from dmbench.release.deposit import DEPOSIT_FILES
from dmbench.report.outdir import MARKER, finish_interrupted, refuse_foreign, staging_for, swap_in


@pytest.fixture
def package(tmp_path: Path) -> Path:
    package = tmp_path / "package"
    for folder in ("data", "runs/r1", "prompts", "schemas", "licenses"):
        (package / folder).mkdir(parents=True)
    (package / "datapackage.json").write_text("{}", "utf-8")
    (package / "runs" / "r1" / "outputs.jsonl").write_text("{}\n", "utf-8")
    return package


@pytest.mark.parametrize("target", [".", "..", "runs", "runs/r1", "runs/new", "data/x", "schemas"])
def test_the_package_and_its_folders_are_refused(package: Path, target: str) -> None:
    with pytest.raises(OutDirRefusedError, match=r"^--out "):
        refuse_foreign(package / target, package, "report")


def test_a_new_an_empty_and_an_own_folder_are_accepted(package: Path, tmp_path: Path) -> None:
    refuse_foreign(package / "report", package, "report")  # inside the package, but new
    (tmp_path / "empty").mkdir()
    refuse_foreign(tmp_path / "empty", package, "report")
    own = tmp_path / "own"
    own.mkdir()
    (own / MARKER).write_text("x", "utf-8")
    (own / "index.html").write_text("x", "utf-8")
    refuse_foreign(own, package, "report")


def test_a_folder_with_other_files_is_refused(package: Path, tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "thesis.tex").write_text("keep", "utf-8")
    with pytest.raises(OutDirRefusedError, match="did not write"):
        refuse_foreign(tmp_path / "notes", package, "report")
    (tmp_path / "file").write_text("x", "utf-8")
    with pytest.raises(OutDirRefusedError, match="not a folder"):
        refuse_foreign(tmp_path / "file", package, "report")


def test_a_deposit_folder_is_known_by_its_files(package: Path, tmp_path: Path) -> None:
    out = tmp_path / "deposit"
    out.mkdir()
    for name in ("dmbench-1.0-package.zip", "dmbench-1.0-code.zip", "SHA256SUMS"):
        (out / name).write_bytes(b"x")
    refuse_foreign(out, package, "deposit", own_files=DEPOSIT_FILES)
    (out / "thesis.tex").write_text("keep", "utf-8")
    with pytest.raises(OutDirRefusedError, match="did not write"):
        refuse_foreign(out, package, "deposit", own_files=DEPOSIT_FILES)


def test_a_swap_replaces_the_folder_and_marks_it(tmp_path: Path) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / "old.html").write_text("old", "utf-8")
    staging = staging_for(out)
    (staging / "new.html").write_text("new", "utf-8")
    swap_in(staging, out, "marker\n")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "new.html"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_the_current_folder_can_be_the_target(tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "deposit"
    out.mkdir()
    monkeypatch.chdir(out)
    staging = staging_for(Path("."))
    (staging / "SHA256SUMS").write_text("", "utf-8")
    swap_in(staging, Path("."), "marker\n")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "SHA256SUMS"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deposit"]


def test_the_swapped_in_folder_has_the_umasks_mode_not_mkdtemps(tmp_path: Path) -> None:
    """A deposit or report folder others read must not come out private (0700)."""
    previous = os.umask(0o022)
    try:
        staging = staging_for(tmp_path / "deposit")
        swap_in(staging, tmp_path / "deposit", "marker\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "deposit").stat().st_mode) == 0o755


def _killed_site_swap(tmp_path: Path, moves: int) -> Path:
    """An old site in place and a new one staged; the swap killed before move ``moves``."""
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("old", "utf-8")
    staging = staging_for(out)
    (staging / "index.html").write_text("new", "utf-8")
    assert in_child_killed_after(moves, lambda: swap_in(staging, out, "m\n")) == -signal.SIGKILL
    return out


def test_a_swap_killed_after_the_first_rename_is_rolled_back(tmp_path: Path) -> None:
    out = _killed_site_swap(tmp_path, 1)
    assert not out.exists()
    finish_interrupted(out)
    assert (out / "index.html").read_text("utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_swap_killed_after_the_second_rename_keeps_the_new_site(tmp_path: Path) -> None:
    out = _killed_site_swap(tmp_path, 2)
    finish_interrupted(out)
    assert (out / "index.html").read_text("utf-8") == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
