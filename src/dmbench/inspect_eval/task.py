"""``dmbench/domain_modelling``: one sample per benchmark record, an LLM candidate as the solver.

Run from a built package (or pass ``-T package=DIR``)::

    inspect eval dmbench/domain_modelling -T candidate=calamo -T dataset=ds2 --model PROVIDER/MODEL

The candidate's generation settings are task arguments (``-T temperature=0.2``, ``-T
num_predict=2048``, ``-T seed=1``, ``-T top_p=…``, ``-T top_k=…``, chen's ``-T
temperature_translate=…`` and ``-T truncate=false``) with ``dmbench generate``'s defaults; each
call sends them, over whatever ``--temperature`` or the like inspect was given. ``-T
prompts=DIR`` is a prompt variant, as ``dmbench generate --prompts DIR``. They are stored in the
task's metadata, which ``dmbench import-inspect`` reads back as the run's settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from dmbench._version import __version__
from dmbench.core import paths
from dmbench.errors import DmbenchError, InputError
from dmbench.inspect_eval.judge import judge_score
from dmbench.inspect_eval.logs import TASK_NAME
from dmbench.inspect_eval.scorer import benchmark_score
from dmbench.inspect_eval.settings import build_candidate, run_settings
from dmbench.inspect_eval.solver import candidate_solver
from dmbench.judge import load_criteria
from dmbench.judge.runs import CORPUS_LABELS
from dmbench.metrics import DEFAULT_METRIC, get_metric
from dmbench.package import require_package
from dmbench.sources.records import DATASETS, load_records


@task(name=TASK_NAME)
def domain_modelling(
    candidate: str = "calamo",
    dataset: str = "ds2",
    metric: str | None = None,
    judge: str | None = None,
    package: str | None = None,
    judge_view: str = "text",
    prompts: str | None = None,
    **settings: Any,
) -> Task:
    """The benchmark records of ``dataset`` through ``candidate``, scored with metrik-4 (and
    ``metric``, when another is named; ``judge``: also by that judge model, reading the
    diagrams' text or, with ``judge_view="image"``, seeing them drawn); ``prompts``: a prompt
    variant's folder."""
    try:
        variant = None if prompts is None else Path(prompts)
        return _task(candidate, dataset, metric, judge, package, settings, judge_view, variant)
    except DmbenchError as exc:
        # inspect prints this one as its message alone (a bad -T argument is no bug of ours)
        raise PrerequisiteError(f"dmbench/{TASK_NAME}: {exc.one_line()}") from None


def _task(
    candidate: str,
    dataset: str,
    metric: str | None,
    judge: str | None,
    package: str | None,
    settings: dict[str, Any],
    judge_view: str = "text",
    variant: Path | None = None,
) -> Task:
    if dataset not in DATASETS:
        raise InputError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    root = require_package(paths.package_dir(package), built=False)
    records = load_records(root, dataset)
    built = build_candidate(candidate, root, settings, variant)
    type_column = load_criteria().type_column
    samples = [
        Sample(
            id=record.record_id,
            input=record.text,
            target=record.reference,
            metadata={  # what the judge shows besides the diagrams, as `dmbench judge` does
                "type": str(getattr(record, type_column)),
                "caption": f"{record.upstream_id} ({CORPUS_LABELS[record.dataset]})",
            },
        )
        for record in records
    ]
    scorers: list[Scorer] = [benchmark_score(DEFAULT_METRIC)]
    if metric is not None and metric != DEFAULT_METRIC:
        get_metric(metric)  # an unknown name stops here, before any call
        scorers.append(benchmark_score(metric))
    if judge is not None:
        scorers.append(judge_score(judge, view=judge_view, package_dir=root))
    return Task(
        dataset=MemoryDataset(samples, name=f"dmbench-{dataset}"),
        solver=candidate_solver(built),
        scorer=scorers,
        metadata={
            "dmbench": {
                "candidate": candidate,
                "dataset": dataset,
                "settings": run_settings(built),
                "upstream_candidate": built.upstream,
                "prompts_sha256": built.prompts_sha256,
                "dmbench_version": __version__,
            }
        },
    )
