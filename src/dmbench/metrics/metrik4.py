"""Metrik-4: the semantic similarity of Triandini et al. (2021), as domain-model-metrics 1.0.0.

Of the three scores, ``attribute_score`` is the property similarity (classes matched greedily by
name and attributes), ``association_score`` the relationship similarity (associations,
dependencies and generalisations, each matched greedily and weighted by its share of all edges)
and ``class_score`` their blend ``clamp(0.7 * propSim + 0.3 * relSim)``. Pairs are weighted as
upstream: a class pair ``0.571 * name + 0.429 * attributes`` (the paper's 0.4/0.3 renormalised
because PlantUML operations are not parsed), an attribute pair ``0.1 * modifier + 0.7 * name +
0.2 * type``, an association ``0.3 * source + 0.2 * label + 0.2 * ownership + 0.3 * target``, a
dependency or generalisation the mean of its two ends. Names are compared by ``_wordsim``.

Upstream also computes a structural similarity (graph edit distance between the class graphs)
and blends it with the semantic one into an overall similarity, but it returns only the three
semantic values above, so the structural part can never change a published score. It is the
expensive half of the upstream metric and is not computed here.

Every float operation follows upstream in order and operand types so that the results are
bit-identical: weights are applied left to right, a set similarity is ``2 * sum / (n1 + n2)``
and the greedy matching adds its picks in the order it makes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from dmbench.metrics._normalise import Attribute, Class, Edge, Normalised, normalise
from dmbench.metrics._wordsim import WordSimilarity, word_similarity
from dmbench.plantuml.model import Diagram

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True, slots=True)
class Pair:
    """Two elements the greedy matching paired, with the similarity it added for them."""

    reference: str
    generated: str
    similarity: float


@dataclass(frozen=True, slots=True)
class SetMatching:
    """One set similarity, ``2 * sum of the picks / (n_reference + n_generated)``, as computed:
    every element of both sets (labelled) and the pairs picked, in the order picked."""

    reference: tuple[str, ...]
    generated: tuple[str, ...]
    pairs: tuple[Pair, ...]
    similarity: float

    @property
    def picked(self) -> float:
        """The sum of the picks' similarities, added in the order they were made."""
        total = 0.0
        for pair in self.pairs:
            total += pair.similarity
        return total

    @property
    def missing(self) -> tuple[str, ...]:
        """Reference elements paired with nothing."""
        return _unpaired(self.reference, [p.reference for p in self.pairs])

    @property
    def extra(self) -> tuple[str, ...]:
        """Generated elements paired with nothing."""
        return _unpaired(self.generated, [p.generated for p in self.pairs])


def _unpaired(labels: tuple[str, ...], paired: list[str]) -> tuple[str, ...]:
    left = list(paired)
    unpaired = []
    for label in labels:
        if label in left:
            left.remove(label)
        else:
            unpaired.append(label)
    return tuple(unpaired)


@dataclass(frozen=True, slots=True)
class Match:
    """One class pair chosen by the greedy matching, with its class similarity
    ``0.571 * name_similarity + 0.429 * attributes.similarity``."""

    reference: str
    generated: str
    similarity: float
    name_similarity: float | None = None
    attributes: SetMatching | None = None


