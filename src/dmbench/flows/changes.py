"""What changes a package: take its lock, change its runs, re-derive its tables and descriptor.

``dmbench.runs`` stores and scores runs and knows nothing of the package around them;
``dmbench.package`` builds, refreshes and validates the package and knows nothing of how runs
are made. The sequences that need both live here, each refusing a folder that is not a package
before anything is written there.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from dmbench.candidates import Candidate, CandidateSpec, Record, candidate_spec, candidate_specs
from dmbench.candidates.base import CANDIDATE_REGISTRY
from dmbench.candidates.command import DEFAULT_TIMEOUT as DEFAULT_COMMAND_TIMEOUT
from dmbench.candidates.command import CommandCandidate
from dmbench.candidates.python import CallableCandidate
from dmbench.core import atomic, paths
from dmbench.core.registry import check_safe_name
from dmbench.errors import InputError, OptionError, PackageError, UnknownNameError
from dmbench.judge import (
    JUDGE,
    Judge,
    JudgeOptions,
    judge_pairs,
    load_criteria,
    model_family,
    read_pairs,
)
from dmbench.judge.judging import prepare_drawings
from dmbench.judge.runs import (
    JudgeRun,
    judged_row,
    open_judge_run,
    question_of,
    run_judgements,
    select_judged_runs,
    targets,
)
from dmbench.judge.runs import Progress as JudgeProgress
from dmbench.judge.study_run import study_pairs, study_row_maker, study_source
from dmbench.judge.views import Drawings
from dmbench.llm import CACHE_DIR, DEFAULT_TIMEOUT, OllamaChat, ResponseCache
from dmbench.metrics import DEFAULT_METRIC, PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.package import load_records, refresh, require_package
from dmbench.package.lock import package_lock
from dmbench.package.refresh import refreshing
from dmbench.package.validate import run_json_validator
from dmbench.runs.bundle import export_run, read_bundle
from dmbench.runs.generate import Progress, generate_run
from dmbench.runs.jobs import check_ready
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.pair_scores import PairScores
from dmbench.runs.rescoring import Rescored, rescore
from dmbench.runs.scores import replace_scores
from dmbench.runs.store import (
    OUTPUTS_FILE,
    RUN_FILE,
    RUNS_DIR,
    Run,
    list_runs,
    open_aside,
    publish,
    publish_run,
    work_path,
)
from dmbench.sources.prompts import PROMPTS_DIR
from dmbench.sources.records import ALL_DATASETS, DATASETS

BUNDLE_METRICS = (PUBLISHED_METRIC, STANDARD_METRIC)
"""The metrics an imported bundle is scored with: those of Tables 2-3."""


@dataclass(frozen=True, slots=True)
class ScoringResult:
    """What a rescoring did, for the command's summary line and the main job's stage report."""
    metric: str
    runs: int
    records: int
    distinct_pairs: int
    errors: int
    seconds: float
    reused: int = 0


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
    given = {} if rescored is None else {metric: rescored}
    return score_metrics(package_dir, (metric,), run_ids, workers, given)[0]


def score_metrics(
    package: PackageSource,
    metrics: Sequence[str],
    run_ids: Sequence[str] | None = None,
    workers: int | None = None,
    rescored: Mapping[str, Rescored] | None = None,
    kept: PairScores | None = None,
) -> list[ScoringResult]:
    """``score_runs`` for several metrics at once: each run's score file is written once and
    the tables refreshed once, however many metrics (the main job scores six). Pairs found in
    ``kept`` are not computed again (see ``runs.pair_scores``); an opened ``package`` must be
    taken ``rescored()`` afterwards to read the new scores."""
    opened = open_package(package)
    require_package(opened.path)
    results, all_rescored = [], []
    with package_lock(opened.path):
        runs = opened.select_runs(run_ids)
        records = None
        for metric in metrics:
            started = time.perf_counter()
            given = (rescored or {}).get(metric)
            if given is None:
                records = records or opened.records()
                given = rescore(records, runs, metric, workers, kept)
            elif given.metric != metric or not {r.info.run_id for r in runs} <= set(given.rows):
                raise ValueError("the given rows are not of this metric and these runs")
            all_rescored.append(given)
            rows = [row for rows in given.rows.values() for row in rows]
            results.append(
                ScoringResult(
                    metric=metric,
                    runs=len(runs),
                    records=len(rows),
                    distinct_pairs=given.distinct_pairs,
                    reused=given.reused,
                    errors=sum(row.error is not None for row in rows),
                    seconds=time.perf_counter() - started,
                )
            )
        for run in runs:
            run_id = run.info.run_id
            replace_scores(run.path, [row for r in all_rescored for row in r.rows[run_id]])
        refresh(opened.rescored())
    return results


@dataclass(frozen=True, slots=True)
class ImportedBundle:
    """The run a bundle brought in and its scores here, so the caller can report both."""
    run_id: str
    records: int
    scored: list[ScoringResult]


def export_package_run(package_dir: Path, run_id: str, out: Path) -> Path:
    """Write stored run ``run_id`` as a checked bundle at ``out`` (see ``runs.bundle``)."""
    require_package(package_dir)
    runs = {run.info.run_id: run for run in list_runs(package_dir)}
    if run_id not in runs:
        raise UnknownNameError(f"{package_dir}: no run {run_id!r}",
                               hint="data/runs.csv lists the run ids")  # fmt: skip
    texts = {record.record_id: record.text_sha256 for record in load_records(package_dir)}
    return export_run(runs[run_id], texts, out)


def import_package_run(
    package_dir: Path, bundle_path: Path, metrics: Sequence[str] = BUNDLE_METRICS
) -> ImportedBundle:
    """Check the bundle against this package, store its run as it was exported, then score it
    with ``metrics`` here (a bundle carries no scores). A run id the package holds is refused."""
    require_package(package_dir)
    records = load_records(package_dir)
    texts = {record.record_id: record.text_sha256 for record in records}
    bundle = read_bundle(Path(bundle_path), texts, _run_json_problem)
    dataset = {record.record_id: record.dataset for record in records}
    foreign = sorted(rid for rid in bundle.records if dataset[rid] != bundle.info.dataset)
    if foreign:
        raise InputError(f"{bundle_path}: record {foreign[0]!r} is not of {bundle.info.dataset}")
    with package_lock(package_dir), refreshing(package_dir):
        if (Path(package_dir) / RUNS_DIR / bundle.run_id).exists():
            raise PackageError(f"{package_dir}: already holds run {bundle.run_id}",
                               hint="move it out of runs/ to import the bundle in its place")  # fmt: skip
        shutil.rmtree(work_path(package_dir, bundle.run_id), ignore_errors=True)
        work = open_aside(package_dir, bundle.run_id)
        atomic.write_bytes(work / RUN_FILE, bundle.run_json)
        atomic.write_bytes(work / OUTPUTS_FILE, bundle.outputs_jsonl)
        publish_run(package_dir, work)
    scored = score_metrics(package_dir, metrics, [bundle.run_id])
    return ImportedBundle(bundle.run_id, len(bundle.records), scored)


def _run_json_problem(data: Any) -> str | None:
    errors = sorted(run_json_validator().iter_errors(data), key=str)
    return None if not errors else f"{'/'.join(map(str, errors[0].path))}: {errors[0].message}"


def _check_run_file(run: Run) -> None:
    """The run must satisfy the package's run schema, as ``dmbench validate`` will demand."""
    data = json.loads((run.path / RUN_FILE).read_text("utf-8"))
    errors = sorted(run_json_validator().iter_errors(data), key=str)
    if errors:
        raise PackageError(f"{run.path / RUN_FILE}: {errors[0].message}")


