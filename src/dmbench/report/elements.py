"""Attributes and associations of an output set against the reference's, through metrik-4's class
pairs: what a reader checks after the classes (metrik-4 itself scores them by similarity and
reports no pairing, so this pairs by name, case-insensitively, within the classes it paired)."""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.errors import ParseError
from dmbench.metrics import Explanation
from dmbench.plantuml import Diagram, parse


@dataclass(frozen=True, slots=True)
class Matching:
    matched: tuple[str, ...]
    missing: tuple[str, ...]
    """In the reference, with no counterpart in the output."""
    extra: tuple[str, ...]
    """In the output, with no counterpart in the reference."""


@dataclass(frozen=True, slots=True)
class ElementMatching:
    attributes: Matching
    associations: Matching


def _attribute_matching(reference: Diagram, generated: Diagram, pairs: dict[str, str]) -> Matching:
    unclaimed = {c.name: {a.name.lower(): a.name for a in c.attributes} for c in generated.classes}
    matched, missing = [], []
    for cls in reference.classes:
        counterpart = unclaimed.get(pairs.get(cls.name, ""), {})
        for attribute in cls.attributes:
            found = counterpart.pop(attribute.name.lower(), None) is not None
            (matched if found else missing).append(f"{cls.name}.{attribute.name}")
    extra = [f"{name}.{a}" for name, left in unclaimed.items() for a in left.values()]
    return Matching(tuple(matched), tuple(missing), tuple(extra))


def _association_matching(
    reference: Diagram, generated: Diagram, pairs: dict[str, str]
) -> Matching:
    remaining = [frozenset((r.source, r.target)) for r in generated.relationships]
    shown = [f"{r.source} – {r.target}" for r in generated.relationships]
    matched, missing = [], []
    for relationship in reference.relationships:
        label = f"{relationship.source} – {relationship.target}"
        ends = frozenset((pairs.get(relationship.source), pairs.get(relationship.target)))
        if ends in remaining:
            index = remaining.index(ends)
            remaining[index] = frozenset()
            matched.append(label)
        else:
            missing.append(label)
    extra = [shown[i] for i, ends in enumerate(remaining) if ends]
    return Matching(tuple(matched), tuple(missing), tuple(extra))


def element_matching(
    reference: str, generated: str, explanation: Explanation | None
) -> ElementMatching | None:
    """None when metrik-4 explained nothing or either diagram is unreadable (compat reading)."""
    if explanation is None:
        return None
    try:
        ours, theirs = parse(reference, "compat"), parse(generated, "compat")
    except ParseError:
        return None
    pairs = {m.reference: m.generated for m in explanation.class_matching}
    return ElementMatching(
        _attribute_matching(ours, theirs, pairs), _association_matching(ours, theirs, pairs)
    )
