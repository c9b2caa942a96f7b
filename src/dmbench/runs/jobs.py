"""What ``dmbench generate`` does, as library calls: runs into the package, or records to stdout.

Kept apart from the command so that a notebook can do the same, and so that options a candidate
needs (models, workers, hosts) only change how the candidate is built, not this flow.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from dmbench.candidates.base import Candidate, CandidateOutput, Record
from dmbench.errors import DmbenchError, MissingPrerequisiteError, PackageError
from dmbench.runs.generate import Progress, generate_run, iter_outputs
from dmbench.runs.store import RUN_FILE, Run

DATASET_CHOICES = ("ds1", "ds2", "all")


class RecordsFileError(DmbenchError, ValueError):
    """A ``--records`` file line is not a JSON object with string ``id`` and ``text``."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}, line {line}: {problem}")
        self.source = source
        self.line = line


def check_ready(candidate: Candidate) -> None:
    """Stop before any output is written when a candidate says it cannot run here."""
    check = getattr(candidate, "check", None)
    problem = check() if check is not None else None
    if problem:
        raise MissingPrerequisiteError(problem)


def _datasets(dataset: str) -> list[str]:
    if dataset not in DATASET_CHOICES:
        choices = ", ".join(DATASET_CHOICES)
        raise PackageError(f"unknown dataset {dataset!r}; choose one of {choices}")
    return ["ds1", "ds2"] if dataset == "all" else [dataset]


def _check_run_file(run: Run) -> None:
    """The run must satisfy the package's run schema, as ``dmbench validate`` will demand."""
    from dmbench.package.validate import run_json_validator

    data = json.loads((run.path / RUN_FILE).read_text("utf-8"))
    errors = sorted(run_json_validator().iter_errors(data), key=str)
    if errors:
        raise PackageError(f"{run.path / RUN_FILE}: {errors[0].message}")


def generate_dataset_runs(
    package_dir: Path,
    candidate: Candidate,
    dataset: str,
    runs: int = 1,
    on_output: Progress | None = None,
) -> list[Run]:
    """Runs 1..``runs`` of ``candidate`` on each dataset, resumed where stored.

    A built package (one with ``datapackage.json``) gets its tables and descriptor re-derived so
    that the new runs are part of it; a folder holding only ``data/records.csv`` just gets runs.
    """
    from dmbench.package import load_records
    from dmbench.package.build import refresh
    from dmbench.package.descriptor import DESCRIPTOR
    from dmbench.package.lock import package_lock

    check_ready(candidate)
    done: list[Run] = []
    with package_lock(package_dir):
        for name in _datasets(dataset):
            records = [Record(r.record_id, r.text) for r in load_records(package_dir, name)]
            for run_index in range(1, runs + 1):
                run = generate_run(package_dir, candidate, name, run_index, records, on_output)
                _check_run_file(run)
                done.append(run)
        if (Path(package_dir) / DESCRIPTOR).is_file():
            refresh(package_dir)
    return done


def read_records_file(handle: IO[str], source: str = "<records>") -> list[Record]:
    """Records from JSON lines ``{"id": ..., "text": ...}``; blank lines are skipped."""
    records: list[Record] = []
    seen: set[str] = set()
    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise RecordsFileError(source, number, f"not JSON ({exc.msg})") from exc
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