def build_own_candidate(
    name: str | None,
    command: str | None = None,
    function: Callable[[str], str] | CandidateSpec | None = None,
    timeout: float | None = None,
    workers: int = 1,
    **options: Any,
) -> Candidate:
    """A candidate that is not registered: a ``command`` run per record, a Python ``function``
    (text in, PlantUML out), or a ``CandidateSpec`` built with ``options``; ``name`` names its
    runs and may not be a registered candidate's."""
    if (command is None) == (function is None):
        raise OptionError("give exactly one of --candidate and --command")
    if isinstance(function, CandidateSpec):
        if name not in (None, function.name):
            raise OptionError(f"the spec is named {function.name!r}, not {name!r}")
        check_safe_name("candidate", function.name)
        given = {key: value for key, value in options.items() if value is not None}
        return function.factory(**given)
    if not name:
        raise OptionError("a command or function candidate needs --name (its runs' name)")
    if name in CANDIDATE_REGISTRY:
        raise OptionError(f"--name {name!r} is a registered candidate; choose another name")
    unknown = sorted(key for key, value in options.items() if value not in (None, (), False))
    if unknown:
        raise OptionError(f"{unknown[0]!r} is not an option of a command or function candidate")
    if command is not None:
        return CommandCandidate(command, name, timeout or DEFAULT_COMMAND_TIMEOUT, workers)
    if timeout is not None:
        raise OptionError("--timeout is not an option of a function candidate")
    assert function is not None  # exactly one of command and function, checked above
    return CallableCandidate(function, name, workers)