@dataclass(frozen=True, slots=True)
class Explanation:
    """Every intermediate of one comparison; ``class_score`` etc. are the published view."""

    semantic: float
    propSim: float
    relSim: float
    raSim: float
    rdSim: float
    rgSim: float
    counts_reference: dict[str, int]
    counts_generated: dict[str, int]
    class_matching: tuple[Match, ...]
    reference_classes: tuple[str, ...] = ()
    generated_classes: tuple[str, ...] = ()
    """Every class (enums and implicit classes included) as the metric saw it, in order."""
    associations: SetMatching | None = None
    """raSim with its pairs; ``dependencies`` (rdSim) and ``generalizations`` (rgSim) alike."""
    dependencies: SetMatching | None = None
    generalizations: SetMatching | None = None

    @property
    def classes(self) -> SetMatching:
        """propSim as the set similarity it is: every class and the class pairs."""
        pairs = tuple(Pair(m.reference, m.generated, m.similarity) for m in self.class_matching)
        return SetMatching(self.reference_classes, self.generated_classes, pairs, self.propSim)

    @property
    def missing_classes(self) -> tuple[str, ...]:
        """Reference classes the greedy matching paired with nothing."""
        matched = {m.reference for m in self.class_matching}
        return tuple(name for name in self.reference_classes if name not in matched)

    @property
    def extra_classes(self) -> tuple[str, ...]:
        """Generated classes the greedy matching paired with nothing."""
        matched = {m.generated for m in self.class_matching}
        return tuple(name for name in self.generated_classes if name not in matched)

    @property
    def class_score(self) -> float:
        return _clamp(self.semantic)

    @property
    def attribute_score(self) -> float:
        return _clamp(self.propSim)

    @property
    def association_score(self) -> float:
        return _clamp(self.relSim)

    def to_dict(self) -> dict:
        return {
            "class_score": self.class_score,
            "attribute_score": self.attribute_score,
            "association_score": self.association_score,
            "intermediates": {
                "semantic": self.semantic,
                "propSim": self.propSim,
                "relSim": self.relSim,
                "raSim": self.raSim,
                "rdSim": self.rdSim,
                "rgSim": self.rgSim,
            },
            "counts_reference": self.counts_reference,
            "counts_generated": self.counts_generated,
            "class_matching": [
                {"reference": m.reference, "generated": m.generated, "similarity": m.similarity}
                for m in self.class_matching
            ],
            "missing_classes": list(self.missing_classes),
            "extra_classes": list(self.extra_classes),
        }


def compare(reference: Diagram, generated: Diagram) -> Explanation:
    """Metrik-4 of two valid diagrams (see ``Diagram.is_valid``), with all intermediates."""
    return _Comparison(word_similarity()).run(normalise(reference), normalise(generated))


def element_counts(diagram: Diagram) -> dict[str, int]:
    """The diagram's classes, attributes and edges of each kind, as metrik-4 counts them."""
    return normalise(diagram).counts()


def greedy_matching(matrix: Sequence[Sequence[float]]) -> tuple[float, list[tuple[int, int]]]:
    """Upstream's greedy assignment: take the largest entry, drop its row and column, repeat.

    Ties go to the first maximum in row-major order. Returns the sum of the picks, added in the
    order they were made, and the (row, column) picks. Upstream searches the whole matrix for
    each pick (cubic: seconds for two 300-class diagrams); walking the entries once, largest
    first and ties in row-major order (a stable sort), skipping those whose row or column is
    taken, makes the same picks. Once only zeros remain upstream, which zeroes dropped cells,
    may re-pick a dropped one where this picks a live zero; both add 0.0. Plain Python (the
    matrices are small): importing numpy was a tenth of a cold pair's CPU.
    """
    rows = len(matrix)
    cols = len(matrix[0]) if rows else 0
    values = [float(value) for row in matrix for value in row]
    total = 0.0
    picks: list[tuple[int, int]] = []
    row_taken, col_taken = [False] * rows, [False] * cols
    for flat in sorted(range(len(values)), key=values.__getitem__, reverse=True):
        row, col = divmod(flat, cols)
        if row_taken[row] or col_taken[col]:
            continue
        total += values[flat]
        picks.append((row, col))
        if len(picks) == min(rows, cols):
            break
        row_taken[row] = col_taken[col] = True
    return total, picks


def _set_similarity(
    first: Sequence[T], second: Sequence[U], pair: Callable[[T, U], float]
) -> tuple[float, list[tuple[int, int, float]]]:
    """``2 * greedy sum / (n1 + n2)`` and the picks with their values.

    1.0 for two empty sets, 0.0 if only one is empty.
    """
    if not first and not second:
        return 1.0, []
    if not first or not second:
        return 0.0, []
    matrix = [[float(pair(a, b)) for b in second] for a in first]
    total, picks = greedy_matching(matrix)
    scored = [(row, col, matrix[row][col]) for row, col in picks]
    return (2.0 * total) / (len(first) + len(second)), scored


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, float(value)))


