"""The compat reading's quirks: what they are (``QUIRKS``) and what they cost (``quirk_cost``).

``QUIRKS`` is the one list of places where ``compat`` and ``standard`` read the same text
differently; each entry names the spec section it comes from and the test that pins it, and
``tests/plantuml/test_plantuml_quirks.py`` checks the list and the tests against each other.

The cost table works on (id, dataset, candidate, text) rows so it can read the upstream mirror
now and the built data package later. Per element kind it counts what the standard reading
finds, and of that what compat loses, changes, or invents (``added``, e.g. ``Fo`` from
``Foo-->Bar``).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, SupportsInt, cast

from dmbench.errors import ParseError
from dmbench.plantuml._compat import parse_compat
from dmbench.plantuml._standard import parse_standard
from dmbench.plantuml.model import Diagram, Relationship
from dmbench.sources.published import DiagramRow


class Quirk(NamedTuple):
    """One upstream behaviour that ``compat`` keeps and ``standard`` does not."""

    id: str  # the number in LANGUAGE.md's quirk list, with a letter for a second test
    spec: str  # section of ../shared/spec/upstream-behaviour.md that describes it
    description: str
    test: str  # Class::method in tests/plantuml/test_plantuml_quirks.py


_T = "TestQuirks::"
QUIRKS: tuple[Quirk, ...] = (
    Quirk("1", "E.3", "an apostrophe anywhere cuts the rest of the line",
          _T + "test_apostrophe_cuts_the_rest_of_the_line"),
    Quirk("1b", "E.3", "'//' with no '/' before it cuts the rest of the line (URLs)",
          _T + "test_double_slash_cuts_urls"),
    Quirk("2", "E.6", "attributes with visibility, modifiers, ';', array/generic types first "
          "or a trailing {constraint} are dropped", _T + "test_decorated_attributes_are_dropped"),
    Quirk("3", "E.6", "comma-separated attributes are dropped, in a block or inline",
          _T + "test_comma_separated_attributes_are_dropped"),
    Quirk("4", "E.4", "without spaces an 'o' arrow takes a letter from a name (Foo-->Bar)",
          _T + "test_arrow_without_spaces_takes_an_o"),
    Quirk("5", "E.4", "*--> <--* o--> <--o make the part the source",
          _T + "test_diamond_with_arrowhead_makes_the_part_the_source"),
    Quirk("6", "E.4", "block-enum lines that are not one identifier are dropped",
          _T + "test_block_enum_keeps_only_identifier_lines"),
    Quirk("7", "E.4", "text after '{' on a class's first line is ignored",
          _T + "test_text_after_an_opening_brace_is_ignored"),
    Quirk("7b", "E.6", "a body line ending in '}' does not close the class",
          _T + "test_member_line_ending_in_brace_does_not_close"),
    Quirk("8", "E.6", "interface, abstract X, stereotypes, extends, settings, ..>, <|.., --- "
          "are errors", _T + "test_constructs_compat_rejects"),
    Quirk("8b", "E.5", "the error is 'Unrecognized line N' counted from @startuml, with context",
          _T + "test_unrecognized_line_message_names_the_line"),
    Quirk("8c", "E.6", "a floating note (note \"x\" as N1) is never closed",
          _T + "test_floating_note_is_never_closed_in_compat"),
    Quirk("9", "E.6", "a single-line note swallows every line up to a later 'end note'",
          _T + "test_single_line_note_swallows_up_to_a_later_end_note"),
    Quirk("10", "E.2", "repeated class declarations stay separate entries",
          _T + "test_repeated_class_declarations"),
    Quirk("11", "E.4", "note in any letter case is a keyword even where a link or member follows",
          _T + "test_keyword_case"),
    Quirk("12", "E.4", "a cardinality's closing quote is optional (\"0..* <-- B reads)",
          _T + "test_cardinality_closing_quote_is_optional"),
)

ELEMENTS = ("classes", "attributes", "enum_literals", "relationships")
MEASURES = ("standard", "lost", "changed", "added")
STATUSES = ("both_ok", "compat_error", "standard_error", "both_error")


@dataclass(frozen=True, slots=True)
class RowCost:
    """What one diagram's compat reading loses, changes or adds against the standard one."""

    id: str
    dataset: str
    candidate: str
    status: str
    counts: Counter[str] = field(default_factory=Counter)

    @property
    def affected(self) -> bool:
        return any(self.counts[f"{e}_{m}"] for e in ELEMENTS for m in MEASURES[1:])


def row_cost(row: DiagramRow) -> RowCost:
    """Compare the two readings of one diagram."""
    compat = _try(parse_compat, row.text)
    standard = _try(parse_standard, row.text)
    if compat is None and standard is None:
        return RowCost(row.id, row.dataset, row.candidate, "both_error")
    if standard is None:
        return RowCost(row.id, row.dataset, row.candidate, "standard_error")
    status = "both_ok" if compat is not None else "compat_error"
    counts = compare(standard, compat or Diagram())
    return RowCost(row.id, row.dataset, row.candidate, status, counts)