def build_candidate(
    package_dir: Path,
    name: str,
    model: str | None = None,
    hosts: Sequence[str] = (),
    offline: bool = False,
    workers: int = 1,
    **options: Any,
) -> Candidate:
    """Candidate ``name`` as the command line and the API both build it, from its spec.

    ``options`` are generation settings (``None``: not given, so upstream's default holds); one
    the candidate does not take is refused. An LLM candidate caches replies in the package and
    reads the package's prompt files when it has them, else the sources'."""
    spec = candidate_spec(name)
    variant = options.pop("prompts", None)
    if variant is not None and not spec.prompt_files:
        raise OptionError(f"--prompts is for the candidates that send prompts; {name} sends none")
    given = {option: value for option, value in options.items() if value is not None}
    known = {option for other in candidate_specs() for option in other.options}
    unknown = sorted(given.keys() - known)
    if unknown:
        raise UnknownNameError(f"unknown generation option {unknown[0]!r}; choose from {sorted(known)}")
    if not spec.uses_llm:
        if model or hosts or offline or workers > 1 or given.keys() - spec.options.keys():
            raise OptionError(
                f"--model, --workers, --host, --offline, --no-truncate and the generation "
                f"options (--temperature, --seed, ...) are for the LLM candidates; {name} "
                f"takes {', '.join(spec.options) or 'none'}"
            )
        return spec.factory(**given)
    foreign = sorted(given.keys() - spec.options.keys())
    if foreign:
        flag = "--no-truncate" if foreign[0] == "truncate" else f"--{foreign[0].replace('_', '-')}"
        takers = [other.name for other in candidate_specs() if foreign[0] in other.options]
        raise OptionError(f"{flag} is for {', '.join(takers)}: {name} does not take it")
    if not model:
        raise OptionError(f"{name} needs --model (an Ollama model, e.g. glm-5.1:cloud)")
    package = Path(package_dir)
    return spec.factory(
        model=model,
        workers=workers,
        hosts=tuple(hosts),
        offline=offline,
        cache_dir=package / CACHE_DIR,
        prompts=package if (package / PROMPTS_DIR).is_dir() else None,
        **({} if variant is None else {"prompt_variant": Path(variant)}),
        **given,
    )


def generate_dataset_runs(
    package_dir: Path,
    candidate: Candidate,
    dataset: str,
    runs: int = 1,
    on_output: Progress | None = None,
) -> list[Run]:
    """Runs 1..``runs`` of ``candidate`` on each dataset, resumed where stored.

    Each run is made in its work folder and moved into ``runs/`` when finished and checked, so a
    refused or killed ``generate`` leaves the package as it was. A built package (one with ``datapackage.json``) gets its tables and descriptor re-derived so
    that the new runs are part of it; a folder holding only ``data/records.csv`` just gets runs.
    """
    require_package(package_dir, built=False)
    names = list(DATASETS) if dataset == ALL_DATASETS else [dataset]
    by_dataset = {name: load_records(package_dir, name) for name in names}
    check_ready(candidate)
    done: list[Run] = []
    with package_lock(package_dir), refreshing(package_dir):
        for name, dataset_records in by_dataset.items():
            records = [Record(r.record_id, r.text) for r in dataset_records]
            for run_index in range(1, runs + 1):
                run = generate_run(package_dir, candidate, name, run_index, records, on_output)
                _check_run_file(run)  # in its work folder: a refused run changes nothing
                done.append(publish(package_dir, run))
    return done


