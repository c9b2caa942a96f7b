"""What changes a package: take its lock, change its runs, re-derive its tables and descriptor.

``dmbench.runs`` stores and scores runs and knows nothing of the package around them;
``dmbench.package`` builds, refreshes and validates the package and knows nothing of how runs
are made. The sequences that need both live here, each refusing a folder that is not a package
before anything is written there.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dmbench.candidates import Candidate, Record
from dmbench.errors import PackageError
from dmbench.judge import Criteria, Judge, JudgeOptions
from dmbench.judge.runs import JudgeRun, open_judge_run, run_judgements, targets
from dmbench.judge.runs import Progress as JudgeProgress
from dmbench.judge.study import study_pairs, study_row_maker, study_source
from dmbench.metrics import DEFAULT_METRIC
from dmbench.package import load_records, refresh, require_package
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.lock import package_lock
from dmbench.package.validate import run_json_validator
from dmbench.runs.generate import Progress, generate_run
from dmbench.runs.jobs import check_ready
from dmbench.runs.scores import replace_scores
from dmbench.runs.scoring import Rescored, rescore, select_runs
from dmbench.runs.store import RUN_FILE, Run
from dmbench.sources.records import ALL_DATASETS, DATASETS


@dataclass(frozen=True, slots=True)
class ScoringResult:
    metric: str
    runs: int
    records: int
    distinct_pairs: int
    errors: int
    seconds: float


def score_runs(
    package_dir: Path,
    metric: str = DEFAULT_METRIC,
    run_ids: Sequence[str] | None = None,
    workers: int | None = None,
    rescored: Rescored | None = None,
) -> ScoringResult:
    """Recompute and store the scores of the named runs (all by default), then refresh tables.

    ``rescored`` (rows of ``metric`` for these runs, e.g. from verification) is stored as it is
    instead of being computed a second time.
    """
    started = time.perf_counter()
    require_package(package_dir)
    with package_lock(package_dir):
        runs = select_runs(package_dir, run_ids)
        if rescored is None:
            rescored = rescore(load_records(package_dir), runs, metric, workers)
        elif rescored.metric != metric or not {r.info.run_id for r in runs} <= set(rescored.rows):
            raise ValueError("the given rows are not of this metric and these runs")
        for run in runs:
            replace_scores(run.path, rescored.rows[run.info.run_id])
        refresh(package_dir)
    all_rows = [row for rows in rescored.rows.values() for row in rows]
    return ScoringResult(
        metric=metric,
        runs=len(runs),
        records=len(all_rows),
        distinct_pairs=rescored.distinct_pairs,
        errors=sum(row.error is not None for row in all_rows),
        seconds=time.perf_counter() - started,
    )


def _check_run_file(run: Run) -> None:
    """The run must satisfy the package's run schema, as ``dmbench validate`` will demand."""
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
    require_package(package_dir, built=False)
    names = list(DATASETS) if dataset == ALL_DATASETS else [dataset]
    by_dataset = {name: load_records(package_dir, name) for name in names}
    check_ready(candidate)
    done: list[Run] = []
    with package_lock(package_dir):
        for name, dataset_records in by_dataset.items():
            records = [Record(r.record_id, r.text) for r in dataset_records]
            for run_index in range(1, runs + 1):
                run = generate_run(package_dir, candidate, name, run_index, records, on_output)
                _check_run_file(run)
                done.append(run)
        if (Path(package_dir) / DESCRIPTOR).is_file():
            refresh(package_dir)
    return done


def judge_stored_runs(
    package_dir: Path,
    judges: Sequence[Judge],
    criteria: Criteria,
    options: JudgeOptions,
    runs: Sequence[Run],
    control: str | None = None,
    workers: int = 1,
    on_start: Callable[[JudgeRun, int], None] | None = None,
    on_row: JudgeProgress | None = None,
    retry_failed: bool = False,
) -> JudgeRun:
    """Judge the outputs of ``runs`` into a judge run (resumed where stored), then refresh.

    Every judge answers (or, offline, the cache knows it) before anything is written;
    ``on_start(run, total)`` is told the run and how many instances it has in all;
    ``retry_failed`` asks again about the instances a previous stretch recorded as failed."""
    require_package(package_dir)
    wanted = targets(runs, load_records(package_dir), criteria, control)
    for judge in judges:
        judge.chat.server_info()
    with package_lock(package_dir):
        run = open_judge_run(
            package_dir, judges, criteria, options, [r.info.run_id for r in runs], control
        )
        run = run_judgements(run, judges, wanted, workers, on_row, retry_failed, on_start)
        refresh(package_dir)
    return run


def judge_study(
    package_dir: Path,
    judges: Sequence[Judge],
    criteria: Criteria,
    options: JudgeOptions,
    sources_dir: Path,
    control: str | None = None,
    workers: int = 1,
    on_start: Callable[[JudgeRun, int], None] | None = None,
    on_row: JudgeProgress | None = None,
    retry_failed: bool = False,
) -> JudgeRun:
    """Judge the metric study's 39 human-rated pairs into a study run (resumed where stored),
    then refresh, so that ``dmbench agreement`` finds it.

    ``control="identity"`` shows each pair's reference against itself instead."""
    require_package(package_dir)
    pairs = study_pairs(sources_dir, load_records(package_dir))
    wanted = [p.target for p in pairs]
    if control is not None:
        wanted = [replace(t, instance=replace(t.instance, generated=t.instance.reference))
                  for t in wanted]  # fmt: skip
    for judge in judges:
        judge.chat.server_info()
    with package_lock(package_dir):
        run = open_judge_run(
            package_dir, judges, criteria, options, [], control, study_source()
        )
        run = run_judgements(run, judges, wanted, workers, on_row, retry_failed, on_start,
                       study_row_maker(pairs))  # fmt: skip
        refresh(package_dir)
    return run
