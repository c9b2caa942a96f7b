"""``dmbench check`` on the deposit: the downloader's offline check of the whole package, and
the anchors and hashes that make a forged or added file fail.

The deposit is the session's (``results_support.draft_deposit``); the deposit's own tests are in
test_deposit.py, a file apart so that pytest-xdist can run the two on different workers.
"""

from __future__ import annotations

import hashlib
import json
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
from dmbench.release.check import EXIT_NOT_ANCHORED, listed_sums
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
    verdict = _verdict(failed.output)
    assert re.match(r"verdict: FAILED \(\d+ difference\(s\)\): \[anchor\] SHA256SUMS beside", verdict)
    assert "column class_median: shipped 1.746, recomputed 0.746" in verdict


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


def _rehash(source: Path, target: Path, member: str, old: bytes, new: bytes) -> None:
    """A forger's consistent edit: ``member`` changed, then its size and sha256 in
    ``data/files.csv`` or ``datapackage.json``, the files table's own in the descriptor, and a
    ``SHA256SUMS`` beside ``target`` listing the new zip: every hash inside and beside agrees."""
    with zipfile.ZipFile(source) as src:
        data = {info.filename: src.read(info) for info in src.infolist()}
    assert old in data[member]
    data[member] = data[member].replace(old, new, 1)
    descriptor = json.loads(data["datapackage.json"])
    resources = {r["path"]: r for r in descriptor["resources"]}

    def restate(path: str) -> None:
        if path in resources:
            resources[path]["bytes"] = len(data[path])
            resources[path]["hash"] = f"sha256:{hashlib.sha256(data[path]).hexdigest()}"
            return
        rows = data["data/files.csv"].decode().splitlines(keepends=True)
        for i, row in enumerate(rows):
            if row.startswith(f"{path},"):
                name, kind, _, _ = row.rstrip("\n").split(",")
                sha = hashlib.sha256(data[path]).hexdigest()
                rows[i] = f"{name},{kind},{len(data[path])},{sha}\n"
        data["data/files.csv"] = "".join(rows).encode()

    restate(member)
    restate("data/files.csv")
    data["datapackage.json"] = json.dumps(descriptor, indent=2).encode()
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as out:
        for info in src.infolist():
            out.writestr(info, data[info.filename])
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    (target.parent / SUMS_FILE).write_text(f"{digest}  {target.name}\n")


def _verdict(output: str) -> str:
    (line,) = [line for line in output.splitlines() if line.startswith("verdict: ")]
    return line


@pytest.mark.needs_shared
class TestVerdicts:
    def test_an_unanchored_zip_or_folder_is_consistent_not_anchored(self, deposit, tmp_path):
        """A zip alone and a folder hold together but nothing outside vouches for them: their
        own exit code, unless --md5 (or SHA256SUMS) anchors the zip or --no-anchor accepts."""
        package = Path(shutil.copy(deposit / PACKAGE_ZIP, tmp_path))
        alone = CliRunner().invoke(main, ["check", str(package)])
        assert alone.exit_code == EXIT_NOT_ANCHORED == 3, alone.output
        assert _verdict(alone.output) == (
            "verdict: CONSISTENT, NOT ANCHORED: pass --md5 from the record page, or put "
            "SHA256SUMS beside the zip"
        )
        md5 = hashlib.md5(package.read_bytes()).hexdigest()
        anchored = CliRunner().invoke(main, ["check", str(package), "--md5", md5])
        assert anchored.exit_code == 0, anchored.output
        assert f"anchor: {PACKAGE_ZIP} has the md5 --md5 gives" in anchored.output
        assert _verdict(anchored.output) == "verdict: OK"

        folder = extract_zip(package, tmp_path / "folder")
        accepted = CliRunner().invoke(main, ["check", str(folder), "--no-anchor"])
        assert accepted.exit_code == 0, accepted.output
        assert "anchor: none (a folder; anchors are the checksums of a zip)" in accepted.output
        assert _verdict(accepted.output) == "verdict: OK (not anchored, as --no-anchor accepts)"

    def test_a_stray_file_with_sums_updated_ends_in_a_verdict_naming_it(self, deposit, tmp_path):
        """SHA256SUMS matches (the forger rewrote it), so the refusal of the unlisted member is
        the cause; before, it was a bare `Error:` line with no verdict."""
        forged = tmp_path / PACKAGE_ZIP
        _add_member(deposit / PACKAGE_ZIP, forged, "data/extra.csv", b"a,b\n")
        digest = hashlib.sha256(forged.read_bytes()).hexdigest()
        (tmp_path / SUMS_FILE).write_text(f"{digest}  ./{PACKAGE_ZIP}\n")
        result = CliRunner().invoke(main, ["check", str(forged)])
        assert result.exit_code == 1
        assert f"anchor: {PACKAGE_ZIP} has the sha256 SHA256SUMS beside the zip gives" in result.output
        assert _verdict(result.output).startswith("verdict: FAILED (1 difference(s)): [refused]")
        assert "member 'data/extra.csv' is not listed in the package" in _verdict(result.output)
        assert "hint: the zip is the one its checksum lists" in result.output
        assert "Error:" not in result.output

    def test_a_changed_nltk_file_is_named_inside_the_package(self, deposit, tmp_path):
        """Every hash updated: the pin is what fails, named by its path in the package, never
        the extraction folder, with a hint for someone offline (not `dmbench setup`)."""
        forged = tmp_path / PACKAGE_ZIP
        adv = "nltk_data/corpora/wordnet/adv.exc"
        first = zip_member(deposit / PACKAGE_ZIP, adv).encode()[:20]
        _rehash(deposit / PACKAGE_ZIP, forged, adv, first, first.swapcase())
        result = CliRunner().invoke(main, ["check", str(forged)])
        assert result.exit_code == 1, result.output
        verdict = _verdict(result.output)
        assert verdict.startswith(f"verdict: FAILED (1 difference(s)): [NLTK data] {adv}: NLTK")
        assert "not the " in verdict and "dmbench-package-" not in result.output
        assert "published scores: not re-scored" in result.output
        assert "dmbench setup" not in result.output and "tmp" not in verdict
        assert "hint: the zip is the one its checksum lists" in result.output

    def test_a_consistent_score_edit_names_row_column_and_both_values(self, deposit, tmp_path):
        forged = tmp_path / PACKAGE_ZIP
        scores = zip_member(deposit / PACKAGE_ZIP, "data/scores.csv").splitlines()
        number, row = next(
            (n, line) for n, line in enumerate(scores) if ",metrik-4,published," in line
        )
        cells = row.split(",")
        old_value = cells[4]
        cells[4] = "0.999"
        _rehash(deposit / PACKAGE_ZIP, forged, "data/scores.csv", row.encode(),
                ",".join(cells).encode())  # fmt: skip
        result = CliRunner().invoke(main, ["check", str(forged)])
        assert result.exit_code == 1, result.output
        where = (
            f"data/scores.csv row {number} (run_id={cells[0]}, record_id={cells[1]}, "
            f"origin=published, metric=metrik-4), column class_score: shipped 0.999, "
            f"recomputed {old_value}"
        )
        assert where in _verdict(result.output)
        assert "differs from what runs/ holds" in _verdict(result.output)
        assert "rerun the command" not in result.output and "dmbench build" not in result.output