class _Comparison:
    def __init__(self, words: WordSimilarity) -> None:
        self._similarity = words.similarity

    def run(self, reference: Normalised, generated: Normalised) -> Explanation:
        prop, picks = _set_similarity(reference.classes, generated.classes, self._class)
        ra, ra_picks = _set_similarity(
            reference.associations, generated.associations, self._association
        )
        rd, rd_picks = _set_similarity(
            reference.dependencies, generated.dependencies, self._end_to_end
        )
        rg, rg_picks = _set_similarity(
            reference.generalizations, generated.generalizations, self._end_to_end
        )
        rel = _relationship_similarity(reference, generated, ra, rd, rg)
        matching = tuple(
            self._class_pair(reference.classes[i], generated.classes[j], value)
            for i, j, value in picks
        )
        return Explanation(
            semantic=_clamp(0.7 * prop + 0.3 * rel),
            propSim=prop,
            relSim=rel,
            raSim=ra,
            rdSim=rd,
            rgSim=rg,
            counts_reference=reference.counts(),
            counts_generated=generated.counts(),
            class_matching=matching,
            reference_classes=tuple(c.name for c in reference.classes),
            generated_classes=tuple(c.name for c in generated.classes),
            associations=_edges(reference.associations, generated.associations, ra, ra_picks),
            dependencies=_edges(reference.dependencies, generated.dependencies, rd, rd_picks),
            generalizations=_edges(
                reference.generalizations, generated.generalizations, rg, rg_picks
            ),
        )

    def _class_pair(self, first: Class, second: Class, value: float) -> Match:
        """A picked class pair with the parts of its similarity, computed as ``_class`` does."""
        attributes, picks = _set_similarity(first.attributes, second.attributes, self._attribute)
        return Match(
            first.name,
            second.name,
            value,
            self._similarity(first.name, second.name),
            SetMatching(
                tuple(a.name for a in first.attributes),
                tuple(a.name for a in second.attributes),
                tuple(
                    Pair(first.attributes[i].name, second.attributes[j].name, v)
                    for i, j, v in picks
                ),
                attributes,
            ),
        )

    def _class(self, first: Class, second: Class) -> float:
        name = self._similarity(first.name, second.name)
        attributes, _ = _set_similarity(first.attributes, second.attributes, self._attribute)
        return 0.571 * name + 0.429 * attributes

    def _attribute(self, first: Attribute, second: Attribute) -> float:
        return (
            0.1 * _same(first.modifier, second.modifier)
            + 0.7 * self._similarity(first.name, second.name)
            + 0.2 * _same(first.type, second.type)
        )

    def _association(self, first: Edge, second: Edge) -> float:
        return (
            0.3 * self._similarity(first.source, second.source)
            + 0.2 * self._similarity(first.name, second.name)
            + 0.2 * (1.0 if first.ownership == second.ownership else 0.0)
            + 0.3 * self._similarity(first.target, second.target)
        )

    def _end_to_end(self, first: Edge, second: Edge) -> float:
        return (
            self._similarity(first.source, second.source)
            + self._similarity(first.target, second.target)
        ) / 2.0


def edge_label(edge: Edge) -> str:
    """An edge as a reader finds it in the diagram: ``source -> target``, with its name."""
    owned = f" ({edge.ownership})" if edge.ownership not in ("", "none") else ""
    named = f" \"{edge.name}\"" if edge.name else ""
    return f"{edge.source} → {edge.target}{named}{owned}"


def _edges(
    reference: Sequence[Edge],
    generated: Sequence[Edge],
    similarity: float,
    picks: list[tuple[int, int, float]],
) -> SetMatching:
    return SetMatching(
        tuple(edge_label(e) for e in reference),
        tuple(edge_label(e) for e in generated),
        tuple(Pair(edge_label(reference[i]), edge_label(generated[j]), v) for i, j, v in picks),
        similarity,
    )


def _same(first: str, second: str) -> float:
    return 1.0 if first.lower() == second.lower() else 0.0


def _relationship_similarity(
    reference: Normalised, generated: Normalised, ra: float, rd: float, rg: float
) -> float:
    """Each edge kind weighted by its share of all edges in both diagrams; 1.0 with no edges."""
    n_ra = len(reference.associations) + len(generated.associations)
    n_rd = len(reference.dependencies) + len(generated.dependencies)
    n_rg = len(reference.generalizations) + len(generated.generalizations)
    total = n_ra + n_rd + n_rg
    if total == 0:
        return 1.0
    return _clamp((n_ra / total) * ra + (n_rd / total) * rd + (n_rg / total) * rg)
