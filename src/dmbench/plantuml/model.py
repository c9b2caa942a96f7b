"""The typed model of a PlantUML class diagram.

Frozen dataclasses with tuples, so a model is a value: two readings of the same text can be
compared with ``==`` and a model can be hashed or cached. The fields are those of the upstream
parser's model (``strict.model`` in the golden ``parsed.jsonl``); ``to_dict``/``from_dict`` use
that exact JSON shape. The standard reading adds where each element came from (``line``, 1-based),
each class's ``kind`` and the ``repairs`` it read through; they take no part in ``==`` (two
readings of one model written on other lines are the same model) and appear in ``to_dict`` only
when set, so the compat reading's JSON stays upstream's.
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
    """One member line a reading keeps as a field (methods are not in the model)."""

    name: str
    type: str | None = None
    default_value: str | None = None
    is_constant: bool = False
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Enum:
    """An enum and its literals, apart from classes as in upstream's model."""

    name: str
    values: tuple[str, ...] = ()
    is_inline: bool = False
    line: int | None = field(default=None, compare=False)
    value_lines: tuple[int, ...] = field(default=(), compare=False)
    """The line of each of ``values``, in order (empty when the reading keeps no lines)."""


@dataclass(frozen=True, slots=True)
class Class:
    """A class, interface or other classifier, with its fields and the enums declared in it."""

    name: str
    is_abstract: bool = False
    attributes: tuple[Attribute, ...] = ()
    nested_enums: tuple[Enum, ...] = ()
    line: int | None = field(default=None, compare=False)
    kind: str | None = field(default=None, compare=False)
    """The keyword it was declared with, lower case (``class``, ``interface``, ``entity``, ...)."""


@dataclass(frozen=True, slots=True)
class Relationship:
    """A link between two classes, its kind read from the arrow and its multiplicities."""

    kind: RelationshipKind
    source: str
    target: str
    source_cardinality: str | None = None
    target_cardinality: str | None = None
    label: str | None = None
    association_members: tuple[str, str] | None = None
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Repair:
    """A habit PlantUML rejects that a reading read through anyway, named as the report names it."""

    rule: str
    line: int


@dataclass(frozen=True, slots=True)
class Note:
    """A note's text and where it is attached, kept so that no line of the diagram is lost."""

    content: str
    position: str


@dataclass(frozen=True, slots=True)
class Diagram:
    """The whole reading of one diagram: the value metrics compare and ``parse`` prints."""

    classes: tuple[Class, ...] = ()
    enums: tuple[Enum, ...] = ()
    relationships: tuple[Relationship, ...] = ()
    notes: tuple[Note, ...] = ()
    implicit_classes: tuple[str, ...] = field(default=())
    repairs: tuple[Repair, ...] | None = field(default=None, compare=False)
    """What the reading repaired to read the text; None for a reading that does not say."""

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
        data: dict[str, Any] = {
            "classes": [
                {
                    "name": c.name,
                    "is_abstract": c.is_abstract,
                    "attributes": [_attribute_dict(a) for a in c.attributes],
                    "nested_enums": [_enum_dict(e) for e in c.nested_enums],
                    **_set(line=c.line, kind=c.kind),
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
                    **_set(line=r.line),
                }
                for r in self.relationships
            ],
            "notes": [{"content": n.content, "position": n.position} for n in self.notes],
            "implicit_classes": list(self.implicit_classes),
        }
        if self.repairs is not None:
            data["repairs"] = [{"rule": r.rule, "line": r.line} for r in self.repairs]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Diagram:
        return cls(
            classes=tuple(
                Class(
                    name=c["name"],
                    is_abstract=c["is_abstract"],
                    attributes=tuple(Attribute(**a) for a in c["attributes"]),
                    nested_enums=tuple(_enum_from(e) for e in c["nested_enums"]),
                    line=c.get("line"),
                    kind=c.get("kind"),
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
                    line=r.get("line"),
                )
                for r in data["relationships"]
            ),
            notes=tuple(Note(**n) for n in data["notes"]),
            implicit_classes=tuple(data["implicit_classes"]),
            repairs=(
                tuple(Repair(r["rule"], r["line"]) for r in data["repairs"])
                if "repairs" in data
                else None
            ),
        )


def _set(**fields: Any) -> dict[str, Any]:
    """The fields that are set: what the standard reading adds to upstream's shape."""
    return {name: value for name, value in fields.items() if value is not None}


def _attribute_dict(a: Attribute) -> dict[str, Any]:
    return {
        "name": a.name,
        "type": a.type,
        "default_value": a.default_value,
        "is_constant": a.is_constant,
        **_set(line=a.line),
    }


def _enum_dict(e: Enum) -> dict[str, Any]:
    data = {"name": e.name, "values": list(e.values), "is_inline": e.is_inline, **_set(line=e.line)}
    if e.value_lines:
        data["literals"] = [
            {"value": value, "line": line} for value, line in zip(e.values, e.value_lines)
        ]
    return data


def _enum_from(data: dict[str, Any]) -> Enum:
    return Enum(
        name=data["name"],
        values=tuple(data["values"]),
        is_inline=data["is_inline"],
        line=data.get("line"),
        value_lines=tuple(literal["line"] for literal in data.get("literals", ())),
    )
