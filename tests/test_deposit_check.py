"""``dmbench check`` on the deposit: the downloader's offline check of the whole package, and
the anchors and hashes that make a forged or added file fail.

The deposit is the session's (``results_support.draft_deposit``); the deposit's own tests are in
test_deposit.py, a file apart so that pytest-xdist can run the two on different workers.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import zip_member

from dmbench._version import __version__
from dmbench.cli import main
from dmbench.package.archive import extract_zip
from dmbench.release.deposit import CODE_ZIP, PACKAGE_ZIP, SUMS_FILE


def _copy_zip(source: Path, target: Path, edit=lambda name, data: data, added=()) -> None:
    """A copy of the zip, each member's bytes through ``edit(name, data)``, then ``added``
    (name, bytes) members."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as out:
        for info in src.infolist():
            out.writestr(info, edit(info.filename, src.read(info)))
        for name, data in added:
            out.writestr(name, data)


def _forge(source: Path, target: Path, member: str, old: bytes, new: bytes) -> None:
    """A copy of the zip with one member's bytes changed, everything else as it was."""

    def edit(name: str, data: bytes) -> bytes:
        if name != member:
            return data
        assert old in data
        return data.replace(old, new, 1)

    _copy_zip(source, target, edit)


def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.needs_shared
def test_downloader_checks_the_deposit_offline_and_a_forged_cell_fails(deposit, tmp_path):
    """Extracted with nothing beside it, no NLTK_DATA, an empty HOME, no network."""
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (tmp_path / "home").mkdir()
    package = shutil.copy(deposit / PACKAGE_ZIP, downloads)
    shutil.copy(deposit / SUMS_FILE, downloads)
    extract_zip(deposit / CODE_ZIP, downloads)
    code = downloads / f"dmbench-{__version__}"
    env = {
        "PATH": os.defpath,
        "HOME": str(tmp_path / "home"),
        "PYTHONPATH": str(code / "src"),  # the code from the archive, not the checkout
        "LANG": "C.UTF-8",
    }
    prefix = ["unshare", "-n"] if _unshare_works() else []
    where = subprocess.run(
        [*prefix, sys.executable, "-c", "import dmbench; print(dmbench.__file__)"],
        cwd=downloads, env=env, capture_output=True, text=True, check=True,
    )
    assert where.stdout.startswith(str(code))
    result = subprocess.run(
        [*prefix, sys.executable, "-m", "dmbench", "check", Path(package).name],
        cwd=downloads, env=env, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "NLTK data: nltk_data/ of the package" in result.stdout
    assert f"anchor: {PACKAGE_ZIP} has the sha256 SHA256SUMS beside the zip gives" in result.stdout
    assert "3337 of 3339 values reproduced" in result.stdout
    assert "1 explained exception" in result.stdout
    assert re.search(r"tables: (\d+) of \1 files in results/ equal", result.stdout)
    assert "\nverdict: OK\n" in result.stdout

    forged = downloads / "forged.zip"
    _forge(Path(package), forged, "results/table2.csv", b",0.746,", b",1.746,")
    failed = CliRunner().invoke(main, ["check", str(forged)])
    assert failed.exit_code == 1
    assert (
        "results/table2.csv row 2 (dataset=ds1, series=chen__glm-5.1_cloud, origin=published, "
        "metric=metrik-4), column class_median: shipped 1.746, recomputed 0.746"
    ) in failed.output
    assert "hash-count] results/table2.csv" in failed.output
    assert "DIFF [anchor] SHA256SUMS beside the zip does not list forged.zip" in failed.output
    assert "verdict: FAILED" in failed.output


@pytest.mark.needs_shared
def test_check_holds_plantumls_verdict_by_its_hash_or_redraws_it(deposit, tmp_path):
    """Not recomputed offline (PlantUML needs Java), so one changed count must fail on the
    hash alone (no SHA256SUMS beside the forged zip, nothing else changed); --plantuml redraws
    it (the fixture drew it into the session's render cache)."""
    redrawn = CliRunner().invoke(main, ["check", str(deposit / PACKAGE_ZIP), "--plantuml"])
    assert redrawn.exit_code == 0, redrawn.output
    assert (
        "tables: PlantUML's verdict redrawn (PlantUML 1.2025.9, dot layout): 3 of 3 files equal"
    ) in redrawn.output
    row = zip_member(deposit / PACKAGE_ZIP, "results/validity.csv").splitlines()[1]
    cells = row.split(",")
    cells[4] = str(int(cells[4]) + 1)  # outputs
    forged = tmp_path / PACKAGE_ZIP
    forged_row = ",".join(cells).encode()
    _forge(deposit / PACKAGE_ZIP, forged, "results/validity.csv", row.encode(), forged_row)
    failed = CliRunner().invoke(main, ["check", str(forged)])
    assert failed.exit_code == 1
    assert (
        "tables: PlantUML's verdict (results/validity.csv, results/validity.json, "
        "results/validity.md) is not recomputed offline"
    ) in failed.output
    assert "DIFF [validate frictionless:hash-count] results/validity.csv" in failed.output
    assert "verdict: FAILED (1 difference(s))" in failed.output


def _add_member(source: Path, target: Path, name: str, data: bytes) -> None:
    _copy_zip(source, target, added=[(name, data)])


@pytest.mark.needs_shared
class TestAnchoredCheck:
    def test_an_added_file_fails_on_sums_and_is_named(self, deposit, tmp_path) -> None:
        shutil.copy(deposit / SUMS_FILE, tmp_path)
        _add_member(deposit / PACKAGE_ZIP, tmp_path / PACKAGE_ZIP, "data/extra.csv", b"a,b\n")
        result = CliRunner().invoke(main, ["check", str(tmp_path / PACKAGE_ZIP)])
        assert result.exit_code == 1
        assert "SHA256SUMS beside the zip gives" in result.output
        assert "member 'data/extra.csv' is not listed in the package" in result.output
        assert "verdict: FAILED (2 difference(s))" in result.output

    def test_a_dot_file_fails_without_any_anchor(self, deposit, tmp_path) -> None:
        _add_member(deposit / PACKAGE_ZIP, tmp_path / PACKAGE_ZIP, ".hidden", b"x")
        result = CliRunner().invoke(main, ["check", str(tmp_path / PACKAGE_ZIP)])
        assert result.exit_code == 1 and "'.hidden' is not listed" in result.output

    def test_given_checksums_are_compared(self, deposit, tmp_path) -> None:
        package = Path(shutil.copy(deposit / PACKAGE_ZIP, tmp_path))
        wrong = "0" * 64
        result = CliRunner().invoke(main, ["check", str(package), "--sha256", wrong])
        assert result.exit_code == 1
        assert f"--sha256 gives {wrong}" in result.output
        bad = CliRunner().invoke(main, ["check", str(package), "--md5", "xyz"])
        assert bad.exit_code == 1 and "is not a md5 in hex" in bad.output

    def test_a_member_larger_than_declared_is_refused_unread(self, deposit, tmp_path) -> None:
        forged = tmp_path / PACKAGE_ZIP
        _copy_zip(
            deposit / PACKAGE_ZIP,
            forged,
            lambda name, data: data + b"\0" * (1 << 24) if name == "errata.md" else data,
        )
        result = CliRunner().invoke(main, ["validate", str(forged)])
        assert result.exit_code == 1
        assert "member 'errata.md' is" in result.output and "the package declares" in result.output

    def test_validate_reads_the_zip_as_check_does(self, deposit: Path) -> None:
        result = CliRunner().invoke(main, ["validate", str(deposit / PACKAGE_ZIP)])
        assert result.exit_code == 0, result.output
        assert f"{deposit / PACKAGE_ZIP}: valid" in result.output
        assert "dmbench-package-" not in result.output  # never the extraction folder
