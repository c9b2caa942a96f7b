"""The typed model of a PlantUML class diagram.

Frozen dataclasses with tuples, so a model is a value: two readings of the same text can be
compared with ``==`` and a model can be hashed or cached. The fields are those of the upstream
parser's model (``strict.model`` in the golden ``parsed.jsonl``); ``to_dict``/``from_dict`` use
that exact JSON shape.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

RelationshipKind = Literal[
    "association",
    "directed",
    "inheritance",
    "composition",
    "aggregation",
    "dependency",
    "association_class",
]
RELATIONSHIP_KINDS: tuple[str, ...] = (
    "association",
    "directed",
    "inheritance",
    "composition",
    "aggregation",
    "dependency",
    "association_class",
)


@dataclass(frozen=True, slots=True)
class Attribute:
    name: str
    type: str | None = None
    default_value: str | None = None
    is_constant: bool = False


@dataclass(frozen=True, slots=True)
class Enum:
    name: str
    values: tuple[str, ...] = ()
    is_inline: bool = False


@dataclass(frozen=True, slots=True)
class Class:
    name: str
    is_abstract: bool = False
    attributes: tuple[Attribute, ...] = ()
    nested_enums: tuple[Enum, ...] = ()


@dataclass(frozen=True, slots=True)
class Relationship:
    kind: RelationshipKind
    source: str
    target: str
    source_cardinality: str | None = None
    target_cardinality: str | None = None
    label: str | None = None
    association_members: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Note:
    content: str
    position: str


@dataclass(frozen=True, slots=True)
class Diagram:
    classes: tuple[Class, ...] = ()
    enums: tuple[Enum, ...] = ()
    relationships: tuple[Relationship, ...] = ()
    notes: tuple[Note, ...] = ()
    implicit_classes: tuple[str, ...] = field(default=())

    @property
    def all_class_names(self) -> tuple[str, ...]:
        return tuple(sorted({c.name for c in self.classes} | set(self.implicit_classes)))

    def is_valid(self) -> bool:
        """The upstream ``isValidParsedModel``: unique names, no relationship to an unknown class."""
        names = [c.name for c in self.classes]
        if len(names) != len(set(names)):
            return False
        enum_names = [e.name for e in self.enums] + [
            e.name for c in self.classes for e in c.nested_enums
        ]
        if len(enum_names) != len(set(enum_names)):
            return False
        known = set(self.all_class_names)
        for rel in self.relationships:
            ends = (
                (*rel.association_members, rel.target)
                if rel.association_members
                else (rel.source, rel.target)
            )
            if any(end not in known for end in ends):
                return False
        return True

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of upstream's ``ParsedModel`` (``strict.model`` in ``parsed.jsonl``)."""
        return {
            "classes": [
                {
                    "name": c.name,
                    "is_abstract": c.is_abstract,
                    "attributes": [_attribute_dict(a) for a in c.attributes],
                    "nested_enums": [_enum_dict(e) for e in c.nested_enums],
                }
                for c in self.classes
            ],
            "enums": [_enum_dict(e) for e in self.enums],
            "relationships": [
                {
                    "type": r.kind,
                    "source": r.source,
                    "target": r.target,
                    "source_cardinality": r.source_cardinality,
                    "target_cardinality": r.target_cardinality,
                    "label": r.label,
                    "association_members": (
                        list(r.association_members) if r.association_members else None
                    ),
                }
                for r in self.relationships
            ],
            "notes": [{"content": n.content, "position": n.position} for n in self.notes],
            "implicit_classes": list(self.implicit_classes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagram:
        return cls(
            classes=tuple(
                Class(
                    name=c["name"],
                    is_abstract=c["is_abstract"],
                    attributes=tuple(Attribute(**a) for a in c["attributes"]),
                    nested_enums=tuple(_enum_from(e) for e in c["nested_enums"]),
                )
                for c in data["classes"]
            ),
            enums=tuple(_enum_from(e) for e in data["enums"]),
            relationships=tuple(
                Relationship(
                    kind=r["type"],
                    source=r["source"],
                    target=r["target"],
                    source_cardinality=r["source_cardinality"],
                    target_cardinality=r["target_cardinality"],
                    label=r["label"],
                    association_members=(
                        tuple(r["association_members"]) if r["association_members"] else None
                    ),
                )
                for r in data["relationships"]
            ),
            notes=tuple(Note(**n) for n in data["notes"]),
            implicit_classes=tuple(data["implicit_classes"]),
        )


def _attribute_dict(a: Attribute) -> dict[str, Any]:
    return {
        "name": a.name,
        "type": a.type,
        "default_value": a.default_value,
        "is_constant": a.is_constant,
    }


def _enum_dict(e: Enum) -> dict[str, Any]:
    return {"name": e.name, "values": list(e.values), "is_inline": e.is_inline}


def _enum_from(data: dict[str, Any]) -> Enum:
    return Enum(name=data["name"], values=tuple(data["values"]), is_inline=data["is_inline"])
