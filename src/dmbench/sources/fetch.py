"""Download the pinned upstream archives and extract only the pinned files, safely.

The archives are GitHub's codeload tarballs at the pinned commits; ``base_url`` points at a
mirror (the tests serve one from 127.0.0.1). Members are refused when they would escape the
target (absolute paths, ``..``), or are links or devices; each extracted file is checked against
its sha256 before it is moved into place.

Nothing is held in memory or written outside the cache: an archive is streamed into a staging
folder inside the cache, at most ``MAX_ARCHIVE_BYTES`` of it, and unpacked as a stream, at most
``MAX_UNPACKED_BYTES``; a pinned member whose size is not its pinned byte count is refused from
its header, before a byte of it is read. A body shorter than its ``Content-Length`` is reported
as truncated, and a gzip or tar stream that does not read to its end as corrupt. ``timeout``
bounds each read and ``deadline`` each whole download, so a server sending a byte at a time
cannot hold a fetch for long.
"""

from __future__ import annotations

import contextlib
import gzip
import http.client
import shutil
import socket
import ssl
import tarfile
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from pathlib import Path, PurePosixPath
from typing import IO, Any

from dmbench.core import atomic
from dmbench.errors import SourceError
from dmbench.sources.pins import PinnedFile, Repository, read_verified, repositories

DEFAULT_BASE_URL = "https://codeload.github.com"
MAX_ARCHIVE_BYTES = 256 * 2**20
"""The pinned archives are a few MB; more than this is not the archive that was pinned."""
MAX_UNPACKED_BYTES = 1024 * 2**20
DOWNLOAD_DEADLINE = 1800.0
"""Seconds one archive may take to arrive: at a slow 10 kB/s the pinned ones take minutes."""
_CHUNK = 2**20
_SLOW = "try again, or fetch from a faster mirror with --base-url"
_MIRROR = f"the default is {DEFAULT_BASE_URL}; a mirror serves /<owner>/<repo>/tar.gz/<commit>"


def _check_base_url(base_url: str) -> None:
    try:
        split = urllib.parse.urlsplit(base_url)
        split.port  # noqa: B018 - a port out of range or not a number raises here
    except ValueError as exc:
        raise SourceError(f"--base-url {base_url!r} is not a URL ({exc})", hint=_MIRROR) from None
    if split.scheme not in ("http", "https") or not split.hostname:
        raise SourceError(f"--base-url {base_url!r} is not an http(s) URL", hint=_MIRROR)
    if "?" in base_url or "#" in base_url or "@" in split.netloc:
        # the archive's path is appended to the URL: after a query it would be part of the query
        raise SourceError(
            f"--base-url {base_url!r}: a mirror's URL takes no user, query or fragment",
            hint=_MIRROR,
        )


def archive_url(repo: Repository, base_url: str = DEFAULT_BASE_URL) -> str:
    """The codeload tarball of a pinned repository at its pinned commit (or a mirror's)."""
    return f"{base_url.rstrip('/')}/{repo.owner}/{repo.name}/tar.gz/{repo.commit}"


