"""sha256 as dmbench records it everywhere: lower-case hex of the bytes (text as UTF-8)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO


def sha256_bytes(data: bytes) -> str:
    """The hex digest every hash in the package (files, prompts, diagrams) is written as."""
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """The digest of text as its UTF-8 bytes: what caches and prompt ids are keyed by."""
    return sha256_bytes(text.encode("utf-8"))


def file_sha256(path: Path) -> str:
    """A file's sha256, read in chunks, as the pins and the deposit's checksums compare it."""
    return file_digest(path, "sha256")


def file_digest(path: Path, algorithm: str) -> str:
    """Read in 1 MiB chunks, so a large run store file or zip is never held in memory whole."""
    with path.open("rb") as handle:
        return stream_digest(handle, algorithm)


def stream_digest(stream: BinaryIO, algorithm: str = "sha256") -> str:
    """A digest of a stream read in 1 MiB chunks, so a large archive is never held in memory."""
    digest = hashlib.new(algorithm)
    for chunk in iter(lambda: stream.read(1 << 20), b""):
        digest.update(chunk)
    return digest.hexdigest()


def add_files(digest: hashlib._Hash, root: Path, paths: Iterable[Path]) -> None:
    """Feed ``digest`` each file's path below ``root`` and its sha256: a changed, added, removed
    or renamed file changes the digest (the fingerprints of the report and of the scores)."""
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
