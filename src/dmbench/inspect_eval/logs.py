"""``dmbench import-inspect``: an eval log of ``dmbench/domain_modelling`` as stored runs.

Every log is read and checked before anything is written: it must be a finished log of this
task whose samples are records of the package (same id, same text). Each epoch becomes one run
(epoch N is run N), its settings those the task sent with the log's model, so its id is derived
like any generated run's. The outputs are the diagrams the candidate stored, byte for byte; a
sample that ended in an error is a failed output. Nothing of a log is trusted: its task name, its
claims (candidate, settings, prompt hashes) against the candidate's spec and the package's
prompts, every stored row's types and ranges, every number's finiteness and every run against
``run.json``'s schema are checked for all logs before the first file is written. A run is
written in a scratch folder and renamed into ``runs/``, so a kill leaves either the whole run
or none of it; a run already imported from the same log (same sha256) is left as it is. The
log's ``model_base_url`` is stored without user info, query and fragment (with a warning).
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.clock import now_utc
from dmbench.core.csvio import read_csv
from dmbench.core.escape import one_line
from dmbench.core.hashing import file_sha256
from dmbench.core.names import check_name, shown
from dmbench.core.provenance import code_provenance
from dmbench.core.urls import public_url
from dmbench.errors import DmbenchError, InputError, MissingPrerequisiteError, PackageError
from dmbench.inspect_eval.settings import build_candidate, run_settings, sent_options
from dmbench.llm.llm_candidate import LLMCandidate
from dmbench.package import load_records, refresh, require_package
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.lock import package_lock
from dmbench.package.tables import RUNS_PATH
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
from dmbench.sources.records import DATASETS

TASK_NAME = "domain_modelling"
OUTPUT_KEY = "dmbench_output"
"""Where the task's solver stores each record's outcome (``dmbench.inspect_eval.solver``)."""
HARNESS = "inspect_ai"
TASK_NAMES = (TASK_NAME, f"dmbench/{TASK_NAME}")
"""The task names a log of this task carries (inspect adds the package's name)."""
MAX_EPOCH = 1000
MAX_ELAPSED_SECONDS = 7 * 24 * 3600.0
"""A record's generation time longer than a week is no measurement, but a broken log."""
OUTPUT_FIELDS = {
    "generated": (str,),
    "failed": (bool,),
    "error": (str, type(None)),
    "elapsed_seconds": (int, float),
    "raw": (str,),
    "calls": (list,),
}
"""What the task's solver stores per sample (``CandidateOutput`` with ``calls`` a list)."""
META_FIELDS = {
    "candidate": str,
    "dataset": str,
    "settings": dict,
    "upstream_candidate": str,
    "prompts_sha256": dict,
    "dmbench_version": str,
}


@dataclass(frozen=True, slots=True)
class ImportedRun:
    """What importing one inspect_ai log added to the package, for the command to report."""
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
    task = log.eval.task
    meta = (log.eval.metadata or {}).get("dmbench")
    if task not in TASK_NAMES or not isinstance(meta, dict):
        raise InputError(
            f"{path}: a log of task {shown(task)}, not of dmbench/{TASK_NAME}",
            hint="import logs of `inspect eval dmbench/domain_modelling`",
        )
    if log.status != "success":
        raise InputError(
            f"{path}: the eval did not finish (status {shown(log.status)})",
            hint="finish it with `inspect eval-retry` and import the retried log",
        )
    for key, kind in META_FIELDS.items():
        if not isinstance(meta.get(key), kind):
            raise InputError(
                f"{path}: the task's metadata field {key!r} is {shown(meta.get(key))}, "
                f"not a {kind.__name__}"
            )
    if meta["dataset"] not in DATASETS:
        raise InputError(f"{path}: the task's dataset {shown(meta['dataset'])} is no dataset")
    check_name(meta["dmbench_version"], f"{path}: the dmbench version")
    return meta


def _claims_checked(package_dir: Path, path: Path, meta: dict[str, Any]) -> None:
    """The log's settings, upstream name and prompt hashes are what the candidate's spec builds
    from those settings with this package's prompts; anything else was not this task's run."""
    candidate, settings = meta["candidate"], meta["settings"]
    try:
        options = {name: settings[name] for name in sent_options(candidate) if name in settings}
        built = build_candidate(candidate, package_dir, options)
    except (DmbenchError, TypeError, ValueError) as exc:
        message = exc.one_line() if isinstance(exc, DmbenchError) else str(exc)
        raise InputError(f"{path}: the task's settings are refused: {one_line(message)}") from None
    expected = run_settings(built)
    variant = _variant_claimed(path, settings, built)
    if variant is not None:
        expected["prompts"] = variant
    if _canonical(settings) != _canonical(expected):
        wrong = sorted(
            key for key in {*settings, *expected}
            if _canonical(settings.get(key, "absent")) != _canonical(expected.get(key, "absent"))
        )
        raise InputError(
            f"{path}: settings {', '.join(shown(key, 30) for key in wrong[:5])} are not those "
            f"{candidate} runs with in the inspect task"
        )
    if meta["upstream_candidate"] != built.upstream:
        raise InputError(
            f"{path}: upstream candidate {shown(meta['upstream_candidate'])} is not "
            f"{candidate}'s ({built.upstream})"
        )
    if variant is not None:
        if meta["prompts_sha256"] != variant["sha256"]:
            raise InputError(f"{path}: prompts_sha256 is not the prompt variant's sha256")
    elif meta["prompts_sha256"] != built.prompts_sha256:
        raise InputError(
            f"{path}: the prompts the eval sent are not this package's {candidate} prompts "
            "(prompts_sha256 differ)",
            hint="import the log into the package the eval ran on",
        )


def _variant_claimed(
    path: Path, settings: dict[str, Any], built: LLMCandidate
) -> dict[str, Any] | None:
    """A prompt variant's ``{"variant", "sha256"}`` as the log's settings hold it (``-T
    prompts=DIR``), when well formed: a printable name and one sha256 per prompt file of the
    candidate; None for the pinned prompts. The variant's texts are not in the package, so its
    hashes are taken as recorded, as ``generate --prompts`` records them."""
    claimed = settings.get("prompts")
    if claimed is None:
        return None
    names = set(built.prompt_names)
    if not (
        isinstance(claimed, dict)
        and set(claimed) == {"variant", "sha256"}
        and isinstance(claimed["variant"], str)
        and 0 < len(claimed["variant"]) <= 255
        and claimed["variant"].isprintable()
        and isinstance(claimed["sha256"], dict)
        and set(claimed["sha256"]) == names
        and all(isinstance(h, str) and re.fullmatch(r"[0-9a-f]{64}", h)
                for h in claimed["sha256"].values())
    ):  # fmt: skip
        raise InputError(f"{path}: the task's prompt variant is not well formed")
    return claimed


def _canonical(value: Any) -> str:
    """``value`` as JSON, types kept apart (``1`` is not ``true``) and NaN distinct from itself."""
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return f"unequal:{id(value)}"


def _finite_json(path: Path, what: str, value: Any) -> None:
    """``value`` is plain JSON with finite numbers: what ``run.json`` and outputs may hold."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{path}: {what} is not plain JSON with finite numbers ({exc})") from None


def _output_row(path: Path, sample: Any) -> OutputRow:
    where = f"{path}: sample {shown(sample.id)} (epoch {sample.epoch})"
    stored = sample.store.get(OUTPUT_KEY)
    if isinstance(stored, dict):
        for key, kinds in OUTPUT_FIELDS.items():
            value = stored.get(key, KeyError)
            if value is KeyError:
                raise InputError(f"{where}: the stored output has no {key!r}")
            if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
                raise InputError(f"{where}: the stored {key!r} is {shown(value)}, of a wrong type")
        elapsed = stored["elapsed_seconds"]
        if not (math.isfinite(elapsed) and 0 <= elapsed <= MAX_ELAPSED_SECONDS):
            raise InputError(
                f"{where}: the stored elapsed_seconds {shown(elapsed)} is not a time in "
                f"[0, {MAX_ELAPSED_SECONDS:g}] s"
            )
        if not all(isinstance(call, dict) for call in stored["calls"]):
            raise InputError(f"{where}: the stored calls are not all objects")
        _finite_json(path, f"sample {shown(sample.id)}'s stored output", stored)
        return OutputRow(
            record_id=str(sample.id),
            generated=stored["generated"],
            failed=stored["failed"],
            error=stored["error"],
            elapsed_seconds=float(elapsed),
            raw=stored["raw"],
            calls=tuple(stored["calls"]),
        )
    if stored is None and sample.error is not None:
        message = one_line(str(sample.error.message)).strip()[:500]
        elapsed = sample.total_time or 0.0
        if not (isinstance(elapsed, int | float) and math.isfinite(elapsed) and elapsed >= 0):
            elapsed = 0.0
        return OutputRow(
            record_id=str(sample.id),
            generated="",
            failed=True,
            error=f"exception: {message or 'sample error'}",
            elapsed_seconds=float(elapsed),
        )
    raise InputError(f"{where} holds no dmbench output")


def _timestamp(path: Path, what: str, value: Any) -> str | None:
    """An ISO 8601 time of the eval (or None), as inspect writes them."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        moment = None
    if moment is None or not 2000 <= moment.year <= 2200:
        raise InputError(f"{path}: the eval's {what} {shown(value)} is not a time")
    return value


def _base_url(path: Path, url: Any) -> str | None:
    """The log's model base URL without credentials, query and fragment (warned of)."""
    if url is None:
        return None
    try:
        public, dropped = public_url(url) if isinstance(url, str) else ("", ())
    except ValueError:
        public, dropped = "", ()
    if not public:
        raise InputError(f"{path}: the eval's model_base_url {shown(url)} is not a server URL")
    if dropped:
        print(
            f"dmbench: warning: {path.name}: dropped the {', '.join(dropped)} of the log's "
            f"model_base_url ({public}); they are not stored",
            file=sys.stderr,
        )
    return public


def _plan(package_dir: Path, path: Path) -> list[_Planned]:
    log = _read_log(path)
    meta = _task_metadata(path, log)
    model = check_name(log.eval.model, f"{path}: the model name")
    _claims_checked(package_dir, path, meta)
    dataset = meta["dataset"]
    records = {record.record_id: record for record in load_records(package_dir, dataset)}
    order = {record_id: index for index, record_id in enumerate(records)}
    by_epoch: dict[int, list[OutputRow]] = {}
    for sample in log.samples or ():
        record = records.get(str(sample.id))
        if record is None or sample.input != record.text:
            what = "is not" if record is None else "has another text than"
            raise InputError(
                f"{path}: sample {shown(sample.id)} {what} a {dataset} record of {package_dir}",
                hint="import the log into the package the eval ran on",
            )
        epoch = sample.epoch
        if isinstance(epoch, bool) or not isinstance(epoch, int) or not 1 <= epoch <= MAX_EPOCH:
            raise InputError(
                f"{path}: sample {shown(sample.id)}: epoch {shown(epoch)} is not in 1-{MAX_EPOCH}"
            )
        rows = by_epoch.setdefault(epoch, [])
        if any(row.record_id == record.record_id for row in rows):
            raise InputError(f"{path}: sample {sample.id!r} occurs twice in epoch {epoch}")
        rows.append(_output_row(path, sample))
    if not by_epoch:
        raise InputError(f"{path}: the log holds no samples")
    settings = {**meta["settings"], "model": model}
    stats = log.stats
    started = _timestamp(path, "start", stats.started_at)
    completed = _timestamp(path, "end", stats.completed_at)
    provenance = {
        "harness": HARNESS,
        "provider": model.split("/")[0],
        "inspect_ai_version": log.eval.packages.get("inspect_ai"),
        "generate_config": log.eval.model_generate_config.model_dump(exclude_none=True),
        "model_base_url": _base_url(path, log.eval.model_base_url),
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
    _finite_json(path, "the eval's settings and provenance", provenance)
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
            started_utc=started,
            # a log of part of the records (`--limit`) is an unfinished run, as a killed one is
            finished_utc=completed if len(rows) == len(records) else None,
            totals={
                "n_records": len(rows),
                "n_failed": sum(row.failed for row in rows),
                "elapsed_seconds": round(sum(row.elapsed_seconds for row in rows), 3),
                "dmbench_version": meta["dmbench_version"],
            },
        )
        errors = sorted(run_json_validator().iter_errors(info.to_dict()), key=str)
        if errors:
            raise InputError(f"{path}: run {info.run_id}: {one_line(errors[0].message)[:200]}")
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


def _tabulated(package_dir: Path, plans: Sequence[_Planned]) -> bool:
    """Whether ``data/runs.csv`` lists every planned run: an import killed after its rename
    and before the refresh left a stored run the tables lack, which this import derives."""
    listed = {row["run_id"] for _, row in read_csv(package_dir / RUNS_PATH)}
    return all(plan.info.run_id in listed for plan in plans)


def _write(package_dir: Path, plan: _Planned) -> None:
    """The run written in its work folder aside, then moved into ``runs/`` (the run store's one
    lifecycle: a killed import leaves nothing in ``runs/``, and the next one starts over)."""
    work = open_aside(package_dir, plan.info.run_id)
    atomic.write_json(work / RUN_FILE, plan.info.to_dict())
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
        if (package_dir / DESCRIPTOR).is_file() and (
            any(result.added for result in results) or not _tabulated(package_dir, plans)
        ):
            refresh(package_dir)
    return results
