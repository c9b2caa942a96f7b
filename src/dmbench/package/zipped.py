"""A package zip read as a downloader gets it: only what the package declares, at the sizes
it declares.

The descriptor and the files table are read from the zip first (each bounded), and give the
size of every other file; a member they do not list, or of another size, is refused before
anything is written, so an archive cannot smuggle in a file nor make ``check`` read gigabytes
that a few kilobytes of zip expand to. Duplicate names, encryption and compression methods
other than stored and deflated are refused by :func:`dmbench.package.archive.extract_zip`.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from dmbench.errors import PackageError
from dmbench.package.archive import ZIP_ERRORS, extract_zip, read_member, zip_members
from dmbench.package.descriptor import DESCRIPTOR, FILES_PATH

SUMS_FILE = "SHA256SUMS"
"""The checksums a deposit ships beside its zips, in ``sha256sum``'s format."""
MAX_DESCRIPTOR_BYTES = 16 << 20
"""No dmbench descriptor comes near this; a larger one is not read."""


def declared_sizes(archive: Path) -> dict[str, int]:
    """Every file the package in ``archive`` lists, with its declared size in bytes."""
    with zipfile.ZipFile(archive) as handle:
        members = zip_members(handle, archive)
        if DESCRIPTOR not in members:
            raise PackageError(
                f"{archive}: no {DESCRIPTOR} at the root of the zip",
                hint="check and validate take the package zip of a deposit or a package folder",
            )
        raw = read_member(handle, members[DESCRIPTOR], MAX_DESCRIPTOR_BYTES, archive)
        try:
            descriptor = json.loads(raw.decode("utf-8"))
            resources = descriptor["resources"]
            sizes = {DESCRIPTOR: len(raw)}
            sizes |= {r["path"]: int(r["bytes"]) for r in resources if isinstance(r["path"], str)}
        except (UnicodeDecodeError, ValueError, RecursionError, KeyError, TypeError) as exc:
            raise PackageError(
                f"{archive}: {DESCRIPTOR} does not declare its resources' paths and bytes "
                f"({type(exc).__name__}: {exc})"
            ) from None
        if FILES_PATH in members and FILES_PATH in sizes:
            text = read_member(handle, members[FILES_PATH], sizes[FILES_PATH], archive)
            try:
                rows = csv.DictReader(io.StringIO(text.decode("utf-8"), newline=""))
                sizes |= {row["path"]: int(row["bytes"]) for row in rows}
            except (UnicodeDecodeError, ValueError, KeyError, TypeError, csv.Error) as exc:
                raise PackageError(
                    f"{archive}: {FILES_PATH} does not list paths and bytes ({exc})"
                ) from None
    return sizes


@contextmanager
def opened_package(path: Path) -> Iterator[Path]:
    """The package folder ``path`` is, or its zip's declared files extracted into a temporary
    folder (removed afterwards)."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise PackageError(f"{path}: no such package folder or zip")
    if not zipfile.is_zipfile(path):
        raise PackageError(f"{path}: neither a package folder nor a zip file")
    try:
        sizes = declared_sizes(path)
    except ZIP_ERRORS as exc:
        raise PackageError(f"{path}: not a readable zip file ({exc})") from None
    with tempfile.TemporaryDirectory(prefix="dmbench-package-") as tmp:
        extract_zip(path, Path(tmp), sizes)
        yield Path(tmp)
