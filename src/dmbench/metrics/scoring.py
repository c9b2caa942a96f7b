"""Metrics by name, the three-score interface, and the benchmark's view of a scored pair.

A metric takes two PlantUML strings. ``metrik-4`` reads them with the ``compat`` reading (what
the published numbers used), ``metrik-4-standard`` with the ``standard`` reading; the comparison
is the same. ``metrik-1``, ``-2``, ``-3`` and ``-5`` are the other metrics of the metric study
behind the paper's choice of metrik-4, each reading PlantUML as upstream does. The benchmark view
(:func:`score_benchmark`) is the one rule for turning a generation into three numbers, shared
by ``score-pairs`` and the scoring of runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, Protocol

from dmbench.core.registry import Registry
from dmbench.errors import MetricError, MissingPrerequisiteError
from dmbench.metrics import metrik1, metrik2, metrik3, metrik5
from dmbench.metrics._score_memo import remembered
from dmbench.metrics._wordsim import word_similarity
from dmbench.metrics.metrik4 import Explanation, compare
from dmbench.plantuml import CR_ONLY_LINE_ENDINGS, cr_only_line_endings, parse

if TYPE_CHECKING:  # the process pool is imported where used: 0.03 s of every cold pair
    import multiprocessing.context

EMPTY_GENERATED_MODEL = "empty_generated_model"
MAX_CLASSES = 100
MAX_ELEMENTS = 300
"""The largest diagram a metric scores: ``MAX_CLASSES`` classes and ``MAX_ELEMENTS``
attributes and relationships each (the largest reference or output of the benchmark has 23
classes, 48 attributes, 29 relationships). The comparisons match every element of one diagram
with every one of the other: two 2000-class diagrams took 149 s and 1.4 GB; two diagrams at the
bound take 4 s of CPU under metrik-4 (``benchmarks/bench_huge_pairs.py``)."""
METRIK3_BOUND = (30, 90)
"""metrik-3's subgraph search grows faster: 20 classes take 0.01 s, 30 classes 7 s."""


@dataclass(frozen=True, slots=True)
class Scores:
    """The three published scores of one pair, in the paper's order."""
    class_score: float
    attribute_score: float
    association_score: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


SCORE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Scores))
"""The three published scores, in the order the paper prints them."""


@dataclass(frozen=True, slots=True)
class BenchmarkScore:
    """Scores as a benchmark records them: a failed pair is 0/0/0 with the reason in ``error``."""

    class_score: float
    attribute_score: float
    association_score: float
    error: str | None = None

    def to_dict(self) -> dict[str, float | str | None]:
        return asdict(self)


class Explained(Protocol):
    """What a metric's ``explain`` returns: the three scores and every intermediate as JSON."""

    @property
    def class_score(self) -> float: ...
    @property
    def attribute_score(self) -> float: ...
    @property
    def association_score(self) -> float: ...
    def to_dict(self) -> dict: ...


@dataclass(frozen=True, slots=True)
class Metric:
    """A registered metric: an upstream comparison over the reading of PlantUML it used.

    ``explain(reference, generated)`` reads both texts and compares them; it raises
    ``ParseError`` or ``MetricError`` (both ``ValueError``) where upstream raises. ``settings``
    are fixed parameters of the metric itself (such as a search budget): part of what a score
    means.
    """

    name: str
    reading: str
    description: str
    explain: Callable[[str, str], Explained]
    settings: Mapping[str, Any] = field(default_factory=dict)
    bound: tuple[int, int] = (MAX_CLASSES, MAX_ELEMENTS)
    """The most classes, and attributes or relationships, of a diagram it scores."""

    def explained(self, reference: str, generated: str) -> Explained:
        """``explain``, each distinct pair computed once per process (see ``_score_memo``);
        a diagram beyond the size bound is refused before any comparison."""
        return remembered(
            self.name, reference, generated, lambda: self._bounded_explain(reference, generated)
        )

    def _bounded_explain(self, reference: str, generated: str) -> Explained:
        """``explain`` after the size bound, inside the memo: a remembered pair is not read
        again just to be checked."""
        for side, text in (("reference", reference), ("generated", generated)):
            _size_checked(side, text, self.reading, *self.bound)
        return self.explain(reference, generated)

    def compute(self, reference: str, generated: str) -> Scores:
        explanation = self.explained(reference, generated)
        return Scores(
            explanation.class_score, explanation.attribute_score, explanation.association_score
        )


def _size_checked(side: str, text: str, reading: str, max_classes: int, max_elements: int) -> None:
    """A ``MetricError`` in one line for a diagram beyond the bound; a text the reading cannot
    read is left to the metric, which says why in its own words."""
    try:
        diagram = parse(text, reading)
    except ValueError:
        return
    counts = {
        "classes": (len(diagram.all_class_names), max_classes),
        "attributes": (sum(len(c.attributes) for c in diagram.classes), max_elements),
        "relationships": (len(diagram.relationships), max_elements),
    }
    for what, (count, limit) in counts.items():
        if count > limit:
            raise MetricError(
                f"the {side} diagram has {count} {what}; this metric scores diagrams of at most "
                f"{max_classes} classes and {max_elements} attributes and relationships each"
            )


def _metrik4(reading: str, reference: str, generated: str) -> Explanation:
    reference_model, generated_model = parse(reference, reading), parse(generated, reading)
    if not reference_model.is_valid():
        raise MetricError("Invalid reference model")
    if not generated_model.is_valid():
        raise MetricError("Invalid generated model")
    return _compare(reference_model, generated_model)


