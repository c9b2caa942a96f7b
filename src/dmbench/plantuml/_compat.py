"""The ``compat`` reading: the strict parser of domain-model-metrics v1.0.0, quirks included.

metrik-4 scores what that parser sees, so reproducing published scores needs its exact reading
(spec section E). Written from the behaviour description, not from upstream code. Every quirk is
kept on purpose; ``QUIRKS`` in ``_quirks.py`` names each one and the tests pin them.

Why regular expressions and not ``grammar.lark``: upstream's behaviour *is* that of its regular
expressions, backtracking included. ``Foo-->Bar`` becomes an aggregation ``Bar``->``Fo`` because
a backtracking ``IDENT`` gives up its ``o`` to the ``o-->`` pattern; the first of 19 arrow
patterns that matches the whole line wins; an attribute's type is a lazy match; a cardinality's
closing quote is optional. An LALR grammar tokenises once, longest match first, and cannot give
these readings (839/839 golden parity depends on them). What can be shared is: ``IDENT`` comes
from the grammar, and the arrow table goes through ``grammar_arrows``, which refuses an arrow the
grammar's ``ARROW`` token does not accept; only the meanings and the trial order are upstream's.

Where one of upstream's patterns backtracks more than linearly on a hostile line (a run of
spaces, an open quote), it is matched here by code or a simpler pattern that gives the same
groups in one pass; ``tests/plantuml/test_linear_readings.py`` keeps upstream's patterns as the oracle.
The relationship patterns themselves still read short ordinary lines, where their backtracking
is bounded, and the readings of short lines are memoised: a study's diagrams share most lines.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import partial

from dmbench.errors import ParseError
from dmbench.plantuml._block import find_block
from dmbench.plantuml._grammar import grammar_arrows, terminal
from dmbench.plantuml._messages import NO_BLOCK
from dmbench.plantuml._reading_memo import SHORT_LINE, memoised_short_lines
from dmbench.plantuml.model import (
    Attribute,
    Class,
    Diagram,
    Enum,
    Note,
    Relationship,
    RelationshipKind,
)

IDENT = terminal("IDENT")

# Upstream's arrow table in its trial order: (arrow, kind, whether source and target swap).
# Every arrow is one the grammar's ARROW token accepts (checked below); only the meaning and order
# are upstream's.
ARROWS: tuple[tuple[str, RelationshipKind, bool], ...] = (
    ("<|--", "inheritance", False),
    ("--|>", "inheritance", True),
    ("<|-", "inheritance", False),
    ("-|>", "inheritance", True),
    ("*-->", "composition", True),
    ("<--*", "composition", False),
    ("*--", "composition", False),
    ("--*", "composition", True),
    ("o-->", "aggregation", True),
    ("<--o", "aggregation", False),
    ("o--", "aggregation", False),
    ("--o", "aggregation", True),
    ("-->", "directed", False),
    ("<--", "directed", True),
    ("->", "directed", False),
    ("<-", "directed", True),
    ("..", "dependency", False),
    ("--", "association", False),
    ("-", "association", False),
)
grammar_arrows(*(arrow for arrow, _kind, _swap in ARROWS))


_ABSTRACT_CLASS = re.compile(rf"^abstract\s+class\s+({IDENT})\s*(\{{)?(.*)$", re.I)
_CLASS = re.compile(rf"^class\s+({IDENT})\s*(\{{)?(.*)$", re.I)
# Upstream's ``\{\s*([^}]+)\s*\}$`` matches the same lines (the value list is split and stripped),
# without its cubic backtracking over a run of spaces before a missing "}".
_INLINE_ENUM = re.compile(rf"^enum\s+({IDENT})\s*\{{([^}}]+)\}}$")
_BLOCK_ENUM = re.compile(rf"^enum\s+({IDENT})\s*\{{")
_ENUM_VALUE = re.compile(rf"^(?:{IDENT}|\.\.\.)$")
_NOTE = re.compile(r"^note\s+(.*)$", re.I)
_END_NOTE = re.compile(r"^end\s*note", re.I)
_ASSOC_CLASS = re.compile(
    rf"^\(({IDENT})\s*,\s*({IDENT})\)\s*\.\.\s*({IDENT})(?:\s*:\s*(.+))?$"
)
_STANDALONE_ATTR = re.compile(rf"^({IDENT})\s*:\s*({IDENT})$")

_CONST_ATTR = re.compile(rf"^const\s+({IDENT})\s+({IDENT})\s*=\s*(.+)$")
_NAME_COLON = re.compile(rf"({IDENT})\s*:")
_TYPE_CHARS = re.compile(r"[\w\[\]<>,\s]+")
_TYPE_NAME_ATTR = re.compile(rf"^({IDENT})\s+({IDENT})(?:\s*=\s*(.+))?$")
_NAME_ATTR = re.compile(rf"^({IDENT})$")
_STATIC = "{static}"


_IDENT_START = frozenset(string.ascii_letters + "_")
_IDENT_CHARS = _IDENT_START | frozenset(string.digits)


class _RelationshipLine:
    """Upstream's relationship pattern, matched in its backtracking order in linear time.

    For each arrow upstream tries ``^(IDENT)\\s*(?:"([^"]*)"?\\s*)?ARROW\\s*(?:"([^"]*)"?\\s*)?
    (IDENT)(?:\\s*:\\s*(.+))?$``; as a regular expression that backtracks quadratically (or
    worse) over an open cardinality quote or a run of spaces. Here the same first match is found
    from tables of runs (identifier, whitespace, next quote) built once per line: a ``\\s*``
    before an arrow or identifier can only end at the end of its run (neither starts with a
    space), a trailing identifier can only end at the end of its run, and what follows an arrow
    depends only on where the spaces after it end, so it is worked out once per position.
    """

    def __init__(self, line: str) -> None:
        self.line = line
        self.ident_end: list[int] = []
        self._after_arrow: dict[int, tuple[str | None, str, str | None] | None] = {}

    def _build_tables(self) -> None:
        """Built once per line, when it starts with an identifier and holds an arrow."""
        line, n = self.line, len(self.line)
        self.ident_end = [0] * (n + 1)
        self.space_end = [0] * (n + 1)
        self.next_quote = [0] * (n + 1)
        self.ident_end[n] = self.space_end[n] = self.next_quote[n] = n
        for k in range(n - 1, -1, -1):
            char = line[k]
            self.ident_end[k] = self.ident_end[k + 1] if char in _IDENT_CHARS else k
            self.space_end[k] = self.space_end[k + 1] if char.isspace() else k
            self.next_quote[k] = k if char == '"' else self.next_quote[k + 1]

    def match(self, arrow: str) -> tuple[str, str | None, str | None, str, str | None] | None:
        """(source, source cardinality, target cardinality, target, label), or ``None``."""
        line = self.line
        if not line or line[0] not in _IDENT_START or arrow not in line:
            return None
        if not self.ident_end:
            self._build_tables()
        run = self.ident_end[0]
        for source_end in range(run, 0, -1):
            position = self.space_end[source_end] if source_end == run else source_end
            if line.startswith('"', position):
                for card_end, after in self._cardinality(position):
                    if line.startswith(arrow, after):
                        found = self._target(after + len(arrow))
                        if found is not None:
                            card = line[position + 1 : card_end]
                            return (line[:source_end], card, *found)
            if line.startswith(arrow, position):
                found = self._target(position + len(arrow))
                if found is not None:
                    return (line[:source_end], None, *found)
        return None

    def _cardinality(self, quote: int) -> Iterator[tuple[int, int]]:
        """(end of the text, position after it) for ``"([^"]*)"?\\s*`` at ``quote``, longest
        text first; the text is ``line[quote + 1 : end]``."""
        closing = self.next_quote[quote + 1]
        for end in range(closing, quote, -1):
            if end < len(self.line) and self.line[end] == '"':
                yield end, self.space_end[end + 1]
            yield end, self.space_end[end]

    def _target(self, position: int) -> tuple[str | None, str, str | None] | None:
        """(target cardinality, target, label) for the pattern's rest after the arrow."""
        start = self.space_end[position]
        if start not in self._after_arrow:
            self._after_arrow[start] = self._target_at(start)
        return self._after_arrow[start]

    def _target_at(self, start: int) -> tuple[str | None, str, str | None] | None:
        if self.line.startswith('"', start):
            for card_end, after in self._cardinality(start):
                found = self._ident_and_label(after)
                if found is not None:
                    return (self.line[start + 1 : card_end], *found)
        found = self._ident_and_label(start)
        return None if found is None else (None, *found)

    def _ident_and_label(self, start: int) -> tuple[str, str | None] | None:
        """``(IDENT)(?:\\s*:\\s*(.+))?$`` at ``start``."""
        line, n = self.line, len(self.line)
        if start >= n or line[start] not in _IDENT_START:
            return None
        end = self.ident_end[start]
        colon = self.space_end[end]
        if colon + 1 < n and line[colon] == ":":
            label_start = self.space_end[colon + 1]
            return line[start:end], line[min(label_start, n - 1) :]
        return (line[start:end], None) if end == n else None


