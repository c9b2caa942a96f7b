"""Table Schemas of the published tables, derived from the rows the tables code produces.

A deposit ships ``results/`` as tabular resources, so each CSV needs a schema. Writing them by
hand would drift as soon as a column is added; instead the field names are the header the
tables code wrote and each field's type is the Python type of the values the same code put in
that column (``TableSet.records()``, with nested cells flattened the way the CSV flattens them:
``class: {median, std}`` becomes ``class_median``, ``class_std``).
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from typing import Any

from dmbench.errors import PackageError
from dmbench.tables.render import TableSet

SCHEMA_PROFILE = "https://datapackage.org/profiles/2.0/tableschema.json"
_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def flat_record(record: dict[str, Any]) -> dict[str, Any]:
    """A JSON record with nested cells flattened to ``<key>_<inner>`` columns, as CSV needs."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict):
            flat.update({f"{key}_{inner}": cell for inner, cell in value.items()})
        else:
            flat[key] = value
    return flat


def _field_type(values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    found = set()
    for value in present:
        found.add(next(name for kind, name in _TYPES if isinstance(value, kind)))
    if found <= {"integer", "number"} and found:
        return "number" if "number" in found else "integer"
    if len(found) == 1:
        return found.pop()
    return "any" if not found else "string"


def column_values(table: TableSet) -> dict[str, dict[str, list[Any]]]:
    """Per table name (``table1``, ``table2``, ...), the values of each column."""
    columns: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    for record in table.records():
        flat = flat_record(record)
        for name, value in flat.items():
            columns[flat.get("table", "")][name].append(value)
    return columns


def table_schema(csv_path: Path, title: str, values: dict[str, list[Any]]) -> dict[str, Any]:
    """The schema of one written CSV: its header, each column typed from ``values``."""
    with Path(csv_path).open(encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle))
    unknown = [name for name in header if name not in values]
    if unknown:
        raise PackageError(
            f"{csv_path}: no values known for column(s) {', '.join(unknown)}; the tables code "
            "writes a column its records do not carry"
        )
    fields = []
    for name in header:
        column = values[name]
        field: dict[str, Any] = {"name": name, "type": _field_type(column)}
        if column and all(v is not None for v in column):
            field["constraints"] = {"required": True}
        fields.append(field)
    return {"$schema": SCHEMA_PROFILE, "title": title, "fields": fields}
