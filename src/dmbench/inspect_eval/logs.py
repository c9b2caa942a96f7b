"""``dmbench import-inspect``: an eval log of ``dmbench/domain_modelling`` as stored runs.

Every log is read and checked before anything is written: it must be a finished log of this
task whose samples are records of the package (same id, same text). Each epoch becomes one run
(epoch N is run N), its settings those the task sent with the log's model, so its id is derived
like any generated run's. The outputs are the diagrams the candidate stored, byte for byte; a
sample that ended in an error is a failed output. A run is written in a scratch folder and
renamed into ``runs/``, so a kill leaves either the whole run or none of it; a run already
imported from the same log (same sha256) is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.clock import now_utc
from dmbench.core.hashing import file_sha256
from dmbench.core.provenance import code_provenance
from dmbench.errors import InputError, MissingPrerequisiteError, PackageError
from dmbench.package import load_records, refresh, require_package
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.lock import package_lock
from dmbench.package.validate import run_json_validator
from dmbench.runs.generate import settings_fingerprint
from dmbench.runs.store import (
    OUTPUTS_FILE,
    RUN_FILE,
    RUNS_DIR,
    OutputRow,
    RunInfo,
    load_run,
    make_run_id,
    open_aside,
    publish_run,
)

TASK_NAME = "domain_modelling"
OUTPUT_KEY = "dmbench_output"
"""Where the task's solver stores each record's outcome (``dmbench.inspect_eval.solver``)."""
HARNESS = "inspect_ai"


@dataclass(frozen=True, slots=True)
class ImportedRun:
    run_id: str
    log: Path
    n_outputs: int
    n_failed: int
    added: bool
    """False when the run was already imported from this very log (nothing written)."""


@dataclass(frozen=True, slots=True)
class _Planned:
    info: RunInfo
    rows: tuple[OutputRow, ...]
    log: Path


def _read_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise MissingPrerequisiteError(
            "reading inspect_ai eval logs needs inspect_ai",
            hint="pip install 'dmbench[inspect]'",
        ) from None
    if not path.is_file():
        raise InputError(f"{path}: no such eval log")
    try:
        return read_eval_log(str(path), resolve_attachments=True)
    except Exception as exc:  # noqa: BLE001 - any reader failure means: not a log we can read
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{path}: not a readable inspect_ai eval log ({first})") from None


def _task_metadata(path: Path, log: Any) -> dict[str, Any]:
    task = log.eval.task or ""
    meta = (log.eval.metadata or {}).get("dmbench")
    if task.split("/")[-1] != TASK_NAME or not isinstance(meta, dict):
        raise InputError(
            f"{path}: a log of task {task!r}, not of dmbench/{TASK_NAME}",
            hint="import logs of `inspect eval dmbench/domain_modelling`",
        )
    if log.status != "success":
        raise InputError(
            f"{path}: the eval did not finish (status {log.status})",
            hint="finish it with `inspect eval-retry` and import the retried log",
        )
    return meta


def _output_row(path: Path, sample: Any) -> OutputRow:
    stored = sample.store.get(OUTPUT_KEY)
    if isinstance(stored, dict):
        return OutputRow(
            record_id=str(sample.id),
            generated=stored["generated"],
            failed=bool(stored["failed"]),
            error=stored["error"],
            elapsed_seconds=float(stored["elapsed_seconds"]),
            raw=stored["raw"],
            calls=tuple(stored["calls"]),
        )
    if sample.error is not None:
        message = sample.error.message.strip().splitlines()
        return OutputRow(
            record_id=str(sample.id),
            generated="",
            failed=True,
            error=f"exception: {message[0] if message else 'sample error'}",
            elapsed_seconds=float(sample.total_time or 0.0),
        )
    raise InputError(f"{path}: sample {sample.id!r} (epoch {sample.epoch}) holds no dmbench output")


def _plan(package_dir: Path, path: Path) -> list[_Planned]:
    log = _read_log(path)
    meta = _task_metadata(path, log)
    dataset = meta["dataset"]
    records = {record.record_id: record for record in load_records(package_dir, dataset)}
    order = {record_id: index for index, record_id in enumerate(records)}
    by_epoch: dict[int, list[OutputRow]] = {}
    for sample in log.samples or ():
        record = records.get(str(sample.id))
        if record is None or sample.input != record.text:
            what = "is not" if record is None else "has another text than"
            raise InputError(
                f"{path}: sample {sample.id!r} {what} a {dataset} record of {package_dir}",
                hint="import the log into the package the eval ran on",
            )
        rows = by_epoch.setdefault(sample.epoch, [])
        if any(row.record_id == record.record_id for row in rows):
            raise InputError(f"{path}: sample {sample.id!r} occurs twice in epoch {sample.epoch}")
        rows.append(_output_row(path, sample))
    if not by_epoch:
        raise InputError(f"{path}: the log holds no samples")
    model = log.eval.model
    settings = {**meta["settings"], "model": model}
    stats = log.stats
    provenance = {
        "harness": HARNESS,
        "provider": model.split("/")[0],
        "inspect_ai_version": log.eval.packages.get("inspect_ai"),
        "generate_config": log.eval.model_generate_config.model_dump(exclude_none=True),
        "model_base_url": log.eval.model_base_url,
        "log_file": path.name,
        "log_sha256": file_sha256(path),
        "eval_id": log.eval.eval_id,
        "inspect_run_id": log.eval.run_id,
        "upstream_candidate": meta["upstream_candidate"],
        "prompts_sha256": meta["prompts_sha256"],
        "dmbench_version": meta["dmbench_version"],
        "imported_utc": now_utc(),
        "imported_by": code_provenance(),
    }
    planned = []
    for epoch, rows in sorted(by_epoch.items()):
        rows.sort(key=lambda row: order[row.record_id])
        info = RunInfo(
            run_id=make_run_id(
                meta["candidate"], model, dataset, epoch, settings_fingerprint(settings)
            ),
            candidate=meta["candidate"],
            model=model,
            dataset=dataset,
            run_index=epoch,
            origin="generated",
            canonical=False,
            settings=settings,
            provenance=provenance,
            started_utc=stats.started_at or None,
            # a log of part of the records (`--limit`) is an unfinished run, as a killed one is
            finished_utc=(stats.completed_at or None) if len(rows) == len(records) else None,
            totals={
                "n_records": len(rows),
                "n_failed": sum(row.failed for row in rows),
                "elapsed_seconds": round(sum(row.elapsed_seconds for row in rows), 3),
                "dmbench_version": meta["dmbench_version"],
            },
        )
        planned.append(_Planned(info, tuple(rows), path))
    return planned


def _already_imported(package_dir: Path, plan: _Planned) -> bool:
    """True for a run imported from the same log; another run of that id is refused."""
    folder = Path(package_dir) / RUNS_DIR / plan.info.run_id
    if not folder.exists():
        return False
    stored = load_run(folder).info.provenance.get("log_sha256")
    if stored == plan.info.provenance["log_sha256"]:
        return True
    raise PackageError(
        f"{plan.log}: run {plan.info.run_id} is already stored from another source "
        f"({'log sha256 ' + stored if stored else 'not this log'})",
        hint=f"move {folder} away to import this log in its place",
    )


def _write(package_dir: Path, plan: _Planned) -> None:
    """The run written in its work folder, checked, then moved into ``runs/``."""
    data = plan.info.to_dict()
    errors = sorted(run_json_validator().iter_errors(data), key=str)
    if errors:
        raise PackageError(f"{plan.log}: run {plan.info.run_id}: {errors[0].message}")
    work = open_aside(package_dir, plan.info.run_id)
    atomic.write_json(work / RUN_FILE, data)
    atomic.write_text(work / OUTPUTS_FILE, "".join(row.to_json_line() for row in plan.rows))
    publish_run(package_dir, work)


def import_inspect_logs(package_dir: Path, logs: Sequence[Path]) -> list[ImportedRun]:
    """Store each eval log's runs in the package (a no-op for runs already imported from it),
    then re-derive the package's tables when anything was added."""
    package_dir = Path(package_dir)
    require_package(package_dir, built=False)
    plans = [plan for log in logs for plan in _plan(package_dir, Path(log))]
    seen: dict[str, Path] = {}
    for plan in plans:
        if plan.info.run_id in seen and seen[plan.info.run_id] != plan.log:
            raise InputError(
                f"{plan.log}: run {plan.info.run_id} is also the run of {seen[plan.info.run_id]}",
                hint="import one of the two logs",
            )
        seen[plan.info.run_id] = plan.log
    results = []
    with package_lock(package_dir):
        new = [not _already_imported(package_dir, plan) for plan in plans]  # refuse before writing
        for plan, added in zip(plans, new, strict=True):
            if added:
                _write(package_dir, plan)
            results.append(
                ImportedRun(
                    plan.info.run_id,
                    plan.log,
                    len(plan.rows),
                    plan.info.totals["n_failed"],
                    added,
                )
            )
        if any(result.added for result in results) and (package_dir / DESCRIPTOR).is_file():
            refresh(package_dir)
    return results