def _upstream_relationship(arrow: str) -> re.Pattern[str]:
    """Upstream's pattern for one arrow (see ``_RelationshipLine`` for what it backtracks on)."""
    cardinality = r'(?:"([^"]*)"?\s*)?'
    return re.compile(
        rf"^({IDENT})\s*{cardinality}{re.escape(arrow)}\s*{cardinality}({IDENT})(?:\s*:\s*(.+))?$"
    )


_RELATIONSHIPS = tuple(
    (arrow, _upstream_relationship(arrow), kind, swap) for arrow, kind, swap in ARROWS
)


def _binary_relationship(line: str) -> Relationship | None:
    """The relationship of the first arrow whose upstream pattern matches ``line``, if any.

    A short printable line without three spaces in a row (so without a run of three whitespace
    characters: the only printable one is the space) is matched by upstream's own patterns:
    there their backtracking stays bounded (the worst such line a search found costs some 0.2 ms
    for all 19 arrows together). Any other line goes to the linear matcher.
    """
    if len(line) <= SHORT_LINE and line.isprintable() and "   " not in line:
        for arrow, pattern, kind, swap in _RELATIONSHIPS:
            if arrow in line and (m := pattern.match(line)):
                return _relationship(kind, swap, *m.groups())
        return None
    candidate = _RelationshipLine(line)
    for arrow, _pattern, kind, swap in _RELATIONSHIPS:
        found = candidate.match(arrow)
        if found is not None:
            return _relationship(kind, swap, *found)
    return None


