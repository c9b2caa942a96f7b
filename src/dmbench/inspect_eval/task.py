"""``dmbench/domain_modelling``: one sample per benchmark record, an LLM candidate as the solver.

Run from a built package (or pass ``-T package=DIR``)::

    inspect eval dmbench/domain_modelling -T candidate=calamo -T dataset=ds2 --model PROVIDER/MODEL

The candidate's generation settings are task arguments (``-T temperature=0.2``, ``-T
num_predict=2048``, ``-T seed=1``, ``-T top_p=…``, ``-T top_k=…``, chen's ``-T
temperature_translate=…`` and ``-T truncate=false``) with ``dmbench generate``'s defaults; each
call sends them, over whatever ``--temperature`` or the like inspect was given. They are stored
in the task's metadata, which ``dmbench import-inspect`` reads back as the run's settings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from dmbench._version import __version__
from dmbench.candidates import candidate_spec, candidate_specs
from dmbench.core import paths
from dmbench.errors import DmbenchError, InputError
from dmbench.inspect_eval.judge import judge_score
from dmbench.inspect_eval.logs import TASK_NAME
from dmbench.inspect_eval.scorer import benchmark_score
from dmbench.inspect_eval.solver import candidate_solver
from dmbench.judge import load_criteria
from dmbench.judge.runs import CORPUS_LABELS
from dmbench.llm.llm_candidate import LLMCandidate
from dmbench.metrics import DEFAULT_METRIC, get_metric
from dmbench.package import require_package
from dmbench.sources.records import DATASETS, load_records

NOT_SENT = {"timeout": "timeout_seconds", "think": "think", "repeat_penalty": "repeat_penalty"}
"""The candidates' options the inspect path does not send (inspect has its own timeouts), by
their name in a run's settings, where they are stored as unset."""

MODEL_PLACEHOLDER = "inspect"
"""The candidate's model until the log says which inspect model ran (set on import)."""


def build_candidate(candidate: str, package: Path, settings: dict[str, Any]) -> LLMCandidate:
    """The LLM candidate ``dmbench generate`` would build from its spec, with the package's
    prompt files; ``settings`` may be any of the spec's options the inspect path sends."""
    spec = candidate_spec(candidate)
    if not spec.uses_llm:
        llm = [known.name for known in candidate_specs() if known.uses_llm]
        raise InputError(f"candidate {candidate!r} is not an LLM candidate; choose one of {llm}")
    sent = [option for option in spec.options if option not in NOT_SENT]
    unknown = sorted(set(settings) - set(sent))
    if unknown:
        raise InputError(
            f"task argument(s) {', '.join(unknown)} are not settings of {candidate} in the "
            "inspect task",
            hint=f"known: {', '.join(sent)}",
        )
    built = spec.factory(model=MODEL_PLACEHOLDER, prompts=package, **settings)
    assert isinstance(built, LLMCandidate)
    return built


def run_settings(candidate: LLMCandidate) -> dict[str, Any]:
    """The run's settings as ``dmbench generate`` stores them, less what is not sent."""
    return {**candidate.settings(), **dict.fromkeys(NOT_SENT.values())}


@task(name=TASK_NAME)
def domain_modelling(
    candidate: str = "calamo",
    dataset: str = "ds2",
    metric: str | None = None,
    judge: str | None = None,
    package: str | None = None,
    judge_view: str = "text",
    **settings: Any,
) -> Task:
    """The benchmark records of ``dataset`` through ``candidate``, scored with metrik-4 (and
    ``metric``, when another is named; ``judge``: also by that judge model, reading the
    diagrams' text or, with ``judge_view="image"``, seeing them drawn)."""
    try:
        return _task(candidate, dataset, metric, judge, package, settings, judge_view)
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
) -> Task:
    if dataset not in DATASETS:
        raise InputError(f"unknown dataset {dataset!r}; choose one of {', '.join(DATASETS)}")
    root = require_package(paths.package_dir(package), built=False)
    records = load_records(root, dataset)
    built = build_candidate(candidate, root, settings)
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
