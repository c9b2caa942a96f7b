"""Metrik-1: mistake detection (Singh, Boubekeur & Mussbacher 2022), domain-model-metrics 1.0.0.

The generated diagram is graded like a student's model against the instructor's (the
reference): classes are mapped in three greedy stages, relationships by a priority score, and
every mistake found lowers a score by its share of all elements of both diagrams:

* ``class_score``: renamed classes plus unmapped classes on either side, over all classes;
* ``attribute_score``: missing, extra and wrongly typed attributes of mapped classes (one per
  student class and attribute name), over all attributes;
* ``association_score``: distinct unordered class-name pairs of the mistaken relationships
  (unmapped on either side, or mapped with another kind, cardinality or direction), over all
  relationships.

Only explicit classes take part; enums and implicit classes do not, so a relationship to an
undeclared class is always a mistake. Association classes are never matched and never a
mistake, but count in the denominator. Names are compared exactly; the mapping ranks
candidates by Levenshtein distance, attribute overlap and then names, so it is deterministic.
Metrik-1 reads PlantUML with its own copy of the upstream parser, which keeps ``{static}``
attributes (``parse_compat(..., keep_static=True)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.metrics._contract import require_valid
from dmbench.metrics._levenshtein import levenshtein
from dmbench.plantuml import memoised, parse_compat
from dmbench.plantuml.model import Class, Diagram, Relationship

EXACT = "exact"
RENAME = "rename"


@dataclass(frozen=True, slots=True)
class ClassPair:
    """A reference class mapped to a generated one; ``kind`` is ``exact`` or ``rename``."""

    reference: str
    generated: str
    kind: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """Mistake counts over element counts; the scores are ``1 - mistakes / elements``."""

    class_mistakes: int
    classes: int
    attribute_mistakes: int
    attributes: int
    association_mistakes: int
    relationships: int
    class_mapping: tuple[ClassPair, ...]

    @property
    def class_score(self) -> float:
        return _score(self.class_mistakes, self.classes)

    @property
    def attribute_score(self) -> float:
        return _score(self.attribute_mistakes, self.attributes)

    @property
    def association_score(self) -> float:
        return _score(self.association_mistakes, self.relationships)

    def to_dict(self) -> dict:
        return {
            "class_score": self.class_score,
            "attribute_score": self.attribute_score,
            "association_score": self.association_score,
            "mistakes": {
                "class": {"mistakes": self.class_mistakes, "elements": self.classes},
                "attribute": {"mistakes": self.attribute_mistakes, "elements": self.attributes},
                "association": {
                    "mistakes": self.association_mistakes,
                    "elements": self.relationships,
                },
            },
            "class_mapping": [
                {"reference": p.reference, "generated": p.generated, "kind": p.kind}
                for p in self.class_mapping
            ],
        }


def explain(reference: str, generated: str) -> Explanation:
    """Metrik-1 of two PlantUML texts, read with metrik-1's parser (reference first)."""
    return compare(_read(reference), _read(generated))


def _parse(text: str) -> Diagram:
    """Metrik-1's parser; a reference recurs in every pair of its record, so reads are shared."""
    return parse_compat(text, keep_static=True)


_read = memoised(_parse)


def compare(reference: Diagram, generated: Diagram) -> Explanation:
    """Metrik-1 of two parsed diagrams; raises ``ContractViolation`` for a repeated name."""
    require_valid(reference, generated)
    mapping = _map_classes(reference.classes, generated.classes)
    mapped = {ref.name: gen.name for ref, gen, _kind in mapping}
    class_mistakes = (
        sum(1 for _ref, _gen, kind in mapping if kind == RENAME)
        + len(reference.classes)
        - len(mapping)
        + len(generated.classes)
        - len(mapping)
    )
    # Upstream counts distinct (generated class, attribute name) pairs; a generated class is
    # mapped at most once, so that is the sum of the per-class counts.
    attribute_mistakes = sum([len(_attribute_mistakes(ref, gen)) for ref, gen, _kind in mapping])
    return Explanation(
        class_mistakes=class_mistakes,
        classes=len(reference.classes) + len(generated.classes),
        attribute_mistakes=attribute_mistakes,
        attributes=sum([len(c.attributes) for c in (*reference.classes, *generated.classes)]),
        association_mistakes=len(_relationship_mistakes(reference, generated, mapped)),
        relationships=len(reference.relationships) + len(generated.relationships),
        class_mapping=tuple(ClassPair(ref.name, gen.name, kind) for ref, gen, kind in mapping),
    )


def _score(mistakes: int, elements: int) -> float:
    return max(0.0, 1.0 - mistakes / max(1, elements))


def _overlap(reference: Class, names: frozenset[str]) -> float:
    """Percentage of the reference class's attributes (repeats counted) among ``names``."""
    if not reference.attributes:
        return 0.0
    shared = len([a for a in reference.attributes if a.name in names])
    return (shared / len(reference.attributes)) * 100.0


