"""Metrik-2: graph edit distance, optimal assignment (Čech 2019), domain-model-metrics 1.0.0.

Each diagram is a graph: a vertex per explicit class, an edge per unordered pair of explicit
classes holding the relationships between them (relationships to implicit classes or enums and
association classes are dropped). Vertices are assigned to vertices, and independently edges to
edges, by a minimum-cost assignment (upstream's ``scipy.optimize.linear_sum_assignment``, here
``_assignment``'s solver, which returns the same assignment), padded with unit deletion and
insertion costs:

* ``class_score`` is ``1 - V / max(|V1|, |V2|)``, V the total vertex cost: for two classes
  ``0.4`` of their normalised name distance, ``0.1`` if only one is abstract and ``0.5`` of the
  assignment distance of their attributes;
* ``association_score`` is ``1 - E / max(|E1|, |E2|)`` likewise, two relationships costing
  ``0.4`` of their kind distance and ``0.3`` of each end's (label, cardinality, navigability);
* ``attribute_score`` is ``1 - pen / mx``: substituted classes add their attribute distance
  (at most 1) over their larger attribute count, unmatched classes all their attributes.

Upstream's quirks are kept on purpose: two classes with the same name cost 0 whatever their
attributes, and so does an edge between the same two names whatever its relationships; a
cardinality is a set of integers (``*`` is 0..100), and a bound that ``int()`` does not read
(``"0..1*"``) is upstream's ``ValueError`` (here a ``MetricError`` with the same text), raised
only when an edge cost is computed, i.e. when both diagrams have an edge. Sums follow upstream's order (vertex and edge totals left to right,
substitutions, deletions, insertions; assignment sums as numpy adds them), so the scores are
bit-identical to a run of the upstream code, independent of the Python version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TypeVar

from dmbench.errors import MetricError
from dmbench.metrics._assignment import optimal_assignment
from dmbench.metrics._contract import require_valid
from dmbench.metrics._levenshtein import normalised_levenshtein
from dmbench.plantuml import parse
from dmbench.plantuml.model import Attribute, Class, Diagram

T = TypeVar("T")

#: The upper bound ``*`` stands for: a cardinality is a set of integers up to this.
MANY = 100
#: How upstream's crash on an unreadable cardinality bound starts (Python's own ``int()`` text).
CARDINALITY_CRASH = "invalid literal for int()"


#: What metrik-2 compares of a relationship: kind, label, source and target cardinality. A plain
#: tuple, so that memoising the distance of two of them hashes strings, not dataclasses.
Features = tuple[str, str | None, str | None, str | None]


@dataclass(frozen=True, slots=True)
class Edge:
    """All relationships between two explicit classes; ``id`` names the unordered pair."""

    id: str
    relationships: tuple[Features, ...]


@dataclass(frozen=True, slots=True)
class Substitution:
    """One vertex substitution of the graph edit and its cost, shown by ``--explain``."""
    reference: str
    generated: str
    cost: float


@dataclass(frozen=True, slots=True)
class Assignment:
    """The optimal assignment of one kind of element: substitutions in row order, the rest."""

    substitutions: tuple[Substitution, ...]
    deleted: tuple[str, ...]
    inserted: tuple[str, ...]
    size: int

    @property
    def cost(self) -> float:
        return _add(
            [s.cost for s in self.substitutions] + [1.0] * (len(self.deleted) + len(self.inserted))
        )

    @property
    def similarity(self) -> float:
        return _clamp(1.0 - self.cost / self.size) if self.size else 1.0

    def to_dict(self) -> dict:
        return {
            "cost": self.cost,
            "substituted": [[s.reference, s.generated, s.cost] for s in self.substitutions],
            "deleted": list(self.deleted),
            "inserted": list(self.inserted),
        }


@dataclass(frozen=True, slots=True)
class Explanation:
    """metrik-2's matching and penalties, from which its three scores follow."""
    vertices: Assignment
    edges: Assignment
    attribute_penalty: float
    attribute_maximum: float

    @property
    def class_score(self) -> float:
        return self.vertices.similarity

    @property
    def attribute_score(self) -> float:
        if self.attribute_maximum == 0:
            return 1.0
        return _clamp(1.0 - self.attribute_penalty / self.attribute_maximum)

    @property
    def association_score(self) -> float:
        return self.edges.similarity

    def to_dict(self) -> dict:
        return {
            "class_score": self.class_score,
            "attribute_score": self.attribute_score,
            "association_score": self.association_score,
            "vertices": self.vertices.to_dict(),
            "edges": self.edges.to_dict(),
            "attribute_penalty": self.attribute_penalty,
            "attribute_maximum": self.attribute_maximum,
        }


def explain(reference: str, generated: str) -> Explanation:
    """Metrik-2 of two PlantUML texts, read with the compat reading (reference first)."""
    return compare(_read(reference), _read(generated))


#: A reference recurs in every pair of its record: each distinct text is read once.
_read = partial(parse, reading="compat")