def _download(url: str, timeout: float, deadline: float, into: Path, max_bytes: int) -> Path:
    """Stream ``url`` into the file ``into``, stopping at ``max_bytes`` or after ``deadline``
    seconds, whether in the headers or the body."""
    received = 0
    watchdog = _Watchdog(deadline)
    opener = urllib.request.build_opener(_WatchedHTTP(watchdog), _WatchedHTTPS(watchdog))
    try:
        with opener.open(url, timeout=timeout) as response, into.open("wb") as out:
            declared = response.headers.get("Content-Length")
            while chunk := response.read1(_CHUNK):  # what has arrived, not a full chunk
                received += len(chunk)
                if received > max_bytes:
                    raise SourceError(
                        f"{url}: the download exceeds {max_bytes:,} bytes, far more than the "
                        "pinned archive; stopped"
                    )
                out.write(chunk)
            if watchdog.fired:
                raise OSError("the connection was shut at the deadline")
    except http.client.IncompleteRead as exc:
        if watchdog.expired():
            raise SourceError(_too_slow(url, deadline, received), hint=_SLOW) from None
        received += len(exc.partial)
        raise SourceError(_truncated(url, received, declared)) from None
    except (urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
        if watchdog.expired():
            raise SourceError(_too_slow(url, deadline, received), hint=_SLOW) from None
        raise SourceError(f"{url}: download failed ({exc})") from exc
    finally:
        watchdog.cancel()
    if declared and declared.isdigit() and received < int(declared):
        raise SourceError(_truncated(url, received, declared))
    return into


def _too_slow(url: str, deadline: float, received: int) -> str:
    return (
        f"{url}: the download took more than {deadline:g} s ({received:,} bytes received); stopped"
    )


class _Watchdog:
    """Shuts a download's sockets when its deadline passes, whatever read they are blocked in
    (a read's own timeout restarts with every byte: the TLS handshake, the status line, the
    headers and the body alike).

    It opens the sockets itself and keeps a duplicate of each: urllib hands the socket from its
    connection to the response once the headers are read, and TLS replaces the socket object
    after connecting, but a duplicate shuts the one connection they all share."""

    def __init__(self, seconds: float) -> None:
        self._ends = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._duplicates: list[socket.socket] = []
        self.fired = False
        self._timer = threading.Timer(seconds, self._shut)
        self._timer.daemon = True
        self._timer.start()

    def connect(
        self, address: tuple[str, int], timeout: Any = None, source_address: Any = None
    ) -> socket.socket:
        """``socket.create_connection``, bounded by what is left of the deadline, and guarded."""
        left = self._ends - time.monotonic()
        if left <= 0:
            self.fired = True
            raise TimeoutError("the deadline passed before connecting")
        limit = min(timeout, left) if isinstance(timeout, int | float) else left
        sock = socket.create_connection(address, limit, source_address)
        with self._lock:
            self._duplicates.append(sock.dup())
            if self.fired:
                _shut_down(self._duplicates[-1])
        return sock

    def expired(self) -> bool:
        """Whether the deadline has passed: a socket bounded by what was left of it may time
        out a moment before the timer shuts it."""
        return self.fired or time.monotonic() >= self._ends

    def _shut(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._duplicates:
                _shut_down(sock)

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._duplicates:
                sock.close()  # the duplicate only: the connection is closed by its owner


def _shut_down(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _watched(base: type[http.client.HTTPConnection], watchdog: _Watchdog) -> Any:
    class Watched(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # http.client opens its socket through this attribute, TLS is wrapped around it after
            self._create_connection = watchdog.connect

    return Watched


class _WatchedHTTP(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(_watched(http.client.HTTPConnection, self._watchdog), req)


class _WatchedHTTPS(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog) -> None:
        super().__init__()
        self._watchdog = watchdog
        self._verified = ssl.create_default_context()  # what urlopen uses

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = _watched(http.client.HTTPSConnection, self._watchdog)
        return self.do_open(connection, req, context=self._verified)


def _truncated(url: str, received: int, declared: str | None) -> str:
    of = f" of {int(declared):,}" if declared and declared.isdigit() else ""
    return f"{url}: download truncated: got {received:,}{of} bytes; try again"


class _Bounded:
    """A read-only stream that refuses to yield more than ``limit`` bytes in total."""

    def __init__(self, inner: IO[bytes] | gzip.GzipFile, limit: int, label: str) -> None:
        self._inner, self._left, self._label = inner, limit, label
        self._limit = limit

    def read(self, size: int = -1) -> bytes:
        data = self._inner.read(size if size >= 0 else self._left + 1)
        self._left -= len(data)
        if self._left < 0:
            raise SourceError(f"{self._label}: unpacks to more than {self._limit:,} bytes")
        return data


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


def _copy_member(
    tar: tarfile.TarFile, member: tarfile.TarInfo, pin: PinnedFile, to: Path, label: str
) -> None:
    """Stream one pinned member to ``to``; its header must give the pinned byte count."""
    if member.size != pin.bytes:
        raise SourceError(
            f"{label}: member {pin.path} has {member.size:,} bytes, pinned {pin.bytes:,}; refused "
            "unread"
        )
    handle = tar.extractfile(member)
    assert handle is not None
    to.parent.mkdir(parents=True, exist_ok=True)
    with to.open("wb") as out:
        shutil.copyfileobj(handle, out, _CHUNK)


def _unpack(repo: Repository, archive: IO[bytes], staging: Path, label: str) -> set[str]:
    """The pinned members of a codeload tarball, streamed into ``staging``; what was found."""
    wanted = {pin.path: pin for pin in repo.files}
    found: set[str] = set()
    stream = _Bounded(gzip.GzipFile(fileobj=archive, mode="rb"), MAX_UNPACKED_BYTES, label)
    try:
        with tarfile.open(fileobj=stream, mode="r|") as tar:  # type: ignore[call-overload]
            for member in tar:
                path = _member_path(member, label)
                if len(path.parts) < 2:
                    continue
                inner = str(PurePosixPath(*path.parts[1:]))  # drop "<repo>-<commit>/"
                if inner in wanted:
                    _refuse_special(member, label)
                    _copy_member(tar, member, wanted[inner], staging / repo.name / inner, label)
                    found.add(inner)
        # Read to the gzip trailer (its CRC and length check the whole stream); past the tar's
        # end marker only zero padding may follow, else the tar stopped at a damaged header.
        while chunk := stream.read(_CHUNK):
            if chunk.strip(b"\0"):
                raise SourceError(f"{label}: the archive is corrupt (a damaged tar header)")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise SourceError(f"{label}: the archive is corrupt or truncated ({exc})") from exc
    return found


def extract_pinned(repo: Repository, archive: bytes | Path, target: Path, label: str) -> None:
    """Extract ``repo``'s pinned files from a codeload tarball into ``target/<repo.name>/``.

    ``archive`` is the tarball's path (or its bytes). Only pinned files are ever written, and
    only once all of them are there and verified; a pinned path that is a link or a device is
    refused, and so is any member whose path escapes the target. Other members are skipped unread.
    """
    target.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target, prefix=".dmbench-fetch-"))
    try:
        if isinstance(archive, bytes):
            (staging / "archive.tar.gz").write_bytes(archive)
            archive = staging / "archive.tar.gz"
        with archive.open("rb") as handle:
            found = _unpack(repo, handle, staging / "files", label)
        missing = sorted({pin.path for pin in repo.files} - found)
        if missing:
            raise SourceError(
                f"{label}: pinned files missing from the archive: {', '.join(missing)}"
            )
        for pin in repo.files:
            read_verified(staging / "files", pin)
        for pin in repo.files:
            data = (staging / "files" / pin.relpath).read_bytes()
            atomic.write_bytes(target / pin.relpath, data)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def fetch(
    cache_dir: Path,
    base_url: str = DEFAULT_BASE_URL,
    timeout: float = 120.0,
    max_bytes: int = MAX_ARCHIVE_BYTES,
    deadline: float = DOWNLOAD_DEADLINE,
) -> Path:
    """Download both pinned archives into ``cache_dir`` (a sources directory); return it.

    ``timeout`` bounds each read, ``deadline`` and ``max_bytes`` each archive."""
    _check_base_url(base_url)
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    for repo in repositories():
        url = archive_url(repo, base_url)
        staging = Path(tempfile.mkdtemp(dir=cache_dir, prefix=".dmbench-download-"))
        try:
            archive = _download(url, timeout, deadline, staging / "archive.tar.gz", max_bytes)
            extract_pinned(repo, archive, cache_dir, url)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return cache_dir