def _relationship(
    kind: RelationshipKind,
    swap: bool,
    source: str,
    source_card: str | None,
    target_card: str | None,
    target: str,
    label: str | None,
) -> Relationship:
    if swap:
        source, target = target, source
        source_card, target_card = target_card, source_card
    label = label.strip() if label else None
    return Relationship(kind, source, target, source_card, target_card, label)


_read_relationship = memoised_short_lines(_binary_relationship)


def _class_header(line: str) -> tuple[str, bool, bool, str] | None:
    """(name, abstract, opens a body, rest stripped) where upstream's patterns see a class."""
    for pattern, abstract in ((_ABSTRACT_CLASS, True), (_CLASS, False)):
        m = pattern.match(line)
        if m:
            brace, rest = m.group(2) is not None, m.group(3).strip()
            if brace or not rest or rest == "}":
                return m.group(1), abstract, brace, rest
    return None


_read_class_header = memoised_short_lines(_class_header)


def parse_compat(text: str, *, keep_static: bool = False) -> Diagram:
    """Read ``text`` as metrik-4's strict parser does; raise ``ParseError`` where it raises.

    ``keep_static`` reads as metrik-1's copy of that parser, the one place the copies differ: an
    attribute line starting with ``{static}`` is read without it instead of being dropped
    (``is_constant`` for the ``name : Type`` and ``Type name`` forms).
    """
    block = find_block(text)
    if block is None:
        raise ParseError(NO_BLOCK, line=1, column=1, line_text=text.split("\n", 1)[0])
    start, _, end = block
    lines = [line.strip() for line in _strip_comments(text[start:end])]
    reader = _Reader(lines, offset=text.count("\n", 0, start), keep_static=keep_static)
    return reader.read()


def _strip_comments(block: str) -> list[str]:
    """Remove comments the way upstream does: line count kept, any apostrophe cuts the rest."""
    if "'" not in block and "/" not in block:  # no comment can start: most blocks
        return block.split("\n")
    out: list[str] = []
    in_block = False
    for line in block.split("\n"):
        if in_block:
            if "'/" not in line:
                out.append("")
                continue
            in_block = False
            line = line.split("'/", 1)[1]
        if "/'" in line:
            one_line = _without_one_line_comment(line)
            if one_line is not None:
                line = one_line
            else:
                line = line.split("/'", 1)[0]
                in_block = True
        stripped = line.lstrip()
        if stripped.startswith("'") or stripped.startswith("//"):
            out.append("")
        elif "'" in line:
            out.append(line[: line.index("'")])
        elif "//" in line and "/" not in line[: line.index("//")]:
            out.append(line[: line.index("//")])
        else:
            out.append(line)
    return out