def compare(reference: Diagram, generated: Diagram) -> Explanation:
    """Metrik-2 of two parsed diagrams.

    Raises ``ContractViolation`` for a repeated name and a ``MetricError`` with upstream's
    ``ValueError`` text for a cardinality bound ``int()`` cannot read.
    """
    require_valid(reference, generated)
    ref_classes, gen_classes = reference.classes, generated.classes
    vertices = _assign(
        ref_classes,
        gen_classes,
        _vertex_cost,
        lambda c: c.name,
    )
    ref_edges, gen_edges = _edges(reference), _edges(generated)
    edges = _assign(ref_edges, gen_edges, _edge_cost, lambda e: e.id)
    by_name_ref = {c.name: c for c in ref_classes}
    by_name_gen = {c.name: c for c in gen_classes}
    penalty = maximum = 0.0
    for s in vertices.substitutions:
        first, second = by_name_ref[s.reference].attributes, by_name_gen[s.generated].attributes
        penalty += _set_distance(first, second, _attribute_distance)
        maximum += max(len(first), len(second))
    for name in vertices.deleted:
        penalty += len(by_name_ref[name].attributes)
        maximum += len(by_name_ref[name].attributes)
    for name in vertices.inserted:
        penalty += len(by_name_gen[name].attributes)
        maximum += len(by_name_gen[name].attributes)
    return Explanation(vertices, edges, penalty, maximum)


def _add(values: Sequence[float]) -> float:
    """Left-to-right float sum from integer 0, as Python 3.11's ``sum`` (3.12 compensates)."""
    total: float = 0
    for value in values:
        total = total + value
    return float(total)


def _npsum(values: Sequence[float]) -> float:
    """``numpy.ndarray.sum`` of float64 ``values``, bit for bit, without numpy.

    numpy adds fewer than 8 values left to right; up to 128 in eight interleaved running sums
    combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the remainder left
    to right; more by halves (the first a multiple of 8), recursively. Importing numpy for this
    cost a cold process 0.1 s, and its BLAS threads spin on an idle core;
    ``tests/metrics/test_metrics_units.py`` keeps numpy as the oracle.
    """
    return _pairwise_sum(values, 0, len(values))


def _pairwise_sum(values: Sequence[float], start: int, count: int) -> float:
    if count < 8:
        return _add(values[start : start + count])
    if count <= 128:
        sums = list(values[start : start + 8])
        whole = count - count % 8
        for block in range(start + 8, start + whole, 8):
            for lane in range(8):
                sums[lane] += values[block + lane]
        total = ((sums[0] + sums[1]) + (sums[2] + sums[3])) + (
            (sums[4] + sums[5]) + (sums[6] + sums[7])
        )
        for index in range(start + whole, start + count):
            total += values[index]
        return total
    half = count // 2
    half -= half % 8
    return _pairwise_sum(values, start, half) + _pairwise_sum(values, start + half, count - half)


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, value))


def _assign(
    first: Sequence[T],
    second: Sequence[T],
    cost: Callable[[T, T], float],
    name: Callable[[T], str],
) -> Assignment:
    """The optimal substitution of ``first`` by ``second``, padded to a square of unit costs."""
    size = max(len(first), len(second))
    if size == 0:
        return Assignment((), (), (), 0)
    matrix = _square([[cost(a, b) for b in second] for a in first], size)
    substitutions, deleted, inserted = [], [], []
    for i, j in enumerate(optimal_assignment(matrix)):
        if i < len(first) and j < len(second):
            substitutions.append(Substitution(name(first[i]), name(second[j]), matrix[i][j]))
        elif i < len(first):
            deleted.append(name(first[i]))
        elif j < len(second):
            inserted.append(name(second[j]))
    return Assignment(tuple(substitutions), tuple(deleted), tuple(inserted), size)


def _square(block: list[list[float]], size: int) -> list[list[float]]:
    """``block`` in the top-left corner of a ``size`` x ``size`` matrix of 1.0."""
    width = len(block[0]) if block else 0
    padding = [1.0] * (size - width)
    return [row + padding for row in block] + [[1.0] * size for _ in range(size - len(block))]


def _set_distance(
    first: Sequence[T], second: Sequence[T], distance: Callable[[T, T], float]
) -> float:
    """Mean cost of the optimal assignment between two lists, unmatched entries costing 1.

    Two shortcuts give the assignment's exact value without solving it: one entry on each side
    (the entry itself) and one side empty (all ones, so exactly 1.0).
    """
    if not first and not second:
        return 0.0
    if not first or not second:
        return 1.0
    if len(first) == 1 and len(second) == 1:
        return distance(first[0], second[0])
    return _assignment_distance(first, second, distance)


@lru_cache(maxsize=1 << 16)
def _assignment_distance(
    first: Sequence[T], second: Sequence[T], distance: Callable[[T, T], float]
) -> float:
    """Memoised: the same lists of attributes or relationships recur across classes and pairs."""
    size = max(len(first), len(second))
    matrix = _square([[distance(a, b) for b in second] for a in first], size)
    chosen = [matrix[i][j] for i, j in enumerate(optimal_assignment(matrix))]
    return _npsum(chosen) / size


