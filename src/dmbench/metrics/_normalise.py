"""A parsed diagram as metrik-4 sees it: classes with attributes, and three kinds of edges.

Upstream normalises before it compares, and the counts in the golden data confirm each rule:

* a class keeps its attributes (types lower-cased, ``const`` as modifier); each of its nested
  enums follows it, then come the standalone enums, then the implicit classes (names only
  mentioned in relationships) as empty classes;
* an enum is a class whose attributes are its literals (type ``enum_value``, modifier
  ``const``);
* composition and aggregation are associations with that ownership, plain and directed
  associations have none, an association class ``(A, B) .. C`` is two associations ``A->C`` and
  ``B->C``, inheritance is a generalisation and ``..`` a dependency; the label is the edge name;
* duplicates go: the first class of each name wins (an enum used in a relationship is also an
  implicit class) and an edge equal in source, target, ownership and name to an earlier one of
  its kind is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.plantuml.model import Diagram, Enum


@dataclass(frozen=True, slots=True)
class Attribute:
    """An attribute as metrik-4 compares it: name, type and modifier only."""
    name: str
    type: str
    modifier: str


@dataclass(frozen=True, slots=True)
class Class:
    """A class as metrik-4 compares it: its name and its attributes, nothing of layout."""
    name: str
    attributes: tuple[Attribute, ...]


@dataclass(frozen=True, slots=True)
class Edge:
    """A relationship between two classes as metrik-4 matches it, with its ownership kind."""
    source: str
    target: str
    name: str
    ownership: str


@dataclass(frozen=True, slots=True)
class Normalised:
    """A diagram reduced to what metrik-4 scores, so both diagrams of a pair compare alike."""
    classes: tuple[Class, ...]
    associations: tuple[Edge, ...]
    dependencies: tuple[Edge, ...]
    generalizations: tuple[Edge, ...]

    def counts(self) -> dict[str, int]:
        """Sizes of the normalised diagram, as in the golden ``counts_*``."""
        return {
            "classes": len(self.classes),
            "attributes": sum(len(c.attributes) for c in self.classes),
            "associations": len(self.associations),
            "dependencies": len(self.dependencies),
            "generalizations": len(self.generalizations),
        }


_OWNING_KINDS = ("composition", "aggregation")


def normalise(diagram: Diagram) -> Normalised:
    """The diagram as upstream's metric sees it (see the module docstring for the rules)."""
    classes: list[Class] = []
    for cls in diagram.classes:
        classes.append(
            Class(
                cls.name,
                tuple(
                    Attribute(a.name, (a.type or "").lower(), "const" if a.is_constant else "")
                    for a in cls.attributes
                ),
            )
        )
        classes.extend(_enum_class(e) for e in cls.nested_enums)
    classes.extend(_enum_class(e) for e in diagram.enums)
    classes.extend(Class(name, ()) for name in diagram.implicit_classes)

    associations: list[Edge] = []
    dependencies: list[Edge] = []
    generalizations: list[Edge] = []
    for rel in diagram.relationships:
        name = rel.label or ""
        if rel.kind == "inheritance":
            generalizations.append(Edge(rel.source, rel.target, name, "none"))
        elif rel.kind == "dependency":
            dependencies.append(Edge(rel.source, rel.target, name, "none"))
        elif rel.kind == "association_class":
            assert rel.association_members is not None
            associations.extend(
                Edge(member, rel.target, name, "none") for member in rel.association_members
            )
        else:
            ownership = rel.kind if rel.kind in _OWNING_KINDS else "none"
            associations.append(Edge(rel.source, rel.target, name, ownership))

    first_of_name: dict[str, Class] = {}
    for kept in classes:
        first_of_name.setdefault(kept.name, kept)
    return Normalised(
        classes=tuple(first_of_name.values()),
        associations=tuple(dict.fromkeys(associations)),
        dependencies=tuple(dict.fromkeys(dependencies)),
        generalizations=tuple(dict.fromkeys(generalizations)),
    )


def _enum_class(enum: Enum) -> Class:
    return Class(enum.name, tuple(Attribute(v, "enum_value", "const") for v in enum.values))
