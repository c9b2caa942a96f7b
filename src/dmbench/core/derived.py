"""Files derived from dmbench's inputs, kept so that later processes skip the work.

A derived file is named by a key that hashes everything it was derived from, so a changed input
selects another file and the old one is never read. Each file starts with a header carrying the
sha256 of its payload: a truncated or corrupt file reads as absent, and its caller derives the
payload again and rewrites it. Writes are atomic and best effort: a read-only or full cache
never stops a command, it only leaves the work to the next process too.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from dmbench.core.atomic import write_bytes

_MAGIC = b"dmbench-derived-1 "


def read_derived(path: Path) -> bytes | None:
    """The payload stored at ``path``, or None if it is missing, unreadable or corrupt."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    header_end = data.find(b"\n")
    header, payload = data[:header_end], data[header_end + 1 :]
    if header_end < 0 or header != _MAGIC + hashlib.sha256(payload).hexdigest().encode():
        return None
    return payload


def write_derived(path: Path, payload: bytes) -> None:
    """Store ``payload`` at ``path`` with its sha256, atomically; a failed write is ignored."""
    header = _MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n"
    try:
        write_bytes(path, header + payload)
    except OSError:
        pass