def _without_one_line_comment(line: str) -> str | None:
    """Upstream's ``^(.*)/'(.*)'/(.*)$`` as ``group(1) + group(3)``, without its quadratic
    backtracking: the greedy groups take the last ``'/`` and the last ``/'`` that ends before it."""
    close = line.rfind("'/")
    start = line.rfind("/'", 0, close) if close >= 0 else -1
    return line[:start] + line[close + 2 :] if start >= 0 else None


def parse_attribute(line: str, keep_static: bool = False) -> Attribute | None:
    """One attribute line of a class body, or ``None`` when upstream silently drops it."""
    if keep_static and line.startswith(_STATIC):
        attribute = parse_attribute(line[len(_STATIC) :].strip())
        if attribute is None or attribute.type is None:
            return attribute
        return replace(attribute, is_constant=True)
    if line.startswith("enum "):
        return None
    if line.startswith("const") and (m := _CONST_ATTR.match(line)):
        return Attribute(m.group(2), m.group(1), m.group(3).strip(), True)
    if found := _name_type(line):
        return Attribute(*found)
    if m := _TYPE_NAME_ATTR.match(line):
        return Attribute(m.group(2), m.group(1), _default(m.group(3)))
    if m := _NAME_ATTR.match(line):
        return Attribute(m.group(1))
    return None


_ATTRIBUTE_READERS = {
    keep_static: memoised_short_lines(partial(parse_attribute, keep_static=keep_static))
    for keep_static in (False, True)
}


def _name_type(line: str) -> tuple[str, str, str | None] | None:
    """Upstream's ``^(IDENT)\\s*:\\s*([\\w\\[\\]<>,\\s]+?)(?:\\s*=\\s*(.+))?$``, stripped, in a pass.

    That pattern backtracks cubically over a run of spaces (28 s for a 3 KB line). What it
    matches: after the colon, type characters up to the first ``=`` (or the end), at least one
    of them, and then something after the ``=``; the type and default are then stripped.
    """
    m = _NAME_COLON.match(line)
    if m is None:
        return None
    rest = line[m.end() :]
    equals = rest.find("=")
    type_part = rest if equals < 0 else rest[:equals]
    if not _TYPE_CHARS.fullmatch(type_part) or (equals >= 0 and equals + 1 == len(rest)):
        return None
    default = rest[equals + 1 :].strip() if equals >= 0 else None
    return m.group(1), type_part.strip(), default


def _default(raw: str | None) -> str | None:
    return raw.strip() if raw is not None else None


def _inline_enum(m: re.Match[str]) -> Enum:
    values = tuple(v.strip() for v in m.group(2).split(","))
    return Enum(m.group(1), tuple(v for v in values if v), is_inline=True)


