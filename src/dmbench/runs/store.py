"""The run store: one folder per run, ``runs/<run_id>/run.json`` + ``outputs.jsonl``.

Every run dmbench makes (a generated run, a judge run, an imported inspect log) has one
lifecycle: :func:`open_aside` gives a work folder outside ``runs/`` (a new one, the one a killed
command left, or a copy of the published run to resume), records are appended there with fsync,
and :func:`publish_run` swaps the folder into ``runs/`` with ``core.swap``. A refused or killed
command therefore leaves ``runs/`` as it was, and the next one resumes from the work folder.

``run.json`` says what ran (candidate, model, dataset, settings, provenance); ``outputs.jsonl``
holds one line per finished record, appended with a single write and fsync as soon as the record
completes. A run killed at any moment therefore keeps every finished record; a torn last line
(the only damage a kill can do) is cut off when the run is opened again, and the run resumes
with the records that have no line yet. The package tables (runs, outputs, scores) are derived
from this store.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Container, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dmbench.candidates.base import CandidateOutput
from dmbench.core import atomic, swap
from dmbench.core.inputs import BOM, dataclass_from_json, parse_json
from dmbench.errors import PackageError
from dmbench.runs.jsonl import append_line, json_line, read_rows_once
from dmbench.runs.scores import ScoreRow, read_scores, unknown_record
from dmbench.sources.records import RECORDS_PATH, BenchmarkRecord, read_records

RUNS_DIR = "runs"
RUN_FILE = "run.json"
OUTPUTS_FILE = "outputs.jsonl"
WORK_DIR = ".dmbench-cache/runs"
"""Where runs are worked on until they are moved into ``runs/``."""
JUDGE_WORK_DIR = ".dmbench-cache/judge"
"""Where judge runs are worked on (their own place, as before the two lifecycles became one)."""
JUDGE_RUN_PREFIX = "judge__"
"""Judge runs (``dmbench.judge``) share ``runs/`` but are not generation runs: skipped here."""


def model_tag(model: str | None) -> str:
    """A file-name-safe model name (``glm-5.1:cloud`` -> ``glm-5.1_cloud``); ``no-llm`` for none."""
    if not model:
        return "no-llm"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", model).strip("_")


def make_run_id(
    candidate: str, model: str | None, dataset: str, run_index: int, fingerprint: str | None
) -> str:
    """Same command, same id: that is what lets a re-run find and resume its run."""
    run_id = f"{candidate}__{model_tag(model)}__{dataset}__run{run_index}"
    return f"{run_id}__{fingerprint[:8]}" if fingerprint else run_id


@dataclass(frozen=True, slots=True)
class RunInfo:
    """What ``run.json`` says; changed only through ``dataclasses.replace`` and ``Run.save_info``."""

    run_id: str
    candidate: str
    model: str | None
    dataset: str
    run_index: int
    origin: str  # "published" (imported from upstream) or "generated" (made by dmbench)
    canonical: bool
    settings: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)
    started_utc: str | None = None
    finished_utc: str | None = None
    upstream: dict[str, Any] | None = None
    totals: dict[str, Any] = field(default_factory=dict)

    @property
    def prompt_variant(self) -> str | None:
        """The prompt variant's name (``generate --prompts DIR``); None for the pinned prompts."""
        prompts = self.settings.get("prompts")
        return prompts.get("variant") if isinstance(prompts, dict) else None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> RunInfo:
        return dataclass_from_json(cls, data)


@dataclass(frozen=True, slots=True)
class OutputRow:
    """One stored output of a run (a row of ``outputs.jsonl``), failures included, as the schema
    declares it."""
    record_id: str
    generated: str
    failed: bool
    error: str | None
    elapsed_seconds: float
    raw: str = ""
    calls: tuple[dict[str, Any], ...] = ()

    @classmethod
    def from_output(cls, record_id: str, output: CandidateOutput) -> OutputRow:
        return cls(
            record_id=record_id,
            generated=output.generated,
            failed=output.failed,
            error=output.error,
            elapsed_seconds=output.elapsed_seconds,
            raw=output.raw,
            calls=tuple(dict(call) for call in output.calls),
        )

    def to_json_line(self) -> str:
        data = asdict(self)
        data["calls"] = list(self.calls)
        return json_line(data)

    @classmethod
    def from_dict(cls, data: Any) -> OutputRow:
        return dataclass_from_json(cls, data)


class Run:
    """An open run folder: what it already holds, and a way to add finished records."""

    def __init__(self, path: Path, info: RunInfo, record_ids: frozenset[str] | None = None) -> None:
        self.path = path
        self.info = info
        self.record_ids = record_ids
        """The ids of the run's data set, when the package's records were at hand: a stored
        row of any other record is then an error naming its file and line."""
        self._stored: set[str] | None = None  # ids on disk, read once, then kept up to date

    @property
    def outputs_path(self) -> Path:
        return self.path / OUTPUTS_FILE

    def outputs(self) -> list[OutputRow]:
        return list(read_outputs(self.outputs_path, self.record_ids))

    def scores(self) -> list[ScoreRow]:
        return read_scores(self.path, self.record_ids)

    def completed_ids(self) -> set[str]:
        return {row.record_id for row in self.outputs()}

    def append(self, row: OutputRow) -> None:
        """Store one finished record: one appended line, on disk before this returns."""
        if self._stored is None:
            self._stored = self.completed_ids()
        if row.record_id in self._stored:
            raise PackageError(f"{self.outputs_path}: record {row.record_id!r} is already stored")
        append_line(self.outputs_path, row.to_json_line())
        self._stored.add(row.record_id)

    def save_info(self, info: RunInfo | None = None) -> None:
        """Write ``run.json`` (with ``info`` as the run's new description, when given)."""
        if info is not None:
            self.info = info
        atomic.write_json(self.path / RUN_FILE, self.info.to_dict())


