"""Tells: notation the blind form keeps that one side of a pair has and the other lacks.

The blind form drops every mark that only says who wrote a diagram, but it must keep what
carries meaning, and some of that is written mostly by the experts: dependencies (``..>``),
directed associations (``-->``), abstract classes, a multiplicity on one end only. A judge that
has learnt "the richer notation is the human's" can tell the reference from the output by them;
this module counts them per pair, as the judge sees the two diagrams, and ``--control detect``
measures whether the judge does.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from dmbench.judge.blind import multiplicity
from dmbench.plantuml import Diagram, ParseError, parse

FEATURES = (
    "dependency (..>)",
    "directed association (-->)",
    "abstract class",
    "multiplicity on one end only",
    "aggregation (o--)",
    "composition (*--)",
    "enum",
    "association class",
)


@lru_cache(maxsize=2048)
def diagram_of(plantuml: str, reference: bool = False) -> Diagram | None:
    """The diagram as the blind form reads it (an output: standard reading only), or None."""
    try:
        return parse(plantuml, "standard")
    except ParseError:
        if not reference:
            return None
    try:
        return parse(plantuml, "compat")
    except ParseError:
        return None


def class_count(diagram: Diagram | None) -> int:
    """Classes and enums, declared or only named in a relationship (0 for no diagram)."""
    if diagram is None:
        return 0
    return len(set(diagram.all_class_names) | {e.name for e in diagram.enums})


def features(diagram: Diagram | None) -> frozenset[str]:
    """The tells present in ``diagram``, as the blind form writes it."""
    if diagram is None:
        return frozenset()
    kinds = {rel.kind for rel in diagram.relationships}
    one_end = any(
        (multiplicity(rel.source_cardinality) is None)
        != (multiplicity(rel.target_cardinality) is None)
        for rel in diagram.relationships
        if rel.kind != "inheritance" and not rel.association_members
    )
    present = {
        "dependency (..>)": "dependency" in kinds,
        "directed association (-->)": "directed" in kinds,
        "abstract class": any(c.is_abstract for c in diagram.classes),
        "multiplicity on one end only": one_end,
        "aggregation (o--)": "aggregation" in kinds,
        "composition (*--)": "composition" in kinds,
        "enum": bool(diagram.enums) or any(c.nested_enums for c in diagram.classes),
        "association class": any(rel.association_members for rel in diagram.relationships),
    }
    return frozenset(name for name, there in present.items() if there)


def pair_tells(reference: str, generated: str) -> dict[str, list[str]]:
    """The tells only the reference has, and those only the output has."""
    ref = features(diagram_of(reference, reference=True))
    gen = features(diagram_of(generated))
    return {
        "reference_only": [f for f in FEATURES if f in ref - gen],
        "generated_only": [f for f in FEATURES if f in gen - ref],
    }


def tells_table(pairs: Iterable[tuple[str, str, str, str]]) -> dict[str, Any]:
    """Per pair ``(run_id, record_id, reference, generated)`` its tells, and per feature the
    share of references and of outputs that have it and the pairs where only the reference
    does."""
    rows, with_ref, with_gen = [], dict.fromkeys(FEATURES, 0), dict.fromkeys(FEATURES, 0)
    for run_id, record_id, reference, generated in pairs:
        ref = features(diagram_of(reference, reference=True))
        gen = features(diagram_of(generated))
        for name in ref:
            with_ref[name] += 1
        for name in gen:
            with_gen[name] += 1
        rows.append({"run_id": run_id, "record_id": record_id, **pair_tells(reference, generated)})
    n = len(rows)
    summary = [
        {
            "feature": name,
            "reference_share": with_ref[name] / n if n else None,
            "generated_share": with_gen[name] / n if n else None,
            "reference_only_pairs": sum(name in r["reference_only"] for r in rows),
        }
        for name in FEATURES
    ]
    return {
        "n_pairs": n,
        "n_pairs_with_reference_tell": sum(bool(r["reference_only"]) for r in rows),
        "summary": summary,
        "pairs": rows,
    }