@dataclass
class _Reader:
    lines: list[str]
    offset: int
    keep_static: bool
    classes: list[Class] = field(default_factory=list)
    enums: list[Enum] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    mentioned: set[str] = field(default_factory=set)
    added: dict[int, list[Attribute]] = field(default_factory=dict)
    first_index: dict[str, int] = field(default_factory=dict)
    indexed: int = 0
    end_notes: list[int] | None = None

    def read(self) -> Diagram:
        i = 0
        while i < len(self.lines):
            line = self.lines[i]
            if not line or line.startswith(("@startuml", "@enduml")):
                i += 1
                continue
            i = self._top_level(i, line)
        explicit = {c.name for c in self.classes}
        return Diagram(
            classes=self._classes(),
            enums=tuple(self.enums),
            relationships=tuple(self.relationships),
            notes=tuple(self.notes),
            implicit_classes=tuple(sorted(self.mentioned - explicit)),
        )

    def _top_level(self, i: int, line: str) -> int:
        """Handle the construct starting at line ``i``; return the index of the next line.

        The keyword patterns are tried in upstream's order, each only on a line starting with
        its keyword's first letter (either case where the pattern ignores case).
        """
        head = line[0]
        if head in "aAcC" and (header := _read_class_header(line)):
            return self._class(i, *header)
        elif head == "e":
            if m := _INLINE_ENUM.match(line):
                self.enums.append(_inline_enum(m))
                return i + 1
            if m := _BLOCK_ENUM.match(line):
                return self._block_enum(i, m.group(1))
        elif head in "nN" and (m := _NOTE.match(line)):
            return self._note(i, m.group(1))
        if self._relationship(line):
            return i + 1
        if m := _STANDALONE_ATTR.match(line):
            self._standalone_attribute(m.group(1), m.group(2))
            return i + 1
        raise self._unrecognised(i, line)

    def _class(self, i: int, name: str, abstract: bool, brace: bool, rest: str) -> int:
        read_attribute = _ATTRIBUTE_READERS[self.keep_static]
        if rest == "}" or not brace:
            self.classes.append(Class(name, abstract))
            return i + 1
        if "}" in rest:
            content = rest.rstrip("}").strip()
            parts = content.split(";")
            attrs = (read_attribute(part.strip()) for part in parts)
            self.classes.append(Class(name, abstract, tuple(a for a in attrs if a)))
            return i + 1
        try:
            close = self.lines.index("}", i + 1)
        except ValueError:
            raise self._error(f"Class '{name}' at line {i + 1} not properly closed", i) from None
        attributes: list[Attribute] = []
        nested: list[Enum] = []
        for body in self.lines[i + 1 : close]:
            if body.startswith("enum") and (em := _INLINE_ENUM.match(body)):
                nested.append(_inline_enum(em))
            elif body and (attr := read_attribute(body)):
                attributes.append(attr)
        self.classes.append(Class(name, abstract, tuple(attributes), tuple(nested)))
        return close + 1

    def _block_enum(self, i: int, name: str) -> int:
        values: list[str] = []
        j = i + 1
        while j < len(self.lines):
            body = self.lines[j]
            if body == "}":
                self.enums.append(Enum(name, tuple(values)))
                return j + 1
            if _ENUM_VALUE.match(body):
                values.append(body)
            j += 1
        raise self._error(f"Enum '{name}' at line {i + 1} not properly closed", i)

    def _note(self, i: int, header: str) -> int:
        if self.end_notes is None:  # one scan, not one per note (many one-line notes)
            self.end_notes = [j for j, line in enumerate(self.lines) if _END_NOTE.match(line)]
        k = bisect_right(self.end_notes, i)
        if k < len(self.end_notes):
            j = self.end_notes[k]
            content = "\n".join(self.lines[i + 1 : j]).strip()
            self.notes.append(Note(content, header.strip()))
            return j + 1
        if ":" in header:
            position, content = header.split(":", 1)
            self.notes.append(Note(content.strip(), position.strip()))
            return i + 1
        raise self._error(f"Note at line {i + 1} not properly closed", i)

    def _relationship(self, line: str) -> bool:
        if line.startswith("(") and (m := _ASSOC_CLASS.match(line)):
            a, b, target, label = m.groups()
            self.relationships.append(
                Relationship(
                    "association_class",
                    f"({a}, {b})",
                    target,
                    label=label.strip() if label else None,
                    association_members=(a, b),
                )
            )
            self.mentioned.update((a, b, target))
            return True
        relationship = _read_relationship(line)
        if relationship is None:
            return False
        self.relationships.append(relationship)
        self.mentioned.update((relationship.source, relationship.target))
        return True

    def _standalone_attribute(self, class_name: str, attribute: str) -> None:
        """``A : x`` adds ``x`` to the first class named ``A``, declared before or here."""
        self.mentioned.add(class_name)
        index = self._first_index(class_name)
        if index is None:
            index = len(self.classes)
            self.classes.append(Class(class_name))
        self.added.setdefault(index, []).append(Attribute(attribute))

    def _first_index(self, name: str) -> int | None:
        for index in range(self.indexed, len(self.classes)):
            self.first_index.setdefault(self.classes[index].name, index)
        self.indexed = len(self.classes)
        return self.first_index.get(name)

    def _classes(self) -> tuple[Class, ...]:
        """The classes with the attributes ``A : x`` lines added (kept apart: many such lines
        would otherwise copy the class's attribute tuple once per line)."""
        return tuple(
            Class(c.name, c.is_abstract, (*c.attributes, *self.added[i]), c.nested_enums)
            if i in self.added
            else c
            for i, c in enumerate(self.classes)
        )

    def _unrecognised(self, i: int, line: str) -> ParseError:
        context = []
        for k in range(max(0, i - 2), min(len(self.lines), i + 3)):
            marker = ">>> " if k == i else "    "
            context.append(f"{marker}{k + 1}: {self.lines[k]}")
        message = f"Unrecognized line {i + 1}: '{line}'\nContext:\n" + "\n".join(context)
        return ParseError(message, line=self.offset + i + 1, column=1, line_text=line)

    def _error(self, message: str, i: int) -> ParseError:
        return ParseError(message, line=self.offset + i + 1, column=1, line_text=self.lines[i])
