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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from dmbench.plantuml._errors import NO_BLOCK, ParseError
from dmbench.plantuml._grammar import grammar_arrows, terminal
from dmbench.plantuml.model import Attribute, Class, Diagram, Enum, Note, Relationship

IDENT = terminal("IDENT")

# Upstream's arrow table in its trial order: (arrow, kind, whether source and target swap).
# Every arrow is one the grammar's ARROW token accepts (checked below); only the meaning and order
# are upstream's.
ARROWS: tuple[tuple[str, str, bool], ...] = (
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

_BLOCK = re.compile(r"@startuml(.*?)@enduml", re.S)
_BLOCK_COMMENT_ONE_LINE = re.compile(r"^(.*)/'(.*)'/(.*)$")

_ABSTRACT_CLASS = re.compile(rf"^abstract\s+class\s+({IDENT})\s*(\{{)?(.*)$", re.I)
_CLASS = re.compile(rf"^class\s+({IDENT})\s*(\{{)?(.*)$", re.I)
_INLINE_ENUM = re.compile(rf"^enum\s+({IDENT})\s*\{{\s*([^}}]+)\s*\}}$")
_BLOCK_ENUM = re.compile(rf"^enum\s+({IDENT})\s*\{{")
_ENUM_VALUE = re.compile(rf"^(?:{IDENT}|\.\.\.)$")
_NOTE = re.compile(r"^note\s+(.*)$", re.I)
_END_NOTE = re.compile(r"^end\s*note", re.I)
_ASSOC_CLASS = re.compile(
    rf"^\(({IDENT})\s*,\s*({IDENT})\)\s*\.\.\s*({IDENT})(?:\s*:\s*(.+))?$"
)
_STANDALONE_ATTR = re.compile(rf"^({IDENT})\s*:\s*({IDENT})$")

_CONST_ATTR = re.compile(rf"^const\s+({IDENT})\s+({IDENT})\s*=\s*(.+)$")
_NAME_TYPE_ATTR = re.compile(rf"^({IDENT})\s*:\s*([\w\[\]<>,\s]+?)(?:\s*=\s*(.+))?$")
_TYPE_NAME_ATTR = re.compile(rf"^({IDENT})\s+({IDENT})(?:\s*=\s*(.+))?$")
_NAME_ATTR = re.compile(rf"^({IDENT})$")
_STATIC = "{static}"


def _binary_pattern(arrow: str) -> re.Pattern[str]:
    card = r'(?:"([^"]*)"?\s*)?'
    return re.compile(
        rf"^({IDENT})\s*{card}{re.escape(arrow)}\s*{card}({IDENT})(?:\s*:\s*(.+))?$"
    )


# Upstream's arrow order: the first arrow whose whole line pattern matches wins. A pattern holds
# its arrow literally, so a line without the arrow is skipped before the (costly) match.
_BINARY = tuple((arrow, _binary_pattern(arrow), kind, swap) for arrow, kind, swap in ARROWS)


def parse_compat(text: str, *, keep_static: bool = False) -> Diagram:
    """Read ``text`` as metrik-4's strict parser does; raise ``ParseError`` where it raises.

    ``keep_static`` reads as metrik-1's copy of that parser, the one place the copies differ: an
    attribute line starting with ``{static}`` is read without it instead of being dropped
    (``is_constant`` for the ``name : Type`` and ``Type name`` forms).
    """
    block = _BLOCK.search(text)
    if block is None:
        raise ParseError(NO_BLOCK, line=1, column=1, line_text=text.split("\n", 1)[0])
    lines = [line.strip() for line in _strip_comments(block.group(0))]
    reader = _Reader(lines, offset=text.count("\n", 0, block.start()), keep_static=keep_static)
    return reader.read()


def _strip_comments(block: str) -> list[str]:
    """Remove comments the way upstream does: line count kept, any apostrophe cuts the rest."""
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
            one_line = _BLOCK_COMMENT_ONE_LINE.match(line)
            if one_line:
                line = one_line.group(1) + one_line.group(3)
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


def parse_attribute(line: str, keep_static: bool = False) -> Attribute | None:
    """One attribute line of a class body, or ``None`` when upstream silently drops it."""
    if keep_static and line.startswith(_STATIC):
        attribute = parse_attribute(line[len(_STATIC) :].strip())
        if attribute is None or attribute.type is None:
            return attribute
        return replace(attribute, is_constant=True)
    if line.startswith("enum "):
        return None
    if m := _CONST_ATTR.match(line):
        return Attribute(m.group(2), m.group(1), m.group(3).strip(), True)
    if m := _NAME_TYPE_ATTR.match(line):
        return Attribute(m.group(1), m.group(2).strip(), _default(m.group(3)))
    if m := _TYPE_NAME_ATTR.match(line):
        return Attribute(m.group(2), m.group(1), _default(m.group(3)))
    if m := _NAME_ATTR.match(line):
        return Attribute(m.group(1))
    return None


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

    def read(self) -> Diagram:
        i = 0
        while i < len(self.lines):
            line = self.lines[i]
            if not line or line.startswith("@startuml") or line.startswith("@enduml"):
                i += 1
                continue
            i = self._top_level(i, line)
        explicit = {c.name for c in self.classes}
        return Diagram(
            classes=tuple(self.classes),
            enums=tuple(self.enums),
            relationships=tuple(self.relationships),
            notes=tuple(self.notes),
            implicit_classes=tuple(sorted(self.mentioned - explicit)),
        )

    def _top_level(self, i: int, line: str) -> int:
        """Handle the construct starting at line ``i``; return the index of the next line."""
        for pattern, abstract in ((_ABSTRACT_CLASS, True), (_CLASS, False)):
            m = pattern.match(line)
            if m and (m.group(2) or not m.group(3).strip() or m.group(3).strip() == "}"):
                return self._class(i, m, abstract)
        if m := _INLINE_ENUM.match(line):
            self.enums.append(_inline_enum(m))
            return i + 1
        if m := _BLOCK_ENUM.match(line):
            return self._block_enum(i, m.group(1))
        if m := _NOTE.match(line):
            return self._note(i, m.group(1))
        if self._relationship(line):
            return i + 1
        if m := _STANDALONE_ATTR.match(line):
            self._standalone_attribute(m.group(1), m.group(2))
            return i + 1
        raise self._unrecognised(i, line)

    def _class(self, i: int, m: re.Match[str], abstract: bool) -> int:
        name, brace, rest = m.group(1), m.group(2), m.group(3).strip()
        if rest == "}" or not brace:
            self.classes.append(Class(name, abstract))
            return i + 1
        if "}" in rest:
            content = rest.rstrip("}").strip()
            parts = content.split(";")
            attrs = (parse_attribute(part.strip(), self.keep_static) for part in parts)
            self.classes.append(Class(name, abstract, tuple(a for a in attrs if a)))
            return i + 1
        attributes: list[Attribute] = []
        nested: list[Enum] = []
        j = i + 1
        while j < len(self.lines):
            body = self.lines[j]
            if body == "}":
                self.classes.append(Class(name, abstract, tuple(attributes), tuple(nested)))
                return j + 1
            if em := _INLINE_ENUM.match(body):
                nested.append(_inline_enum(em))
            elif body and (attr := parse_attribute(body, self.keep_static)):
                attributes.append(attr)
            j += 1
        raise self._error(f"Class '{name}' at line {i + 1} not properly closed", i)

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
        for j in range(i + 1, len(self.lines)):
            if _END_NOTE.match(self.lines[j]):
                content = "\n".join(self.lines[i + 1 : j]).strip()
                self.notes.append(Note(content, header.strip()))
                return j + 1
        if ":" in header:
            position, content = header.split(":", 1)
            self.notes.append(Note(content.strip(), position.strip()))
            return i + 1
        raise self._error(f"Note at line {i + 1} not properly closed", i)

    def _relationship(self, line: str) -> bool:
        if m := _ASSOC_CLASS.match(line):
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
        for arrow, pattern, kind, swap in _BINARY:
            if arrow not in line:
                continue
            m = pattern.match(line)
            if not m:
                continue
            source, source_card, target_card, target, label = m.groups()
            if swap:
                source, target = target, source
                source_card, target_card = target_card, source_card
            self.relationships.append(
                Relationship(
                    kind,
                    source,
                    target,
                    source_card,
                    target_card,
                    label.strip() if label else None,
                )
            )
            self.mentioned.update((source, target))
            return True
        return False

    def _standalone_attribute(self, class_name: str, attribute: str) -> None:
        self.mentioned.add(class_name)
        for index, cls in enumerate(self.classes):
            if cls.name == class_name:
                self.classes[index] = Class(
                    cls.name,
                    cls.is_abstract,
                    (*cls.attributes, Attribute(attribute)),
                    cls.nested_enums,
                )
                return
        self.classes.append(Class(class_name, attributes=(Attribute(attribute),)))

    def _unrecognised(self, i: int, line: str) -> ParseError:
        context = []
        for k in range(max(0, i - 2), min(len(self.lines), i + 3)):
            marker = ">>> " if k == i else "    "
            context.append(f"{marker}{k + 1}: {self.lines[k]}")
        message = f"Unrecognized line {i + 1}: '{line}'\nContext:\n" + "\n".join(context)
        return ParseError(message, line=self.offset + i + 1, column=1, line_text=line)

    def _error(self, message: str, i: int) -> ParseError:
        return ParseError(message, line=self.offset + i + 1, column=1, line_text=self.lines[i])
