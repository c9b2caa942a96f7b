"""Scores recomputed from a run's stored outputs: pure, nothing is stored here.

The rules that turn an output into three numbers (an empty generation scores 0/0/0 with
``empty_generated_model``, a metric error 0/0/0 with its message, a failed record that kept a
repaired diagram is scored like any other) are the benchmark view of the metric and live in
``dmbench.metrics``; this module only decides *what* is scored. The same (reference, generated)
pair occurs in many runs (rule_based's three runs are identical, LLMs repeat themselves), so each
distinct pair is scored once. ``dmbench.flows.changes`` stores the rows (origin ``recomputed``,
beside the published ones, never over them) under the package lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dmbench.metrics import DEFAULT_METRIC, BenchmarkScore, score_benchmark_many
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.pair_scores import PairScores, pair_key
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import Run
from dmbench.sources.records import BenchmarkRecord


def select_runs(package: PackageSource, run_ids: Sequence[str] | None = None) -> list[Run]:
    """The package's runs, or the named ones (an unknown name is an error, not a no-op)."""
    return open_package(package).select_runs(run_ids)


@dataclass(frozen=True, slots=True)
class Rescored:
    """The scores a re-scoring computed, per run, with how many distinct pairs it took and reused:
    what ``score`` reports."""
    metric: str
    rows: dict[str, tuple[ScoreRow, ...]]
    """Per run id, one row per output, in output order."""
    distinct_pairs: int
    reused: int = 0
    """Distinct pairs whose scores came from the kept scores (see ``pair_scores``)."""


def rescore(
    records: Sequence[BenchmarkRecord],
    runs: Sequence[Run],
    metric: str = DEFAULT_METRIC,
    workers: int | None = None,
    kept: PairScores | None = None,
) -> Rescored:
    """Score every output of ``runs`` with ``metric``, each distinct pair once; store nothing.

    A pair found in ``kept`` is not computed again; the pairs computed are added to it.
    """
    references = {r.record_id: r.reference for r in records}
    outputs = {run.info.run_id: run.outputs() for run in runs}
    pairs = list(
        dict.fromkeys(
            (references[o.record_id], o.generated) for rows in outputs.values() for o in rows
        )
    )
    keys = {pair: pair_key(metric, *pair) for pair in pairs} if kept is not None else {}
    scored = {
        pair: found
        for pair, key in keys.items()
        if kept is not None and (found := kept.get(key)) is not None
    }
    missing = [pair for pair in pairs if pair not in scored]
    computed = score_benchmark_many(missing, metric=metric, workers=workers) if missing else []
    for pair, score in zip(missing, computed, strict=True):
        scored[pair] = score
        if kept is not None:
            kept.put(keys[pair], score)
    result = {
        run_id: tuple(
            _row(
                run_id,
                output.record_id,
                metric,
                scored[(references[output.record_id], output.generated)],
            )
            for output in rows
        )
        for run_id, rows in outputs.items()
    }
    return Rescored(metric, result, len(pairs), len(pairs) - len(missing))


def _row(run_id: str, record_id: str, metric: str, score: BenchmarkScore) -> ScoreRow:
    return ScoreRow(
        run_id=run_id,
        record_id=record_id,
        metric=metric,
        origin="recomputed",
        class_score=score.class_score,
        attribute_score=score.attribute_score,
        association_score=score.association_score,
        error=score.error,
    )
