"""The wheels a deposit can carry, so that its code installs with no index at all.

A deposit's code zip installs with ``pip install -c constraints.txt``, which needs PyPI to
still serve every pinned version. ``dmbench deposit --wheels`` adds a zip of the wheels that
install needs (dmbench's dependencies at the versions ``constraints.txt`` pins, and the build
backend that turns the code folder into a wheel) for Linux x86_64 and CPython 3.11-3.13, so
that ``pip install --no-index --find-links`` works offline, years later. The wheels are
fetched with ``pip download`` for each target interpreter (``--only-binary :all:``, that
platform and ABI), whatever the machine building the deposit runs, into a folder of the user's
cache named by what was asked (:func:`dmbench.core.paths.wheels_cache_dir`), which a second
deposit of the same requirements reuses without the network. The zip stores them uncompressed
(a wheel is a zip already) under one folder, stamped like the deposit's other zips, so one set
of wheels gives the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from dmbench.core.paths import wheels_cache_dir
from dmbench.core.swap import swap_in
from dmbench.errors import PackageError

PYTHON_VERSIONS = ("3.11", "3.12", "3.13")
PLATFORMS = (
    "manylinux_2_28_x86_64",
    "manylinux_2_27_x86_64",
    "manylinux_2_26_x86_64",
    "manylinux_2_24_x86_64",
    "manylinux_2_17_x86_64",
    "manylinux2014_x86_64",
    "manylinux_2_12_x86_64",
    "manylinux2010_x86_64",
    "manylinux_2_5_x86_64",
    "manylinux1_x86_64",
)
"""What pip on Linux x86_64 with glibc 2.28 or later accepts (RHEL 8, Debian 10, Ubuntu 18.10
and later); pure-Python wheels (``any``) are always taken."""
BUILD_PINS = ("setuptools==84.2.1", "wheel==0.48.0")
"""The build backend, at the versions the offline install was tried with: pip builds the code
folder in an isolated environment, from the wheels folder when there is no index."""
DOWNLOAD_TIMEOUT_SECONDS = 1800
COMPLETE = ".complete"
"""Written last into a cache folder: one without it was interrupted and is fetched again."""


def requirements(code_dir: Path) -> list[str]:
    """dmbench's runtime requirements and build requirements, as the archived
    ``pyproject.toml`` declares them, the build backend pinned."""
    try:
        project = tomllib.loads((Path(code_dir) / "pyproject.toml").read_text("utf-8"))
        declared = list(project["project"]["dependencies"])
        build = list(project["build-system"]["requires"])
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise PackageError(
            f"{code_dir}/pyproject.toml: no dependencies and build requirements to fetch ({exc})"
        ) from None
    pinned = {pin.split("==")[0] for pin in BUILD_PINS}
    unpinned = [r for r in build if not any(r.startswith(name) for name in pinned)]
    return [*declared, *unpinned, *BUILD_PINS]


def download_command(code_dir: Path, target: Path, python: str) -> list[str]:
    """``pip download`` of every wheel an install on CPython ``python`` needs, into ``target``."""
    abi = "cp" + python.replace(".", "")
    return [
        sys.executable, "-m", "pip", "download", "--disable-pip-version-check",
        "--only-binary", ":all:", "--dest", str(target),
        "--constraint", str(Path(code_dir) / "constraints.txt"),
        "--python-version", python, "--implementation", "cp",
        "--abi", abi, "--abi", "abi3", "--abi", "none",
        *(arg for platform in PLATFORMS for arg in ("--platform", platform)),
        *requirements(code_dir),
    ]  # fmt: skip


def download_wheels(code_dir: Path, target: Path) -> list[Path]:
    """Every wheel the code in ``code_dir`` needs on each of :data:`PYTHON_VERSIONS`, fetched
    into ``target`` (PyPI must be reachable); the files, sorted by name."""
    target.mkdir(parents=True, exist_ok=True)
    for python in PYTHON_VERSIONS:
        try:
            done = subprocess.run(
                download_command(code_dir, target, python),
                capture_output=True,
                text=True,
                timeout=DOWNLOAD_TIMEOUT_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise PackageError(
                f"pip download of the wheels for CPython {python} took over "
                f"{DOWNLOAD_TIMEOUT_SECONDS} s",
                hint="check the connection to PyPI, or build the deposit without --wheels",
            ) from None
        if done.returncode != 0:
            said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
            last = said[-1] if said else f"exit {done.returncode}"
            raise PackageError(
                f"pip download of the wheels for CPython {python} failed: {last}",
                hint="--wheels fetches them from PyPI: check the network, or build the deposit "
                "without --wheels",
            )
    return sorted(p for p in target.iterdir() if p.suffix == ".whl")


def cached_wheels(code_dir: Path, cache: Path | None = None) -> list[Path]:
    """The wheels of :func:`download_wheels` from ``cache`` (default the user's), fetched
    there first when this set of requirements was never fetched whole: made aside and moved
    in, so an interrupted download leaves nothing a later deposit would take for complete."""
    cache = Path(cache) if cache is not None else wheels_cache_dir()
    asked = {
        "requirements": requirements(code_dir),
        "constraints": (Path(code_dir) / "constraints.txt").read_text("utf-8"),
        "pythons": PYTHON_VERSIONS,
        "platforms": PLATFORMS,
    }
    key = hashlib.sha256(json.dumps(asked, sort_keys=True).encode()).hexdigest()[:16]
    folder = cache / key
    if not (folder / COMPLETE).is_file():
        staging = cache / f".{key}-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        try:
            download_wheels(code_dir, staging)
            (staging / COMPLETE).write_text(json.dumps(asked, indent=1) + "\n", "utf-8")
            swap_in([(staging, folder)], cache)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return sorted(p for p in folder.iterdir() if p.suffix == ".whl")
