"""Metrics that score a generated class diagram against a reference: metrik-4 and its variant.

``compute(reference, generated)`` gives the three published scores, ``explain`` every
intermediate, ``score_benchmark`` the benchmark's view of one pair (failures as data) and
``score_benchmark_many`` the same for many pairs, in parallel where it pays. ``compare`` is the
comparison itself on two parsed diagrams.
"""

from __future__ import annotations

from dmbench.metrics.metrik4 import Explanation, Match, compare, element_counts
from dmbench.metrics.nltk_data import download_nltk_data, require_nltk_data
from dmbench.metrics.scoring import (
    DEFAULT_METRIC,
    EMPTY_GENERATED_MODEL,
    METRICS,
    PUBLISHED_METRIC,
    SCORE_NAMES,
    STANDARD_METRIC,
    BenchmarkScore,
    Metric,
    Scores,
    compute,
    explain,
    get_metric,
    score_benchmark,
    score_benchmark_many,
)

__all__ = [
    "DEFAULT_METRIC",
    "EMPTY_GENERATED_MODEL",
    "METRICS",
    "PUBLISHED_METRIC",
    "SCORE_NAMES",
    "STANDARD_METRIC",
    "BenchmarkScore",
    "Explanation",
    "Match",
    "Metric",
    "Scores",
    "compare",
    "compute",
    "download_nltk_data",
    "element_counts",
    "explain",
    "get_metric",
    "require_nltk_data",
    "score_benchmark",
    "score_benchmark_many",
]
