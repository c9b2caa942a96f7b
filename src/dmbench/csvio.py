"""CSV as the package writes and reads it.

CSV follows RFC 4180 (CRLF between rows, a cell quoted when it holds a comma, quote, CR or LF),
so every string, multi-line PlantUML and stray carriage returns included, reads back
byte-identical; floats are written with ``repr`` so they read back bit-identical; ``true`` and
``false`` for booleans; an empty cell for null (frictionless reads an empty string as null too,
so an empty ``generated`` means "no diagram"). Files are replaced atomically.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dmbench import atomic


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(fields: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> str:
    fields = tuple(fields)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(fields)
    for row in rows:
        writer.writerow([cell(row.get(name)) for name in fields])
    return buffer.getvalue()


def write_csv(path: Path, fields: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> None:
    atomic.write_text(path, csv_text(fields, rows))


def read_csv(path: Path) -> list[tuple[int, dict[str, str]]]:
    """Rows with the physical line each starts on (multi-line cells make the two differ)."""
    rows = []
    with Path(path).open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        start = reader.line_num + 1
        for row in reader:
            rows.append((start, row))
            start = reader.line_num + 1
    return rows
