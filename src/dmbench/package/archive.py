"""Zip files that come out byte-identical from one commit, and that are read back safely.

A deposit must be reproducible bit for bit: two builds from one commit give the same sha256.
Zip members therefore carry one fixed timestamp (``SOURCE_DATE_EPOCH``, the reproducible-builds
convention, else the commit's time), fixed modes (0644, 0755 for what git marks executable),
no directory entries and a sorted order. Reading refuses any member that could land outside
the target folder or is not a plain file.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import subprocess
import tarfile
import time
import zipfile
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from dmbench.errors import PackageError

SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"
ZIP_EPOCH_MIN = 315532800  # 1980-01-01, the earliest time a zip member can carry


@dataclass(frozen=True, slots=True)
class Member:
    """One file of a reproducible zip: name, bytes and whether it is executable."""
    name: str
    data: bytes
    executable: bool = False


def _zip_info(name: str, epoch: int, executable: bool) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=time.gmtime(max(epoch, ZIP_EPOCH_MIN))[:6])
    info.create_system = 3  # unix, so the modes below are read
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


#: zlib's default level: level 9 took a deposit 3.4 s instead of 1.1 s (mostly the NLTK data)
#: for a zip 0.7 % smaller. Fixed here, since the level is part of what makes the bytes.
COMPRESS_LEVEL = 6


def zip_bytes(members: Iterable[Member], epoch: int) -> bytes:
    """The zip of ``members``, sorted by name, every one stamped with ``epoch``."""
    buffer = io.BytesIO()
    ordered = sorted(members, key=lambda m: m.name)
    names = [m.name for m in ordered]
    if len(set(names)) != len(names):
        raise PackageError("two archive members share a name")
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in ordered:
            info = _zip_info(member.name, epoch, member.executable)
            archive.writestr(info, member.data, compresslevel=COMPRESS_LEVEL)
    return buffer.getvalue()


def write_stored_zip(target: Path, files: Iterable[tuple[str, Path]], epoch: int) -> None:
    """Write the zip of ``files`` ((member name, file) pairs) to ``target``, sorted by name,
    stamped with ``epoch`` and stored uncompressed: for members that are compressed already
    (wheels), streamed from disk rather than held in memory."""
    ordered = sorted(files)
    names = [name for name, _ in ordered]
    if len(set(names)) != len(names):
        raise PackageError("two archive members share a name")
    with zipfile.ZipFile(target, "w") as archive:
        for name, path in ordered:
            info = _zip_info(name, epoch, executable=False)
            info.compress_type = zipfile.ZIP_STORED
            info.file_size = path.stat().st_size
            with path.open("rb") as source, archive.open(info, "w") as out:
                shutil.copyfileobj(source, out, 1 << 20)


def folder_members(root: Path, prefix: str = "") -> list[Member]:
    """Every file under ``root`` (dot files left out), named relative to it. A link is refused:
    archived, it would carry whatever it points to under a package's name."""
    members = []
    for path in sorted(Path(root).rglob("*")):
        name = path.relative_to(root)
        if any(part.startswith(".") for part in name.parts):
            continue
        if path.is_symlink():
            raise PackageError(f"{name}: a link is refused in an archive; replace it by the file")
        if path.is_file():
            members.append(Member(prefix + name.as_posix(), path.read_bytes()))
    return members


def _safe_name(name: str, archive: Path) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts or "\\" in name:
        raise PackageError(f"{archive}: member {name!r} would land outside the target folder")
    return path


MAX_MEMBERS = 200_000
"""Far above any dmbench package (about a thousand files); a zip with more is not read."""
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, zlib.error)
"""What reading a damaged zip raises."""
READABLE_COMPRESSION = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}


def zip_members(handle: zipfile.ZipFile, archive: Path) -> dict[str, zipfile.ZipInfo]:
    """The zip's files by name, after refusing what an extraction could not do faithfully:
    too many members, two of one name (tools disagree on which one they read), encryption,
    compression other than stored or deflated, names outside the target, links and devices."""
    infos = handle.infolist()
    if len(infos) > MAX_MEMBERS:
        raise PackageError(f"{archive}: {len(infos)} members, more than the {MAX_MEMBERS} read")
    members: dict[str, zipfile.ZipInfo] = {}
    for info in infos:
        name = info.filename
        _safe_name(name, archive)
        if info.is_dir():
            continue
        if name in members:
            raise PackageError(
                f"{archive}: two members are named {name!r}; tools disagree on which one they read"
            )
        if info.flag_bits & 0x1:
            raise PackageError(f"{archive}: member {name!r} is encrypted")
        if info.compress_type not in READABLE_COMPRESSION:
            raise PackageError(
                f"{archive}: member {name!r} uses compression method {info.compress_type}; "
                f"only {' and '.join(READABLE_COMPRESSION.values())} are read"
            )
        mode = info.external_attr >> 16
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: a zip that records no file type
            raise PackageError(f"{archive}: member {name!r} is not a plain file (mode {mode:o})")
        members[name] = info
    return members


