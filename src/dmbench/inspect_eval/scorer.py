"""The benchmark view of a metric as an inspect scorer: three scores, 0/0/0 with its reason.

Scored exactly as ``dmbench score-pairs`` scores (``score_benchmark``), on the diagram the
candidate stored (an empty one when it produced none) against the sample's reference.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from dmbench.inspect_eval.solver import OUTPUT_KEY
from dmbench.metrics import DEFAULT_METRIC, SCORE_NAMES, score_benchmark


def generated_of(state: TaskState) -> str:
    """The candidate's diagram; the empty diagram when the solver stored nothing."""
    outcome = state.store.get(OUTPUT_KEY) or {}
    return outcome.get("generated") or ""


@scorer(metrics={name: [mean(), stderr()] for name in SCORE_NAMES})
def benchmark_score(metric: str = DEFAULT_METRIC) -> Scorer:
    """``metric``'s class, attribute and association scores of the generated diagram."""

    async def score(state: TaskState, target: Target) -> Score:
        generated = generated_of(state)
        # metrik-4's memo is not shared between threads: scored on the loop, one at a time
        result = score_benchmark(target.text, generated, metric)
        values = {name: getattr(result, name) for name in SCORE_NAMES}
        return Score(
            value=values, answer=generated, explanation=result.error, metadata={"metric": metric}
        )

    return score
