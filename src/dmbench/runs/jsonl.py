"""The run store's JSON-lines files (``outputs.jsonl``, ``scores.jsonl``), written and read alike.

Keys are sorted so that the same row is always the same bytes; a line that does not make a row
is reported with its file and line number.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from dmbench.errors import PackageError

T = TypeVar("T")


def json_line(data: Mapping[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"


def append_line(path: Path, line: str) -> None:
    """Append one line with a single write loop and fsync: on disk before this returns, so a
    kill leaves at most a torn last line (which ``store.cut_torn_tail`` removes)."""
    data = memoryview(line.encode("utf-8"))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        while data:
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def read_rows(path: Path, make: Callable[[Any], T], kind: str) -> Iterator[T]:
    """``make(object)`` per line; nothing when the file does not exist yet."""
    if not path.exists():
        return
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            try:
                yield make(json.loads(line))
            except (json.JSONDecodeError, TypeError) as exc:
                raise PackageError(f"{path}, line {number}: not a valid {kind} row ({exc})") from exc