#: By the parsed diagrams, not the texts: where the two readings agree (three texts in five),
#: metrik-4-standard reuses metrik-4's comparison.
_compare = lru_cache(maxsize=1 << 14)(compare)


PUBLISHED_METRIC = "metrik-4"
"""The metric of the published tables."""
STANDARD_METRIC = "metrik-4-standard"
"""The same comparison over the standard reading: what the parser's quirks cost."""
METRICS: Registry[Metric] = Registry("metric")
"""Every metric by name, in the order the tables list them; ``register_metric`` adds one."""


def register_metric(metric: Metric) -> Metric:
    """Make ``metric`` known by its name; a name already taken is refused, never overwritten."""
    return METRICS.add(metric.name, metric)


for _metric in (
    Metric(
        PUBLISHED_METRIC,
        "compat",
        "The published metric: upstream's parser, quirks included.",
        partial(_metrik4, "compat"),
    ),
    Metric(
        STANDARD_METRIC,
        "standard",
        "The same comparison over standard PlantUML.",
        partial(_metrik4, "standard"),
    ),
    Metric(
        "metrik-1",
        "compat",
        "Mistake detection (Singh et al. 2022); its parser keeps {static} attributes.",
        metrik1.explain,
    ),
    Metric(
        "metrik-2",
        "compat",
        "Graph edit distance with an optimal assignment (Cech 2019).",
        metrik2.explain,
    ),
    Metric(
        "metrik-3",
        "compat",
        "Common-subgraph structure and name F1 (Yuan et al. 2020), on a search-step budget.",
        metrik3.explain,
        {"search_step_budget": metrik3.SEARCH_STEP_BUDGET},
        METRIK3_BOUND,
    ),
    Metric(
        "metrik-5",
        "compat",
        "Triandini 2021, the structural half: graph edit distances of class stars and graph.",
        metrik5.explain,
    ),
):
    register_metric(_metric)
DEFAULT_METRIC = PUBLISHED_METRIC


def get_metric(name: str) -> Metric:
    """The metric registered as ``name``; an unknown name is an error listing the known ones."""
    return METRICS[name]


def compute(reference: str, generated: str, metric: str = DEFAULT_METRIC) -> Scores:
    """The three scores of ``generated`` against ``reference``; raises on unreadable input."""
    return get_metric(metric).compute(reference, generated)


def explain(reference: str, generated: str, metric: str = DEFAULT_METRIC) -> Explained:
    """Like :func:`compute`, with every intermediate and the class matching."""
    return get_metric(metric).explained(reference, generated)


def score_benchmark(reference: str, generated: str, metric: str = DEFAULT_METRIC) -> BenchmarkScore:
    """The benchmark view: an empty generation or any metric error scores 0/0/0 with a reason.

    A missing prerequisite (NLTK data) is not a property of the pair and is raised instead.
    """
    chosen = get_metric(metric)
    if not generated.strip():
        return BenchmarkScore(0.0, 0.0, 0.0, EMPTY_GENERATED_MODEL)
    try:
        scores = chosen.compute(reference, generated)
    except MissingPrerequisiteError:
        raise
    except Exception as exc:  # noqa: BLE001 - upstream records any metric failure as data
        return BenchmarkScore(0.0, 0.0, 0.0, str(exc))
    # Upstream's reading sees a CR-only text as one line; the score stays, but is not silent.
    warning = (
        CR_ONLY_LINE_ENDINGS if any(map(cr_only_line_endings, (reference, generated))) else None
    )
    return BenchmarkScore(
        scores.class_score, scores.attribute_score, scores.association_score, warning
    )


def score_benchmark_many(
    pairs: Iterable[tuple[str, str]],
    metric: str = DEFAULT_METRIC,
    workers: int | None = None,
) -> list[BenchmarkScore]:
    """:func:`score_benchmark` for each (reference, generated) pair, in input order.

    One process by default: the pairs share most of their Wu-Palmer lookups, and a worker starts
    with an empty memo, so on the 840 golden pairs two workers on two cores took twice as long
    as one process. ``workers`` > 1 spreads the pairs over that many processes for machines
    with many cores; WordNet is loaded before the pool starts so forked workers inherit it.
    """
    get_metric(metric)
    pairs = list(pairs)
    count = _worker_count(workers, len(pairs))
    if count <= 1:
        return [score_benchmark(ref, gen, metric) for ref, gen in pairs]
    from concurrent.futures import ProcessPoolExecutor

    word_similarity()
    size = -(-len(pairs) // (count * _CHUNKS_PER_WORKER))
    chunks = [pairs[i : i + size] for i in range(0, len(pairs), size)]
    with ProcessPoolExecutor(max_workers=count, mp_context=_pool_context()) as pool:
        scored = pool.map(_score_chunk, chunks, [metric] * len(chunks))
        return [score for chunk in scored for score in chunk]


#: Contiguous chunks keep pairs of one reference together; several per worker balance the load.
_CHUNKS_PER_WORKER = 4


def _worker_count(workers: int | None, n_pairs: int) -> int:
    return max(1, min(workers or 1, n_pairs))


def _pool_context() -> multiprocessing.context.BaseContext:
    """Fork where it is safe and available (Linux), so workers inherit the loaded WordNet."""
    import multiprocessing

    if sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def _score_chunk(pairs: Sequence[tuple[str, str]], metric: str) -> list[BenchmarkScore]:
    return [score_benchmark(ref, gen, metric) for ref, gen in pairs]
