"""Generation runs: a candidate over a dataset's records, stored record by record, resumable."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dmbench import __version__
from dmbench.candidates.base import Candidate, Record, generate_many
from dmbench.provenance import code_provenance
from dmbench.runs.store import OutputRow, Run, RunInfo, make_run_id, now_utc, open_run

Progress = Callable[[OutputRow], None]


def settings_fingerprint(settings: dict[str, Any]) -> str:
    blob = json.dumps(settings, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def generate_run(
    package_dir: Path,
    candidate: Candidate,
    dataset: str,
    run_index: int,
    records: Sequence[Record],
    on_output: Progress | None = None,
) -> Run:
    """Run ``candidate`` over ``records`` into the run store, skipping records already stored."""
    described = candidate.describe()
    settings = described.get("settings", {})
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
        provenance={**described.get("provenance", {}), **code_provenance()},
    )
    run = open_run(package_dir, info)
    done = run.completed_ids()
    todo = [record for record in records if record.id not in done]
    for record, output in zip(todo, generate_many(candidate, todo), strict=True):
        row = OutputRow.from_output(record.id, output)
        run.append(row)
        if on_output is not None:
            on_output(row)
    rows = run.outputs()
    run.info.finished_utc = now_utc()
    run.info.totals = {
        "n_records": len(rows),
        "n_failed": sum(row.failed for row in rows),
        "elapsed_seconds": round(sum(row.elapsed_seconds for row in rows), 3),
        "dmbench_version": __version__,
    }
    run.save_info()
    return run
