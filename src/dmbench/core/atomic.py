"""Writes that never leave a half-written file: write beside the target, fsync, rename."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_bytes(path: Path, data: bytes) -> None:
    """Write aside, fsync and rename over ``path``: a reader or a crash never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    """UTF-8 text written atomically, as every file dmbench writes is."""
    write_bytes(path, text.encode("utf-8"))


def json_text(data: Any) -> str:
    """How dmbench's JSON documents read: two-space indent, UTF-8 as is, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_json(path: Path, data: Any) -> None:
    """``data`` as dmbench's one JSON layout, written atomically, so reruns diff clean."""
    write_text(path, json_text(data))
