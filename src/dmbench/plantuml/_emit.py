"""Model -> canonical PlantUML, in the layout the Chen translate prompt asks for.

Enums first, then classes (one attribute per line, two-space indent), then relationships with
quoted cardinalities and the source on the left, then notes. ``parse(emit(m), "standard") == m``
holds for every model the standard reading produces.
"""

from __future__ import annotations

from dmbench.plantuml.model import Attribute, Class, Diagram, Enum, Note, Relationship

# The arrow that, read by the standard reading, gives this kind with the source on the left.
ARROW_FOR_KIND = {
    "association": "--",
    "directed": "-->",
    "inheritance": "<|--",
    "composition": "*--",
    "aggregation": "o--",
    "dependency": "..>",
    "association_class": "..",
}

INDENT = "  "


def emit(diagram: Diagram) -> str:
    """The canonical PlantUML text of ``diagram`` (ends with a newline)."""
    out = ["@startuml", ""]
    for enum in diagram.enums:
        out += [*_enum(enum, ""), ""]
    for cls in diagram.classes:
        out += [*_class(cls), ""]
    if diagram.relationships:
        out += [_relationship(r) for r in diagram.relationships] + [""]
    for note in diagram.notes:
        out += [*_note(note), ""]
    out.append("@enduml")
    return "\n".join(out) + "\n"


def _enum(enum: Enum, indent: str) -> list[str]:
    if enum.is_inline:
        return [f"{indent}enum {enum.name} {{ {', '.join(enum.values)} }}"]
    return [
        f"{indent}enum {enum.name} {{",
        *(f"{indent}{INDENT}{v}" for v in enum.values),
        f"{indent}}}",
    ]


def _class(cls: Class) -> list[str]:
    keyword = "abstract class" if cls.is_abstract else "class"
    if not cls.attributes and not cls.nested_enums:
        return [f"{keyword} {cls.name} {{ }}"]
    lines = [f"{keyword} {cls.name} {{"]
    lines += [INDENT + attribute_text(a) for a in cls.attributes]
    for enum in cls.nested_enums:
        lines += _enum(enum, INDENT)
    return [*lines, "}"]


def attribute_text(attribute: Attribute) -> str:
    """``Type name = default`` (the prompt's canonical order), ``const`` first when constant."""
    text = attribute.name if attribute.type is None else f"{attribute.type} {attribute.name}"
    if attribute.is_constant:
        text = f"const {text}"
    if attribute.default_value is not None:
        text = f"{text} = {attribute.default_value}"
    return text


def _relationship(rel: Relationship) -> str:
    label = f" : {rel.label}" if rel.label is not None else ""
    if rel.association_members:
        a, b = rel.association_members
        return f"({a}, {b}) .. {rel.target}{label}"
    parts = [rel.source, _card(rel.source_cardinality), ARROW_FOR_KIND[rel.kind]]
    parts += [_card(rel.target_cardinality), rel.target]
    return " ".join(p for p in parts if p is not None) + label


def _card(cardinality: str | None) -> str | None:
    return None if cardinality is None else f'"{cardinality}"'


def _note(note: Note) -> list[str]:
    if "\n" in note.content:
        return [f"note {note.position}", *note.content.split("\n"), "end note"]
    return [f"note {note.position} : {note.content}".rstrip()]
