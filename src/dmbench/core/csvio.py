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

from dmbench.core import atomic
from dmbench.errors import PackageError

_CELL_LIMIT = 2**31 - 2
"""The largest cell the ``csv`` module can take (frictionless's limit too)."""


def cell(value: Any) -> str:
    """One CSV cell as the package writes it: empty for None, ``true``/``false``, floats
    round-tripping through ``repr``, so the files read back to the same values."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(fields: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """Rows as CSV text with CRLF line ends (RFC 4180, as frictionless reads it), ``fields``
    in order and a missing field empty."""
    fields = tuple(fields)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(fields)
    for row in rows:
        writer.writerow([cell(row.get(name)) for name in fields])
    return buffer.getvalue()


def write_csv(path: Path, fields: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """A package table written atomically, so a reader never meets a half-written table."""
    atomic.write_text(path, csv_text(fields, rows))


def read_csv(path: Path) -> list[tuple[int, dict[str, str]]]:
    """Rows with the physical line each starts on (multi-line cells make the two differ).

    A row with fewer or more cells than the header is an error naming its line: read on, its
    missing cells would be ``None`` and fail far from the file. A cell may be of any size, as
    in frictionless (``validate``): a generated diagram can be longer than the 128 KiB the
    ``csv`` module takes by default, a limit frictionless lifts for the whole process once
    imported, so without this a command would read a package only if it imported it first.
    """
    csv.field_size_limit(_CELL_LIMIT)  # raised for good, as frictionless does: no race
    rows = []
    try:
        with Path(path).open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            header = reader.fieldnames or []  # read the header first, so line_num counts it
            if header and header[0].startswith("\ufeff"):
                raise PackageError(
                    f"{path}, line 1: the file starts with a byte-order mark (BOM)",
                    hint="save it as UTF-8 without a BOM",
                )
            start = reader.line_num + 1
            for row in reader:
                if None in row or None in row.values():
                    cells = sum(row[name] is not None for name in header) + len(row.get(None, ()))
                    raise PackageError(
                        f"{path}, line {start}: {cells} cells where the header has {len(header)}",
                        hint="the file is truncated or damaged; rebuild the package",
                    )
                rows.append((start, row))
                start = reader.line_num + 1
    except UnicodeDecodeError as exc:
        raise PackageError(
            f"{path}: not UTF-8 text (byte {exc.start})", hint="rebuild the package"
        ) from None
    return rows
