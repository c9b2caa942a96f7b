"""Table 1: what the reference diagrams contain, per dataset and in total, under each reading.

The counts depend on how PlantUML is read, and the paper does not say which reading it used, so
the table is computed twice: ``compat`` (what metrik-4's parser sees, the reading behind every
published score) and ``standard`` (what PlantUML itself means). Where the two differ, the
metric saw a different diagram than the expert drew; ``dmbench errata`` reports the gaps.

Counting rules, chosen to follow the parsed model without interpretation:

* classes are the declared classes (abstract ones included); names that only occur in a
  relationship (implicit classes) are counted apart and not added;
* enums are standalone and nested enums; enum literals are their values;
* attributes are the attributes of the declared classes (enum literals are not attributes);
* every relationship has two endpoints; an endpoint carries a multiplicity when its cardinality
  is a non-empty string. An association class ``(A, B) .. C`` counts as one relationship.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.package import DATASETS
from dmbench.plantuml import READINGS, Diagram, parse
from dmbench.plantuml.model import RELATIONSHIP_KINDS
from dmbench.runs.opened import PackageSource, open_package

TOTAL = "total"
COUNT_FIELDS = (
    "records",
    "classes",
    "abstract_classes",
    "implicit_classes",
    "attributes",
    "enums",
    "enum_literals",
    "relationships",
    *(f"rel_{kind}" for kind in RELATIONSHIP_KINDS),
    "endpoints",
    "endpoints_with_multiplicity",
)
AVERAGED = ("classes", "attributes", "enums", "relationships")


@dataclass(frozen=True, slots=True)
class CorpusRow:
    """One dataset (or the total) under one reading."""

    reading: str
    dataset: str
    counts: dict[str, int]

    @property
    def multiplicity_pct(self) -> float:
        endpoints = self.counts["endpoints"]
        return 100.0 * self.counts["endpoints_with_multiplicity"] / endpoints if endpoints else 0.0

    def per_record(self, field: str) -> float:
        return self.counts[field] / self.counts["records"]

    def to_record(self) -> dict:
        record: dict = {"table": "table1", "reading": self.reading, "dataset": self.dataset}
        record.update(self.counts)
        record["multiplicity_pct"] = round(self.multiplicity_pct, 1)
        for field in AVERAGED:
            record[f"{field}_per_record"] = round(self.per_record(field), 2)
        return record


def diagram_counts(diagram: Diagram) -> dict[str, int]:
    """The Table 1 counts of one diagram."""
    enums = [*diagram.enums, *(e for c in diagram.classes for e in c.nested_enums)]
    counts = dict.fromkeys(COUNT_FIELDS, 0)
    counts.update(
        records=1,
        classes=len(diagram.classes),
        abstract_classes=sum(c.is_abstract for c in diagram.classes),
        implicit_classes=len(diagram.implicit_classes),
        attributes=sum(len(c.attributes) for c in diagram.classes),
        enums=len(enums),
        enum_literals=sum(len(e.values) for e in enums),
        relationships=len(diagram.relationships),
        endpoints=2 * len(diagram.relationships),
    )
    for rel in diagram.relationships:
        counts[f"rel_{rel.kind}"] += 1
        counts["endpoints_with_multiplicity"] += sum(
            bool(card) for card in (rel.source_cardinality, rel.target_cardinality)
        )
    return counts


def _add(total: dict[str, int], counts: dict[str, int]) -> None:
    for key, value in counts.items():
        total[key] += value


def corpus_table(package: PackageSource, readings: tuple[str, ...] = READINGS) -> list[CorpusRow]:
    """Table 1: one row per reading and dataset, then the total, in that order."""
    records = open_package(package).records()
    rows = []
    for reading in readings:
        total = dict.fromkeys(COUNT_FIELDS, 0)
        for dataset in DATASETS:
            counts = dict.fromkeys(COUNT_FIELDS, 0)
            for record in records:
                if record.dataset == dataset:
                    _add(counts, diagram_counts(parse(record.reference, reading)))
            _add(total, counts)
            rows.append(CorpusRow(reading, dataset, counts))
        rows.append(CorpusRow(reading, TOTAL, total))
    return rows