def _sums(folder: Path, text: str) -> Path:
    (folder / SUMS_FILE).write_text(text)
    return folder / SUMS_FILE


class TestSumsAsSha256sumReadsThem:
    """``listed_sums`` against the lines ``sha256sum`` writes and ``sha256sum -c`` accepts."""

    def test_dot_slash_binary_marks_bsd_tags_and_escapes_name_the_file(self, tmp_path) -> None:
        target = tmp_path / "a b.zip"
        target.write_bytes(b"x")
        digest = hashlib.sha256(b"x").hexdigest()
        made = subprocess.run(
            ["sha256sum", "--binary", f"./{target.name}"], cwd=tmp_path, capture_output=True,
            text=True, check=True,
        ).stdout  # fmt: skip
        assert made == f"{digest} *./{target.name}\n"
        bsd = f"SHA256 ({target.name}) = {digest}\n"
        sums = _sums(tmp_path, made + bsd + f"{digest.upper()}  {target.name}\njunk\n")
        assert listed_sums(sums, target) == [digest] * 3
        assert subprocess.run(["sha256sum", "-c", sums.name], cwd=tmp_path).returncode == 0
        weird = tmp_path / "new\nline.zip"
        weird.write_bytes(b"x")
        escaped = subprocess.run(
            ["sha256sum", weird.name], cwd=tmp_path, capture_output=True, text=True, check=True
        ).stdout
        assert escaped.startswith("\\")
        assert listed_sums(_sums(tmp_path, escaped), weird) == [digest]

    def test_a_file_listed_twice_is_checked_against_both_lines(self, tmp_path) -> None:
        """sha256sum -c fails the wrong line whichever comes first; so must the anchor."""
        target = tmp_path / "p.zip"
        target.write_bytes(b"not a package")
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        for lines in ([digest, "0" * 64], ["0" * 64, digest]):
            _sums(tmp_path, "".join(f"{h}  {target.name}\n" for h in lines))
            assert subprocess.run(["sha256sum", "-c", SUMS_FILE], cwd=tmp_path,
                                  capture_output=True).returncode == 1  # fmt: skip
            result = CliRunner().invoke(main, ["check", str(target)])
            assert result.exit_code == 1
            assert f"anchor: p.zip has the sha256 {SUMS_FILE} beside the zip gives" in result.output
            assert f"DIFF [anchor] p.zip: its sha256 is {digest}, {SUMS_FILE}" in result.output
            assert _verdict(result.output).startswith("verdict: FAILED (2 difference(s)): [anchor]")

    def test_a_dot_slash_entry_anchors_the_zip(self, tmp_path) -> None:
        """`./name` was reported "not listed" (a false FAILED)."""
        target = tmp_path / "p.zip"
        target.write_bytes(b"not a package")
        digest = hashlib.sha256(target.read_bytes()).hexdigest()
        _sums(tmp_path, f"{digest}  ./p.zip\n")
        result = CliRunner().invoke(main, ["check", str(target)])
        assert "anchor: p.zip has the sha256 SHA256SUMS beside the zip gives" in result.output
        assert "does not list" not in result.output
        assert _verdict(result.output) == (
            f"verdict: FAILED (1 difference(s)): [refused] {target}: neither a package folder "
            "nor a zip file"
        )