def _copy_member(handle: zipfile.ZipFile, info: zipfile.ZipInfo, out, limit: int, archive: Path):
    """Copy ``info`` into ``out`` in chunks; refused as soon as it passes ``limit`` bytes."""
    written = 0
    with handle.open(info) as source:
        while chunk := source.read(1 << 20):
            written += len(chunk)
            if written > limit:
                raise PackageError(
                    f"{archive}: member {info.filename!r} holds more than its {limit} bytes"
                )
            out.write(chunk)


def read_member(handle: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, archive: Path) -> bytes:
    """The bytes of ``info``, refused past ``limit``."""
    if info.file_size > limit:
        raise PackageError(f"{archive}: member {info.filename!r} is larger than {limit} bytes")
    buffer = io.BytesIO()
    _copy_member(handle, info, buffer, limit, archive)
    return buffer.getvalue()


def extract_zip(archive: Path, target: Path, sizes: Mapping[str, int] | None = None) -> Path:
    """Extract ``archive`` into ``target`` (see :func:`zip_members` for what is refused).

    With ``sizes`` (name -> bytes, what a package declares), a member it does not name or of
    another size is refused before anything is written, and no member is read past its size.
    """
    archive = Path(archive)
    try:
        with zipfile.ZipFile(archive) as handle:
            members = zip_members(handle, archive)
            if sizes is not None:
                for name, info in members.items():
                    if name not in sizes:
                        raise PackageError(
                            f"{archive}: member {name!r} is not listed in the package",
                            hint="a downloaded package holds exactly the files it lists; get "
                            "the zip again from the record",
                        )
                    if info.file_size != sizes[name]:
                        raise PackageError(
                            f"{archive}: member {name!r} is {info.file_size} bytes, the package "
                            f"declares {sizes[name]}"
                        )
            for name, info in members.items():
                destination = Path(target) / _safe_name(name, archive)
                destination.parent.mkdir(parents=True, exist_ok=True)
                limit = info.file_size if sizes is None else sizes[name]
                with destination.open("wb") as out:
                    _copy_member(handle, info, out, limit, archive)
    except ZIP_ERRORS as exc:
        raise PackageError(f"{archive}: not a readable zip file ({exc})") from exc
    return Path(target)


@dataclass(frozen=True, slots=True)
class GitState:
    """The checkout a deposit is built from: its commit (whose time stamps every zip member)
    and what is uncommitted, which a release refuses."""
    commit: str
    commit_epoch: int
    dirty: tuple[str, ...]
    """``git status --porcelain`` lines: uncommitted changes and untracked files."""


def _git(root: Path, *args: str) -> bytes:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args], check=True, capture_output=True
        ).stdout
    except FileNotFoundError as exc:
        raise PackageError("git is not installed; a deposit archives the committed tree") from exc
    except subprocess.CalledProcessError as exc:
        message = exc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PackageError(
            f"git {' '.join(args)} failed in {root}: {message[-1] if message else exc}"
        ) from exc


def git_state(root: Path) -> GitState:
    """The checkout's commit, its time and uncommitted changes, read from git."""
    commit = _git(root, "rev-parse", "HEAD").decode().strip()
    epoch = int(_git(root, "log", "-1", "--format=%ct", "HEAD").decode().strip())
    status = _git(root, "status", "--porcelain").decode("utf-8", "replace").splitlines()
    return GitState(commit, epoch, tuple(line for line in status if line.strip()))


def build_epoch(state: GitState) -> int:
    """``SOURCE_DATE_EPOCH`` when set (reproducible-builds), else the commit's time."""
    value = os.environ.get(SOURCE_DATE_EPOCH)
    if value is None:
        return state.commit_epoch
    try:
        return int(value)
    except ValueError as exc:
        raise PackageError(f"{SOURCE_DATE_EPOCH}={value!r} is not an integer") from exc


def committed_tree(root: Path, prefix: str) -> list[Member]:
    """The files of HEAD as ``git archive`` gives them, under ``prefix``."""
    tar = _git(root, "archive", "--format=tar", "HEAD")
    members = []
    with tarfile.open(fileobj=io.BytesIO(tar)) as handle:
        for info in handle.getmembers():
            if info.isdir() or info.type == tarfile.XGLTYPE:
                continue
            if not info.isfile():
                raise PackageError(
                    f"{info.name} at HEAD is a link or special file; a deposit carries files only"
                )
            data = handle.extractfile(info).read()  # type: ignore[union-attr]
            members.append(Member(prefix + info.name, data, bool(info.mode & 0o111)))
    return members
