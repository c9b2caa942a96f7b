"""``dmbench deposit --wheels``: a deposit that installs and checks with no network at all.

The deposit is of the two-series package (``results_support.two_series_package``: how the
wheels are fetched and installed does not depend on the runs a package holds). Its wheels are
fetched from PyPI once per test session (into the session's cache, which the wheel cache and
pip's own cache both live in), the largest download of the suite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, zip_member
from results_support import two_series_package

from dmbench.core.hashing import file_sha256
from dmbench.package.archive import extract_zip
from dmbench.release.deposit import CODE_ZIP, PACKAGE_ZIP, SUMS_FILE, WHEELS_ZIP, build_deposit
from dmbench.release.wheels import PYTHON_VERSIONS


@pytest.fixture(scope="module")
def wheels_deposit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheels") / "deposit"
    build_deposit(two_series_package(), out, draft=True, repo=ROOT, wheels=True)
    return out


def _unshare_works() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.needs_shared
def test_the_wheels_zip_is_listed_and_covers_every_python(wheels_deposit: Path) -> None:
    sums = dict(
        reversed(line.split("  ", 1)) for line in (wheels_deposit / SUMS_FILE).read_text().splitlines()
    )
    assert sums[WHEELS_ZIP] == file_sha256(wheels_deposit / WHEELS_ZIP)
    with zipfile.ZipFile(wheels_deposit / WHEELS_ZIP) as archive:
        infos = archive.infolist()
    names = [info.filename for info in infos]
    folder = WHEELS_ZIP.removesuffix(".zip")
    assert all(name.startswith(f"{folder}/") and name.endswith(".whl") for name in names)
    assert {info.compress_type for info in infos} == {zipfile.ZIP_STORED}
    for python in PYTHON_VERSIONS:
        tag = "cp" + python.replace(".", "")
        assert any("/numpy-" in n and f"-{tag}-{tag}-manylinux" in n for n in names), tag
    assert any("/setuptools-" in n for n in names)  # pip builds the code folder from it
    readme = zip_member(wheels_deposit / PACKAGE_ZIP, "README.md")
    code = CODE_ZIP.removesuffix("-code.zip")
    install = f"pip install --no-index --find-links {folder} -c {code}/constraints.txt ./{code}"
    assert f"\n{install}\n" in readme  # the command the next test runs
    assert "needs the network" in readme


@pytest.mark.needs_shared
def test_a_fresh_venv_installs_offline_and_check_passes(wheels_deposit, tmp_path) -> None:
    """The acceptance: the record's files in an empty folder, no network (``unshare -n``
    where the kernel allows it), an empty HOME, a new venv, the README's commands."""
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (tmp_path / "home").mkdir()
    for name in (PACKAGE_ZIP, CODE_ZIP, WHEELS_ZIP, SUMS_FILE):
        shutil.copy(wheels_deposit / name, downloads)
    extract_zip(downloads / CODE_ZIP, downloads)
    extract_zip(downloads / WHEELS_ZIP, downloads)
    env = {"PATH": os.defpath, "HOME": str(tmp_path / "home"), "LANG": "C.UTF-8"}
    prefix = ["unshare", "-n"] if _unshare_works() else []

    def run(*args: str | Path, timeout: int = 900) -> subprocess.CompletedProcess:
        return subprocess.run(
            [*prefix, *map(str, args)], cwd=downloads, env=env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip

    venv = downloads / ".venv"
    assert run(sys.executable, "-m", "venv", venv).returncode == 0
    code = CODE_ZIP.removesuffix("-code.zip")
    installed = run(
        venv / "bin" / "pip", "install", "--no-index", "--find-links",
        WHEELS_ZIP.removesuffix(".zip"), "-c", f"{code}/constraints.txt", f"./{code}",
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    checked = run(venv / "bin" / "dmbench", "check", PACKAGE_ZIP)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"anchor: {PACKAGE_ZIP} has the sha256 SHA256SUMS beside the zip gives" in checked.stdout
    assert "\nverdict: OK\n" in checked.stdout
