"""The run store's JSON-lines files (``outputs.jsonl``, ``scores.jsonl``), written and read alike.

Keys are sorted so that the same row is always the same bytes; a line that does not make a row
is reported with its file and line number.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from dmbench.core.hashing import sha256_bytes, sha256_text
from dmbench.core.inputs import parse_json
from dmbench.errors import PackageError

T = TypeVar("T")


def json_line(data: Mapping[str, Any]) -> str:
    """One JSON-lines row in dmbench's one layout (sorted keys, UTF-8 as is), so rewritten files
    diff clean."""
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


def read_rows(
    path: Path,
    make: Callable[[Any], T],
    kind: str,
    key: Callable[[T], Hashable] | None = None,
    check: Callable[[T], str | None] | None = None,
) -> Iterator[T]:
    """``make(object)`` per line; nothing when the file does not exist yet.

    Lines end at ``\\n`` only (a row may hold U+2028 or U+0085). With ``key``, a second row of
    the same key is an error naming both lines: counted twice, it would change a table quietly.
    ``check`` names what is wrong with a row that parsed, or gives ``None``.
    """
    if not path.exists():
        return
    yield from _rows(path, path.read_bytes(), make, kind, key, check)


#: The rows last made of each file, by (path, ``make``), with the sha256 of the bytes they were
#: made from. The main job reads every run's outputs and scores in several stages (verify,
#: score, tables, errata, report): checking each row's JSON types is what costs, and the same
#: bytes always make the same (frozen) rows. One content per file is kept, the latest.
_made: dict[tuple[Path, Callable[[Any], Any]], tuple[str, tuple]] = {}


def read_rows_once(
    path: Path,
    make: Callable[[Any], T],
    kind: str,
    key: Callable[[T], Hashable] | None = None,
    check: Callable[[T], str | None] | None = None,
) -> list[T]:
    """``read_rows`` as a list; the rows are made again only when the file's bytes changed.

    ``make`` must be a module-level function (it is part of the memo's key) that builds frozen
    rows; ``check`` runs on every call, so its errors name the line as ``read_rows`` does.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    digest = sha256_bytes(data)
    made = _made.get((path, make))
    if made is None or made[0] != digest:
        made = _made[(path, make)] = (digest, tuple(_rows(path, data, make, kind, key, None)))
    rows = made[1]
    for number, row in enumerate(rows, start=1):
        problem = check(row) if check is not None else None
        if problem:
            raise PackageError(f"{path}, line {number}: {problem}")
    return list(rows)


def rows_of_bytes(
    label: Path, data: bytes, make: Callable[[Any], T], kind: str,
    key: Callable[[T], Hashable] | None = None,
) -> list[T]:
    """``read_rows`` of bytes that are not (yet) a file, such as a bundle's member."""
    return list(_rows(label, data, make, kind, key, None))


def remember_rows(path: Path, make: Callable[[Any], T], text: str, rows: Sequence[T]) -> None:
    """Tell ``read_rows_once`` that ``text``, just written to ``path``, makes ``rows``."""
    _made[(path, make)] = (sha256_text(text), tuple(rows))


def _rows(
    path: Path,
    content: bytes,
    make: Callable[[Any], T],
    kind: str,
    key: Callable[[T], Hashable] | None,
    check: Callable[[T], str | None] | None,
) -> Iterator[T]:
    seen: dict[Hashable, int] = {}
    lines = content.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        data = None
        try:
            data = parse_json(raw.decode("utf-8"))
            row = make(data)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            message = f"{path}, line {number}: not a valid {kind} row{_of_record(data)} ({exc})"
            raise PackageError(message) from None
        problem = check(row) if check is not None else None
        if problem:
            raise PackageError(f"{path}, line {number}: {problem}")
        if key is not None:
            name = key(row)
            if name in seen:
                raise PackageError(
                    f"{path}, line {number}: a second {kind} row for {name!r} "
                    f"(the first is line {seen[name]})",
                    hint="remove one of them; a table would count it twice",
                )
            seen[name] = number
        yield row


def _of_record(data: Any) -> str:
    record = data.get("record_id") if isinstance(data, dict) else None
    return f" of record {record!r}" if isinstance(record, str) else ""