def make_judges(
    package_dir: Path,
    models: Sequence[str],
    criteria_file: Path | None = None,
    options: JudgeOptions = JudgeOptions(),
    hosts: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    offline: bool = False,
) -> list[Judge]:
    """One judge per model (a panel when several), sharing the package's reply cache."""
    if len(set(models)) != len(models):
        raise OptionError("a --model is given twice")
    if not models:
        raise OptionError("a judge needs --model (an Ollama model)")
    criteria = load_criteria(criteria_file)
    cache = ResponseCache(Path(package_dir) / CACHE_DIR)
    drawings = Drawings(package_dir) if options.view == "image" else None
    return [
        Judge(OllamaChat(model, hosts=tuple(hosts), timeout=timeout, think=options.think,
                         cache=cache, offline=offline), criteria, options, drawings)
        for model in models
    ]  # fmt: skip


def judge_package(
    package_dir: Path,
    judges: Sequence[Judge],
    run_ids: Sequence[str] = (),
    canonical: bool = False,
    study: bool = False,
    sources_dir: Path | None = None,
    control: str | None = None,
    workers: int = 1,
    retry_failed: bool = False,
    on_start: Callable[[JudgeRun, int], None] | None = None,
    on_row: JudgeProgress | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> JudgeRun:
    """Judge stored runs (``run_ids``, or every ``canonical`` one) or the metric ``study``'s 39
    human-rated pairs into a judge run (resumed where stored), then refresh the package.

    Every judge answers (or, offline, the cache knows it) before anything is written;
    ``on_start(run, total)`` is told the run and how many instances it has in all;
    ``retry_failed`` asks again about the instances a previous stretch recorded as failed;
    ``on_warning`` hears of a judge sharing a judged LLM's model family (it may prefer it)."""
    JUDGE.chosen_mode(runs=bool(run_ids), canonical=canonical, study=study)
    criteria, options = judges[0].criteria, judges[0].options
    if study:
        require_package(package_dir)
        sources = sources_dir or paths.default_sources_dir(package_dir)
        pairs = study_pairs(sources, load_records(package_dir))
        wanted = [pair.target for pair in pairs]
        if control == "identity":  # each pair's reference against itself
            wanted = [replace(t, instance=replace(t.instance, generated=t.instance.reference))
                      for t in wanted]  # fmt: skip
        judged, study_file, row_of = [], study_source(), study_row_maker(pairs)
    else:
        runs = select_judged_runs(package_dir, run_ids, canonical)
        _warn_self_preference(judges, runs, on_warning)
        require_package(package_dir)
        wanted = targets(runs, load_records(package_dir), criteria, control)
        judged, study_file, row_of = [run.info.run_id for run in runs], None, judged_row
    for judge in judges:
        judge.chat.server_info()
    prepare_drawings(judges, [target.instance for target in wanted])
    with package_lock(package_dir):
        run = open_judge_run(package_dir, judges, criteria, options, judged, control, study_file)
        run = run_judgements(run, judges, wanted, workers, on_row, retry_failed, on_start, row_of)
        refresh(package_dir)
    return run


def _warn_self_preference(
    judges: Sequence[Judge], runs: Sequence[Run], on_warning: Callable[[str], None] | None
) -> None:
    families = {model_family(judge.model): judge.model for judge in judges}
    for llm in sorted({run.info.model for run in runs if run.info.model}):
        judge_model = families.get(model_family(llm))
        if judge_model and on_warning is not None:
            on_warning(
                f"judge {judge_model} shares the model family {model_family(llm)!r} with "
                f"{llm}; it may prefer its own family's outputs"
            )


def judge_own_pairs(
    judges: Sequence[Judge],
    pairs: IO[bytes] | IO[str],
    source: str = "<pairs>",
    control: str | None = None,
    workers: int = 1,
) -> Iterator[dict[str, Any]]:
    """Judge JSON-lines pairs, nothing stored: one result line per pair, in input order.

    ``control="identity"`` shows each pair's reference against itself instead;
    ``control="detect"`` asks which of the two a person drew."""
    instances = read_pairs(pairs, source=source)
    if control == "identity":
        instances = [replace(i, generated=i.reference) for i in instances]
    for judge in judges:
        judge.chat.server_info()
    prepare_drawings(judges, instances)
    return judge_pairs(judges, instances, workers, question_of(control))
