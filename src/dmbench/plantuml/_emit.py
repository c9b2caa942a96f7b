"""Model -> canonical PlantUML: the form the Chen translate prompt describes, where it has one.

The prompt (``chen_translate.txt``, rules 2-10 and its ordering rule) fixes: enums first, then
classes, then relationships; ``class N {`` / ``abstract class N {`` with one attribute per line
(``Type name``, ``Type name = default`` or ``name``), two-space indent, ``}``; block enums with
one literal per line; an empty class as ``class N { }``; quoted cardinalities; associations
``A "m" -- "n" B : label``, compositions ``Whole *-- Part``, aggregations ``Whole o-- Part`` and
inheritance ``Child --|> Parent`` (child on the left).

``parse(emit(m), "standard") == m`` holds for every model the standard reading produces, so a
model that holds more than the prompt's form gets the nearest PlantUML for the rest
(:data:`EXTENSIONS`). Some of that the validator accepts as it is; some it rejects
(:data:`VALIDATOR_REJECTS`). :func:`outside_canonical_form` names what a model uses, and
``validate(emit(m)).ok`` holds whenever none of it is in :data:`VALIDATOR_REJECTS` (tested on
every published model).
"""

from __future__ import annotations

from dmbench.plantuml._validator import valid_name
from dmbench.plantuml.model import Attribute, Class, Diagram, Enum, Note, Relationship

# The arrow that, read by the standard reading, gives this kind. Inheritance is written child
# first (``Child --|> Parent``), so its ends are swapped; every other kind has its source left.
ARROW_FOR_KIND = {
    "association": "--",
    "directed": "-->",
    "inheritance": "--|>",
    "composition": "*--",
    "aggregation": "o--",
    "dependency": "..",
    "association_class": "..",
}
SWAPPED_KINDS = frozenset({"inheritance"})

# What the emitter writes that the prompt does not show, and how it writes it.
EXTENSIONS = {
    "directed": "a directed relationship: Source --> Target",
    "dependency": "a dependency: Source .. Target (the only dotted arrow upstream's validator "
    "and parser both read; ..> is PlantUML's usual form)",
    "inline_enum": "an enum read from one line: enum E { A, B }",
    "nested_enum": "an enum inside a class body, inline (enum E { A, B }) or as a block",
    "constant": "a constant attribute: const Type NAME = value",
    "implicit_class": "a class only named in relationships stays undeclared (declaring it, as "
    "the prompt's rule 10 asks, would make it explicit and change the model)",
    "note": "a note: note <position> : text, or note <position> ... end note",
    "association_class": "an association class: (A, B) .. C",
    "nested_block_enum": "a nested enum written as a block (its '}' ends the class for the "
    "validator)",
    "invalid_name": "a class, enum or relationship end, or a block-enum literal, that the "
    "validator's name check rejects (not an identifier, or i.e, yes, true, ...)",
    "empty_diagram": "no class, enum or relationship at all",
}
VALIDATOR_REJECTS = frozenset(
    {"note", "association_class", "nested_block_enum", "invalid_name", "empty_diagram"}
)


def outside_canonical_form(diagram: Diagram) -> frozenset[str]:
    """The keys of :data:`EXTENSIONS` that ``diagram`` needs; empty when the prompt covers it."""
    found: set[str] = set()
    kinds = {r.kind for r in diagram.relationships}
    found |= kinds & {"directed", "dependency", "association_class"}
    if diagram.notes:
        found.add("note")
    if diagram.implicit_classes:
        found.add("implicit_class")
    if any(e.is_inline for e in diagram.enums):
        found.add("inline_enum")
    nested = [e for c in diagram.classes for e in c.nested_enums]
    if nested:
        found.add("nested_enum")
    if any(not e.is_inline for e in nested):
        found.add("nested_block_enum")
    if any(a.is_constant for c in diagram.classes for a in c.attributes):
        found.add("constant")
    if not (diagram.classes or diagram.enums or diagram.relationships):
        found.add("empty_diagram")
    names = [c.name for c in diagram.classes] + [e.name for e in diagram.enums]
    names += [end for r in diagram.relationships if r.association_members is None
              for end in (r.source, r.target)]
    literals = [v for e in diagram.enums if not e.is_inline for v in e.values]
    if not all(valid_name(n) for n in names + literals):
        found.add("invalid_name")
    return frozenset(found)


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
    left = (rel.source, rel.source_cardinality)
    right = (rel.target, rel.target_cardinality)
    if rel.kind in SWAPPED_KINDS:
        left, right = right, left
    parts = [left[0], _card(left[1]), ARROW_FOR_KIND[rel.kind], _card(right[1]), right[0]]
    return " ".join(p for p in parts if p is not None) + label


def _card(cardinality: str | None) -> str | None:
    return None if cardinality is None else f'"{cardinality}"'


def _note(note: Note) -> list[str]:
    if "\n" in note.content:
        return [f"note {note.position}", *note.content.split("\n"), "end note"]
    return [f"note {note.position} : {note.content}".rstrip()]
