"""Per-record scores of a run, kept in ``runs/<run_id>/scores.jsonl``.

A row is published (imported from the upstream artifact) or recomputed (by ``dmbench score``);
both are kept so that ``dmbench verify`` can compare them and a reader can see which is which.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.inputs import dataclass_from_json
from dmbench.errors import PackageError
from dmbench.runs.jsonl import json_line, read_rows

SCORES_FILE = "scores.jsonl"

#: Parsed score files by the sha256 of their bytes. The main job reads every run's scores in
#: several stages (tables, refresh, errata, report): checking each row's JSON types is what
#: costs, and the same bytes always give the same rows, so each file content is parsed once.
_parsed: dict[str, tuple[ScoreRow, ...]] = {}


@dataclass(frozen=True, slots=True)
class ScoreRow:
    run_id: str
    record_id: str
    metric: str
    origin: str  # "published" | "recomputed"
    class_score: float
    attribute_score: float
    association_score: float
    error: str | None

    def __post_init__(self) -> None:
        for name in ("class_score", "attribute_score", "association_score"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"{name} is {value!r}, not a number")

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.run_id, self.record_id, self.metric, self.origin)


def read_scores(run_dir: Path, record_ids: Container[str] | None = None) -> list[ScoreRow]:
    """The run's score rows; with ``record_ids``, a row of any other record is an error."""
    path = Path(run_dir) / SCORES_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    digest = hashlib.sha256(data).hexdigest()
    rows = _parsed.get(digest)
    if rows is None:
        rows = tuple(
            read_rows(
                path, lambda data: dataclass_from_json(ScoreRow, data), "score", key=lambda r: r.key
            )
        )
        _parsed[digest] = rows
    if record_ids is not None:
        check = unknown_record(record_ids)
        for number, row in enumerate(rows, start=1):
            problem = check(row)
            if problem:
                raise PackageError(f"{path}, line {number}: {problem}")
    return list(rows)


def unknown_record(record_ids: Container[str]) -> Callable[[Any], str | None]:
    """A row check: a row of a record the run's data set lacks would fail later as a KeyError,
    or be counted in no table at all."""

    def check(row: Any) -> str | None:
        if row.record_id in record_ids:
            return None
        return f"record {row.record_id!r} is not a record of this run's data set"

    return check


def write_scores(run_dir: Path, rows: list[ScoreRow]) -> None:
    text = "".join(json_line(asdict(r)) for r in rows)
    atomic.write_text(Path(run_dir) / SCORES_FILE, text)
    _parsed[hashlib.sha256(text.encode("utf-8")).hexdigest()] = tuple(rows)


def replace_scores(run_dir: Path, rows: Sequence[ScoreRow]) -> None:
    """Store ``rows``, replacing earlier rows of the same metric and origin, keeping the rest."""
    replaced = {(r.metric, r.origin) for r in rows}
    kept = [r for r in read_scores(run_dir) if (r.metric, r.origin) not in replaced]
    write_scores(run_dir, [*kept, *rows])
