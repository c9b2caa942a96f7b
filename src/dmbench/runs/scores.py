"""Per-record scores of a run, kept in ``runs/<run_id>/scores.jsonl``.

A row is published (imported from the upstream artifact) or recomputed (by ``dmbench score``);
both are kept so that ``dmbench verify`` can compare them and a reader can see which is which.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.inputs import dataclass_from_json
from dmbench.runs.jsonl import json_line, read_rows_once, remember_rows

SCORES_FILE = "scores.jsonl"


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One output's three scores under one metric, published or recomputed: a row of a run's
    ``scores.jsonl``."""
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
    return read_rows_once(
        Path(run_dir) / SCORES_FILE, _score_row, "score", key=_row_key,
        check=None if record_ids is None else unknown_record(record_ids),
    )  # fmt: skip


def _score_row(data: Any) -> ScoreRow:
    return dataclass_from_json(ScoreRow, data)


def _row_key(row: ScoreRow) -> tuple[str, str, str, str]:
    return row.key


def unknown_record(record_ids: Container[str]) -> Callable[[Any], str | None]:
    """A row check: a row of a record the run's data set lacks would fail later as a KeyError,
    or be counted in no table at all."""

    def check(row: Any) -> str | None:
        if row.record_id in record_ids:
            return None
        return f"record {row.record_id!r} is not a record of this run's data set"

    return check


def write_scores(run_dir: Path, rows: list[ScoreRow]) -> None:
    """A run's scores written atomically, and remembered so the next read in this process need not
    parse them again."""
    text = "".join(json_line(asdict(r)) for r in rows)
    path = Path(run_dir) / SCORES_FILE
    atomic.write_text(path, text)
    remember_rows(path, _score_row, text, rows)


def replace_scores(run_dir: Path, rows: Sequence[ScoreRow]) -> None:
    """Store ``rows``, replacing earlier rows of the same metric and origin, keeping the rest."""
    replaced = {(r.metric, r.origin) for r in rows}
    kept = [r for r in read_scores(run_dir) if (r.metric, r.origin) not in replaced]
    write_scores(run_dir, [*kept, *rows])