def read_outputs(path: Path, record_ids: Container[str] | None = None) -> list[OutputRow]:
    """A run's outputs, each record once; an id outside ``record_ids`` is an error naming the file
    and line."""
    check = None if record_ids is None else unknown_record(record_ids)
    return read_rows_once(path, OutputRow.from_dict, "output", key=_record_id, check=check)


def _record_id(row: OutputRow) -> str:
    return row.record_id


def cut_torn_tail(path: Path) -> None:
    """A kill during the single append can leave one partial last line: drop it."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        keep = data[: data.rfind(b"\n") + 1]
        with path.open("r+b") as handle:
            handle.truncate(len(keep))
            os.fsync(handle.fileno())


def work_path(package_dir: Path, run_id: str) -> Path:
    """Where a run is worked on aside before it is moved into the package (generated and judge runs
    apart)."""
    folder = JUDGE_WORK_DIR if run_id.startswith(JUDGE_RUN_PREFIX) else WORK_DIR
    return Path(package_dir) / folder / run_id


def open_aside(package_dir: Path, run_id: str, logs: tuple[str, ...] = (OUTPUTS_FILE,)) -> Path:
    """The folder to work on run ``run_id`` in, outside ``runs/``: the one a killed command
    left, else a copy of the published run (to resume it), else a new empty one. A torn last
    line of each of the run's ``logs`` (the only damage a kill can do) is cut off."""
    work = work_path(package_dir, run_id)
    published = Path(package_dir) / RUNS_DIR / run_id
    if not (work / RUN_FILE).is_file():
        shutil.rmtree(work, ignore_errors=True)
        if (published / RUN_FILE).is_file():
            shutil.copytree(published, work, symlinks=True)
        else:
            work.mkdir(parents=True)
    for name in logs:
        cut_torn_tail(work / name)
    return work


def publish_run(package_dir: Path, work: Path) -> Path:
    """Swap a run's work folder into ``runs/``; the published copy it replaces waits aside
    until the new one is in, so a kill between the moves loses neither."""
    published = Path(package_dir) / RUNS_DIR / Path(work).name
    published.parent.mkdir(exist_ok=True)
    swap.swap_in([(Path(work), published)], Path(package_dir))
    return published


def open_run(package_dir: Path, info: RunInfo, aside: bool = False) -> Run:
    """Create the run, or reopen it to resume when the same run already exists: in its work
    folder (``aside``, then :func:`publish`), or else in ``runs/`` (a package being staged)."""
    if aside:
        path = open_aside(package_dir, info.run_id)
    else:
        path = Path(package_dir) / RUNS_DIR / info.run_id
    run_file = path / RUN_FILE
    if run_file.exists():
        stored = load_run(path).info
        if stored.settings != info.settings:
            raise PackageError(
                f"{run_file}: a run with id {info.run_id!r} exists with other settings"
            )
        cut_torn_tail(path / OUTPUTS_FILE)
        return Run(path, stored)
    path.mkdir(parents=True, exist_ok=True)
    run = Run(path, info)
    run.save_info()
    return run


def publish(package_dir: Path, run: Run) -> Run:
    """Move a finished run from its work folder into ``runs/``; the published run."""
    return Run(publish_run(package_dir, run.path), run.info, run.record_ids)


def load_run(path: Path) -> Run:
    """A run folder's ``run.json`` as a ``Run``; a malformed file is one error naming it, not a
    traceback."""
    run_file = Path(path) / RUN_FILE
    try:
        raw = run_file.read_bytes()
        if raw.startswith(BOM):
            raise PackageError(
                f"{run_file}: the file starts with a byte-order mark (BOM)",
                hint="save it as UTF-8 without a BOM",
            )
        info = RunInfo.from_dict(parse_json(raw.decode("utf-8")))
    except (OSError, ValueError, TypeError, AttributeError) as exc:
        raise PackageError(f"{run_file}: cannot read run ({exc})") from exc
    return Run(Path(path), info)


def list_runs(package_dir: Path, records: Iterable[BenchmarkRecord] | None = None) -> list[Run]:
    """The generation runs under ``runs/``; ``records``, when the caller has read them already,
    spare reading ``data/records.csv`` again."""
    root = Path(package_dir) / RUNS_DIR
    if not root.is_dir():
        return []
    records_file = Path(package_dir) / RECORDS_PATH
    if records is None and records_file.is_file():
        records = read_records(records_file)
    by_dataset: dict[str, set[str]] = {}
    for record in records or ():
        by_dataset.setdefault(record.dataset, set()).add(record.record_id)
    runs = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(JUDGE_RUN_PREFIX):
            continue
        if (path / RUN_FILE).exists():
            run = load_run(path)
            if records is not None:
                run.record_ids = frozenset(by_dataset.get(run.info.dataset, ()))
            runs.append(run)
        elif path.is_dir() and any(path.iterdir()):
            # A run that silently drops out would leave a median over 2 of 3 runs, unnoticed.
            raise PackageError(
                f"{path}: a run folder without {RUN_FILE}",
                hint="restore it (`dmbench build` restores a published run) or move it away",
            )
    return runs