def _attribute_distance(a: Attribute, b: Attribute) -> float:
    # Equal defaults (mostly none) add 0.1 * 0.0, that is 0.0, without computing it.
    defaults = 0.0
    if a.default_value != b.default_value:
        defaults = 0.1 * normalised_levenshtein(a.default_value or "", b.default_value or "")
    return (
        0.5 * normalised_levenshtein(a.name, b.name)
        + 0.3 * (a.type != b.type)
        + 0.1 * (a.is_constant != b.is_constant)
        + defaults
    )


def _vertex_cost(a: Class, b: Class) -> float:
    """0 for the same class name whatever the attributes, upstream's quirk."""
    if a.name == b.name:
        return 0.0
    return (
        0.4 * normalised_levenshtein(a.name, b.name)
        + 0.1 * (a.is_abstract != b.is_abstract)
        + 0.5 * _set_distance(a.attributes, b.attributes, _attribute_distance)
    )


def _edges(diagram: Diagram) -> list[Edge]:
    """Relationships between explicit classes, grouped by unordered pair in first-seen order."""
    explicit = {c.name for c in diagram.classes}
    grouped: dict[str, list[Features]] = {}
    for rel in diagram.relationships:
        if rel.source in explicit and rel.target in explicit:
            low, high = sorted((f"v_{rel.source}", f"v_{rel.target}"))
            features = (rel.kind, rel.label, rel.source_cardinality, rel.target_cardinality)
            grouped.setdefault(f"e_{low}_{high}", []).append(features)
    return [Edge(edge_id, tuple(rels)) for edge_id, rels in grouped.items()]


def _edge_cost(a: Edge, b: Edge) -> float:
    """0 for the same pair of class names; computed even then, as upstream can crash in it."""
    first, second = a.relationships, b.relationships
    if len(first) == 1 and len(second) == 1:  # most edges: the shortcut of ``_set_distance``
        distance = _relation_distance(first[0], second[0])
    else:
        distance = _set_distance(first, second, _relation_distance)
    return 0.0 if a.id == b.id else distance


@lru_cache(maxsize=1 << 16)
def _relation_distance(r: Features, s: Features) -> float:
    """Memoised: few distinct relationships recur across the edges of a study."""
    (kind, label, source, target), (other_kind, other_label, other_source, other_target) = r, s
    return (
        0.4 * _kind_distance(kind, other_kind)
        + 0.3 * _end_distance(label, other_label, source, other_source)
        + 0.3 * _end_distance(label, other_label, target, other_target)
    )


_ASSOCIATIONS = frozenset(("association", "directed"))
_WHOLE_PART = frozenset(("composition", "aggregation"))


@lru_cache(maxsize=64)
def _kind_distance(first: str, second: str) -> float:
    kinds = {first, second}
    if first == second:
        return 0.0
    if kinds <= _ASSOCIATIONS or kinds <= _WHOLE_PART:
        return 0.25
    if kinds & _WHOLE_PART and kinds & (_ASSOCIATIONS | {"inheritance"}):
        return 0.5
    if "inheritance" in kinds and kinds & _ASSOCIATIONS:
        return 0.5
    if "dependency" in kinds:
        return 0.75
    return 1.0


@lru_cache(maxsize=1 << 16)
def _end_distance(
    label: str | None, other_label: str | None, cardinality: str | None, other: str | None
) -> float:
    return (
        0.4 * normalised_levenshtein(label or "", other_label or "")
        + 0.4 * _jaccard_distance(cardinality, other)
        + 0.2 * ((cardinality is None) != (other is None))
    )


@lru_cache(maxsize=1 << 14)
def _jaccard_distance(cardinality: str | None, other: str | None) -> float:
    """Jaccard distance of the two integer sets (the first one read first, for the error)."""
    first, second = _cardinality_set(cardinality), _cardinality_set(other)
    if not first and not second:
        return 0.0
    if not first or not second:
        return 1.0
    return 1.0 - len(first & second) / len(first | second)


@lru_cache(maxsize=4096)
def _cardinality_set(cardinality: str | None) -> frozenset[int]:
    """The integers a cardinality allows; a bound ``int()`` cannot read is a ``MetricError``
    with upstream's ``ValueError`` text.

    Parts are split on ``,``; ``*`` is 0..100, ``a..b`` is a range (empty ``a`` is 0, ``*`` as
    ``b`` is 100), any other part counts if ``int()`` reads it and is ignored otherwise.
    """
    if cardinality is None:
        return frozenset()
    allowed: set[int] = set()
    for raw in cardinality.split(","):
        part = raw.strip()
        if part == "*":
            allowed.update(range(MANY + 1))
        elif ".." in part:
            allowed.update(_range(*(side.strip() for side in part.split("..", 1))))
        elif part:
            try:
                allowed.add(int(part))
            except ValueError:
                continue
    return frozenset(allowed)


def _range(lower: str, upper: str) -> range:
    try:
        return range(int(lower) if lower else 0, (MANY if upper == "*" else int(upper)) + 1)
    except ValueError as exc:
        raise MetricError(str(exc)) from exc
