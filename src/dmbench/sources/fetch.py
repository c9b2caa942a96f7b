"""Download the pinned upstream archives and extract only the pinned files, safely.

The archives are GitHub's codeload tarballs at the pinned commits; ``base_url`` points at a
mirror (the tests serve one from 127.0.0.1). Members are refused when they would escape the
target (absolute paths, ``..``), or are links or devices; each extracted file is checked against
its sha256 before it is moved into place.
"""

from __future__ import annotations

import io
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath

from dmbench import atomic
from dmbench.errors import SourceError
from dmbench.sources.pins import Repository, read_verified, repositories

DEFAULT_BASE_URL = "https://codeload.github.com"


def archive_url(repo: Repository, base_url: str = DEFAULT_BASE_URL) -> str:
    return f"{base_url.rstrip('/')}/{repo.owner}/{repo.name}/tar.gz/{repo.commit}"


def _download(url: str, timeout: float) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise SourceError(f"{url}: download failed ({exc})") from exc


def _member_path(member: tarfile.TarInfo, archive: str) -> PurePosixPath:
    """A member's path, refused when it would escape the target, whatever the member is."""
    path = PurePosixPath(member.name)
    if path.is_absolute() or ".." in path.parts:
        raise SourceError(f"{archive}: refusing member {member.name!r} (path escapes the target)")
    return path


def _refuse_special(member: tarfile.TarInfo, archive: str) -> None:
    if member.issym() or member.islnk():
        raise SourceError(f"{archive}: refusing member {member.name!r} (link)")
    if not member.isfile():
        raise SourceError(f"{archive}: refusing member {member.name!r} (device, fifo or folder)")


def extract_pinned(repo: Repository, archive: bytes, target: Path, label: str) -> None:
    """Extract ``repo``'s pinned files from a codeload tarball into ``target/<repo.name>/``.

    Only pinned files are ever written; a pinned path that is a link or a device is refused, and
    so is any member whose path escapes the target. Other members are skipped unread.
    """
    wanted = {pin.path: pin for pin in repo.files}
    found: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar:
                path = _member_path(member, label)
                if len(path.parts) < 2:
                    continue
                inner = str(PurePosixPath(*path.parts[1:]))  # drop "<repo>-<commit>/"
                if inner in wanted:
                    _refuse_special(member, label)
                    handle = tar.extractfile(member)
                    assert handle is not None
                    found[inner] = handle.read()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise SourceError(f"{label}: not a readable tar.gz archive ({exc})") from exc
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise SourceError(f"{label}: pinned files missing from the archive: {', '.join(missing)}")
    with tempfile.TemporaryDirectory(dir=target.parent if target.parent.exists() else None) as tmp:
        staging = Path(tmp)
        for inner, data in found.items():
            path = staging / repo.name / inner
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            read_verified(staging, wanted[inner])
        for inner, data in found.items():
            atomic.write_bytes(target / repo.name / inner, data)


def fetch(cache_dir: Path, base_url: str = DEFAULT_BASE_URL, timeout: float = 120.0) -> Path:
    """Download both pinned archives into ``cache_dir`` (a sources directory); return it."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    for repo in repositories():
        url = archive_url(repo, base_url)
        extract_pinned(repo, _download(url, timeout), cache_dir, url)
    return cache_dir