def _map_classes(
    reference: tuple[Class, ...], generated: tuple[Class, ...]
) -> list[tuple[Class, Class, str]]:
    """Upstream's three greedy stages: close names, contained names, shared attributes.

    The attribute names of a generated class are collected once. The name distances are asked
    pair by pair: RapidFuzz's ``cdist`` would answer in one call, but returns a numpy array, and
    importing numpy (whose BLAS threads then spin on an idle core) cost more than it saved.
    """
    if not reference or not generated:
        return []
    gen_names = [c.name for c in generated]
    distances = [[levenshtein(ref.name, name) for name in gen_names] for ref in reference]
    attribute_names = [frozenset([a.name for a in gen.attributes]) for gen in generated]
    close: list[tuple[tuple[int, float, str, str], Class, Class]] = []
    contained: list[tuple[tuple[int, float, str, str], Class, Class]] = []
    for ref, row in zip(reference, distances):
        for j, distance in enumerate(row):
            gen_name = gen_names[j]
            if distance <= 2:
                candidates = close
            elif ref.name in gen_name or gen_name in ref.name:
                candidates = contained
            else:
                continue
            key = (distance, -_overlap(ref, attribute_names[j]), gen_name, ref.name)
            candidates.append((key, ref, generated[j]))
    mapping: list[tuple[Class, Class, str]] = []
    taken_ref: set[str] = set()
    taken_gen: set[str] = set()

    def accept(candidates: list, kind_of) -> None:
        for _key, ref, gen in sorted(candidates, key=lambda c: c[0]):
            if ref.name not in taken_ref and gen.name not in taken_gen:
                taken_ref.add(ref.name)
                taken_gen.add(gen.name)
                mapping.append((ref, gen, kind_of(ref, gen)))

    accept(close, lambda ref, gen: EXACT if ref.name == gen.name else RENAME)
    accept(contained, lambda _ref, _gen: RENAME)
    by_overlap = []
    for ref, row in zip(reference, distances):
        if ref.name in taken_ref or not ref.attributes:
            continue
        for j, gen in enumerate(generated):
            if gen.name in taken_gen:
                continue
            overlap = _overlap(ref, attribute_names[j])
            if overlap >= 50.0:
                by_overlap.append(((-overlap, row[j], gen.name, ref.name), ref, gen))
    accept(by_overlap, lambda _ref, _gen: RENAME)
    return mapping


def _attribute_mistakes(reference: Class, generated: Class) -> set[str]:
    """Names missing, extra or typed differently in the generated class (exact names)."""
    ref_types = {a.name: a.type for a in reference.attributes}
    gen_types = {a.name: a.type for a in generated.attributes}
    shared = ref_types.keys() & gen_types.keys()
    retyped = {name for name in shared if ref_types[name] != gen_types[name]}
    return (ref_types.keys() ^ gen_types.keys()) | retyped


def _relationship_mistakes(
    reference: Diagram, generated: Diagram, mapped: dict[str, str]
) -> set[frozenset[str]]:
    """The unordered name pairs of every relationship that is unmapped or mapped with a fault."""
    ref_rels = [r for r in reference.relationships if r.kind != "association_class"]
    gen_rels = [s for s in generated.relationships if s.kind != "association_class"]
    by_ends: dict[tuple[str, str], list[int]] = {}
    for j, s in enumerate(gen_rels):
        by_ends.setdefault((s.source, s.target), []).append(j)
    candidates = []
    for i, r in enumerate(ref_rels):
        if r.source not in mapped or r.target not in mapped:
            continue
        source, target = mapped[r.source], mapped[r.target]
        same = [(j, False) for j in by_ends.get((source, target), ())]
        # A relationship between a class and itself is found the same way round, never inverted.
        inverted = (
            [(j, True) for j in by_ends.get((target, source), ())] if source != target else []
        )
        for j, is_inverted in same + inverted:
            s = gen_rels[j]
            priority = _priority(r, s, is_inverted)
            candidates.append(((-priority, s.source, s.target, i, j), i, j, is_inverted))
    mistakes: set[frozenset[str]] = set()
    used_ref: set[int] = set()
    used_gen: set[int] = set()
    for _key, i, j, flipped in sorted(candidates, key=lambda c: c[0]):
        if i in used_ref or j in used_gen:
            continue
        used_ref.add(i)
        used_gen.add(j)
        r, s = ref_rels[i], gen_rels[j]
        if flipped or r.kind != s.kind or not _same_cardinalities(r, s, flipped):
            mistakes.add(frozenset((r.source, r.target)))
    unmapped = [r for i, r in enumerate(ref_rels) if i not in used_ref]
    unmapped += [s for j, s in enumerate(gen_rels) if j not in used_gen]
    mistakes.update(frozenset((rel.source, rel.target)) for rel in unmapped)
    return mistakes


def _priority(r: Relationship, s: Relationship, inverted: bool) -> int:
    return (
        (100 if r.kind == s.kind else 0)
        + (10 if r.label == s.label else 0)
        + (5 if _same_cardinalities(r, s, inverted) else 0)
        + (0 if inverted else 1)
    )


def _same_cardinalities(r: Relationship, s: Relationship, inverted: bool) -> bool:
    if inverted:
        return (r.source_cardinality, r.target_cardinality) == (
            s.target_cardinality,
            s.source_cardinality,
        )
    return (r.source_cardinality, r.target_cardinality) == (
        s.source_cardinality,
        s.target_cardinality,
    )
