"""Generation runs: a candidate over a dataset's records, stored record by record, resumable."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path
from typing import Any

from dmbench._version import __version__
from dmbench.candidates.base import (
    Candidate,
    CandidateOutput,
    Record,
    candidate_provenance,
    generate_many,
)
from dmbench.core import atomic
from dmbench.core.clock import now_utc
from dmbench.core.hashing import sha256_text
from dmbench.core.provenance import code_provenance
from dmbench.errors import PackageError
from dmbench.runs.store import OutputRow, Run, RunInfo, make_run_id, open_run

Progress = Callable[[OutputRow], None]
"""Called with each newly stored row; if it has a ``start_run(run_id, total, stored, failed)``
method, that is called first with how many of the run's records there are, how many were
already stored and how many of those failed (so a resumed run's counts start where they were)."""


def settings_fingerprint(settings: dict[str, Any]) -> str:
    """A hash of a run's settings, key order ignored: part of a run id, so two settings give two
    runs."""
    return sha256_text(json.dumps(settings, sort_keys=True, ensure_ascii=False))


def generate_run(
    package_dir: Path,
    candidate: Candidate,
    dataset: str,
    run_index: int,
    records: Sequence[Record],
    on_output: Progress | None = None,
) -> Run:
    """Run ``candidate`` over ``records`` in the run's work folder, skipping records already
    stored; the caller checks the run and publishes it (``store.publish``).

    A candidate with ``for_run(run_index)`` is specialised to the run first (LLM candidates draw
    each run's samples separately); one with ``workers > 1`` generates records on that many
    threads, each stored as soon as it completes and put back in record order at the end.

    Each call that generates records adds a *segment* to the run's ``provenance.segments``:
    when it started, how many records were already stored, and the model digest, server
    version and dmbench version/commit it ran with. Resuming a run whose model digest differs
    from the one it was started with is refused, so that one run never mixes model versions.
    """
    for_run = getattr(candidate, "for_run", None)
    if for_run is not None:
        candidate = for_run(run_index)
    described = candidate.describe()
    settings = {"uses_llm": False, **described.get("settings", {})}
    info = RunInfo(
        run_id=make_run_id(
            candidate.name,
            settings.get("model"),
            dataset,
            run_index,
            settings_fingerprint(settings),
        ),
        candidate=candidate.name,
        model=settings.get("model"),
        dataset=dataset,
        run_index=run_index,
        origin="generated",
        canonical=False,
        settings=settings,
        provenance=_provenance(candidate, described),
        started_utc=now_utc(),
    )
    run = open_run(package_dir, info, aside=True)
    resumed = run.info is not info  # open_run returns the stored info of an existing run
    wanted = {record.id for record in records}
    stored = [row for row in run.outputs() if row.record_id in wanted]
    done = {row.record_id for row in stored}
    todo = [record for record in records if record.id not in done]
    if todo or not resumed:
        _add_segment(run, info, len(stored), resumed)
    start_run = getattr(on_output, "start_run", None)
    if start_run is not None:
        start_run(run.info.run_id, len(records), len(stored), sum(row.failed for row in stored))

    for index, output in iter_outputs(candidate, todo):
        row = OutputRow.from_output(todo[index].id, output)
        run.append(row)
        if on_output is not None:
            on_output(row)
    rows = _in_record_order(run, records)
    totals = {
        "n_records": len(rows),
        "n_failed": sum(row.failed for row in rows),
        "elapsed_seconds": round(sum(row.elapsed_seconds for row in rows), 3),
        "dmbench_version": __version__,
    }
    run.save_info(replace(run.info, finished_utc=now_utc(), totals=totals))
    return run


def _provenance(candidate: Candidate, described: dict[str, Any]) -> dict[str, Any]:
    """The candidate's own provenance and dmbench's; where a candidate not built in came from."""
    provenance = {**described.get("provenance", {}), **code_provenance()}
    origin = candidate_provenance(candidate.name)
    if "candidate" not in provenance and origin is not None:
        provenance["candidate"] = origin
    return provenance


def _add_segment(run: Run, now: RunInfo, stored: int, resumed: bool) -> None:
    """Record what generates this stretch of the run; refuse to mix model versions."""
    segment = {
        "started_utc": now.started_utc,
        "stored_before": stored,
        "model_digest": now.provenance.get("model_digest"),
        "server_version": now.provenance.get("server_version"),
        "hosts": now.provenance.get("hosts"),
        **code_provenance(),
    }
    if resumed:
        before = run.info.provenance.get("model_digest")
        if before != segment["model_digest"]:
            raise PackageError(
                f"run {run.info.run_id} was started with model digest {before} but the server "
                f"now serves {segment['model_digest']}, so resuming it would mix two model "
                f"versions in one run (move {run.path} away to start the run again)"
            )
    provenance = run.info.provenance
    segments = [*provenance.get("segments", []), segment]
    run.save_info(replace(run.info, provenance={**provenance, "segments": segments}))


def iter_outputs(
    candidate: Candidate, records: Sequence[Record]
) -> Iterator[tuple[int, CandidateOutput]]:
    """``(position in records, output)`` for each record, as soon as it is generated.

    A candidate with ``workers > 1`` generates on that many threads, so outputs come in
    completion order; otherwise in record order, through the candidate's batch generation when
    it has one. On an error (or when the caller stops early) nothing new is started and
    the error is re-raised.
    """
    workers = getattr(candidate, "workers", 1)
    if workers <= 1 or len(records) <= 1:
        yield from enumerate(generate_many(candidate, records))
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dmbench-gen") as pool:
        futures = {pool.submit(candidate.generate, record): i for i, record in enumerate(records)}
        try:
            for future in as_completed(futures):
                yield futures[future], future.result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise


def _in_record_order(run: Run, records: Sequence[Record]) -> list[OutputRow]:
    """Rewrite ``outputs.jsonl`` in record order (atomically) when completion order differed."""
    rows = run.outputs()
    position = {record.id: index for index, record in enumerate(records)}
    ordered = sorted(rows, key=lambda row: position.get(row.record_id, len(position)))
    if ordered != rows:
        atomic.write_text(run.outputs_path, "".join(row.to_json_line() for row in ordered))
    return ordered
