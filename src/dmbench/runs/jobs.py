"""``dmbench generate --records`` as library calls: a user's records in, one row per record out.

Kept apart from the command so that a notebook can do the same, and so that options a candidate
needs (models, workers, hosts) only change how the candidate is built, not this flow. Runs on
the benchmark datasets are stored in the package by ``dmbench.flows.changes``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, Any

from dmbench.candidates.base import Candidate, CandidateOutput, Record
from dmbench.core.inputs import json_line
from dmbench.errors import MissingPrerequisiteError, RecordsFileError
from dmbench.runs.generate import iter_outputs


def check_ready(candidate: Candidate) -> None:
    """Stop before any output is written when a candidate says it cannot run here."""
    check = getattr(candidate, "check", None)
    problem = check() if check is not None else None
    if problem:
        raise MissingPrerequisiteError(problem)


def read_records_file(handle: IO[bytes] | IO[str], source: str = "<records>") -> list[Record]:
    """Records from JSON lines ``{"id": ..., "text": ...}``; blank lines are skipped.

    A binary handle is split on ``\n`` only and decoded line by line, so a line that is not
    UTF-8 is named like any other bad line."""
    records: list[Record] = []
    seen: set[str] = set()
    lines: Iterable[bytes | str] = handle
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        data: Any = json_line(line, f"{source}, line {number}")
        if not (
            isinstance(data, dict)
            and isinstance(data.get("id"), str)
            and isinstance(data.get("text"), str)
        ):
            raise RecordsFileError(source, number, 'expected {"id": "...", "text": "..."}')
        if data["id"] in seen:
            raise RecordsFileError(source, number, f"id {data['id']!r} repeats an earlier line")
        seen.add(data["id"])
        records.append(Record(data["id"], data["text"]))
    return records


def generate_records(candidate: Candidate, records: Iterable[Record]) -> Iterator[dict[str, Any]]:
    """One ``{"id", "generated", "failed", "error"}`` dict per record, in input order.

    Generated like a run's records (on the candidate's ``workers`` threads); each row is given
    out as soon as it and every row before it are done.
    """
    check_ready(candidate)
    return _rows(candidate, list(records))


def _rows(candidate: Candidate, records: list[Record]) -> Iterator[dict[str, Any]]:
    waiting: dict[int, CandidateOutput] = {}
    following = 0
    for index, output in iter_outputs(candidate, records):
        waiting[index] = output
        while following in waiting:
            done = waiting.pop(following)
            yield {
                "id": records[following].id,
                "generated": done.generated,
                "failed": done.failed,
                "error": done.error,
            }
            following += 1