def compare(standard: Diagram, compat: Diagram) -> Counter[str]:
    """Counts ``<element>_<measure>`` of what compat loses, changes and adds against standard."""
    counts: Counter[str] = Counter()
    _keyed(counts, "classes", _classes(standard), _classes(compat))
    _keyed(counts, "attributes", _attributes(standard), _attributes(compat))
    _keyed(counts, "enum_literals", _literals(standard), _literals(compat))
    _relationships(counts, standard.relationships, compat.relationships)
    return counts


def _try(reader: Callable[[str], Diagram], text: str) -> Diagram | None:
    try:
        return reader(text)
    except ParseError:
        return None


def _classes(d: Diagram) -> dict:
    explicit = {c.name: c.is_abstract for c in d.classes}
    return {name: explicit.get(name, False) for name in d.all_class_names}


def _attributes(d: Diagram) -> dict:
    return {(c.name, a.name): a for c in d.classes for a in c.attributes}


def _literals(d: Diagram) -> dict:
    enums = [*d.enums, *(e for c in d.classes for e in c.nested_enums)]
    return {(e.name, v): True for e in enums for v in e.values}


def _keyed(counts: Counter[str], element: str, standard: dict, compat: dict) -> None:
    counts[f"{element}_standard"] += len(standard)
    for key, value in standard.items():
        if key not in compat:
            counts[f"{element}_lost"] += 1
        elif compat[key] != value:
            counts[f"{element}_changed"] += 1
    counts[f"{element}_added"] += sum(key not in standard for key in compat)


def _relationships(
    counts: Counter[str], standard: tuple[Relationship, ...], compat: tuple[Relationship, ...]
) -> None:
    """Match exactly first, then by the same pair of ends (a change of kind, direction, ...)."""
    counts["relationships_standard"] += len(standard)
    remaining = list(compat)
    unmatched = []
    for rel in standard:
        if rel in remaining:
            remaining.remove(rel)
        else:
            unmatched.append(rel)
    for rel in unmatched:
        ends = {rel.source, rel.target}
        partner = next((r for r in remaining if {r.source, r.target} == ends), None)
        if partner is None:
            counts["relationships_lost"] += 1
        else:
            remaining.remove(partner)
            counts["relationships_changed"] += 1
    counts["relationships_added"] += len(remaining)


@dataclass
class GroupCost:
    """The sums of many diagrams' costs, for one row of the quirk-cost table."""

    dataset: str
    candidate: str
    diagrams: int = 0
    affected: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, cost: RowCost) -> None:
        self.diagrams += 1
        self.affected += cost.affected
        self.statuses[cost.status] += 1
        self.counts.update(cost.counts)

    def record(self) -> dict[str, object]:
        out: dict[str, object] = {
            "dataset": self.dataset,
            "candidate": self.candidate,
            "diagrams": self.diagrams,
            "diagrams_affected": self.affected,
        }
        out.update({status: self.statuses[status] for status in STATUSES})
        for element in ELEMENTS:
            for measure in MEASURES:
                out[f"{element}_{measure}"] = self.counts[f"{element}_{measure}"]
        return out


ALL = "all"


def quirk_cost(rows: Iterable[DiagramRow]) -> list[dict[str, object]]:
    """One record per (dataset, candidate), then per candidate over all datasets, then overall."""
    groups: dict[tuple[str, str], GroupCost] = {}
    for row in rows:
        cost = row_cost(row)
        for key in ((row.dataset, row.candidate), (ALL, row.candidate), (ALL, ALL)):
            groups.setdefault(key, GroupCost(*key)).add(cost)
    order = sorted(groups, key=lambda k: (k[0] == ALL, k[1] == ALL, k))
    return [groups[key].record() for key in order]


def to_csv(records: list[dict[str, object]]) -> str:
    """The quirk-cost records as CSV, the form the report's tables are kept in."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue()


def to_markdown(records: list[dict[str, object]]) -> str:
    """A readable table: per element, ``lost/changed of standard`` and compat's inventions."""
    header = ["dataset", "candidate", "diagrams", "affected", "std errors"]
    header += [f"{e.replace('_', ' ')} lost+changed / std (added)" for e in ELEMENTS]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in records:
        cells = [r["dataset"], r["candidate"], r["diagrams"], r["diagrams_affected"]]
        cells.append(r["standard_error"])
        for e in ELEMENTS:
            bad = _count(r[f"{e}_lost"]) + _count(r[f"{e}_changed"])
            total = _count(r[f"{e}_standard"])
            share = f"{100 * bad / total:.1f}%" if total else "-"
            cells.append(f"{bad}/{total} ({share}) (+{r[f'{e}_added']})")
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def _count(value: object) -> int:
    """A count of a record (records are built from ints or read back from CSV text)."""
    return int(cast(SupportsInt | str, value))
