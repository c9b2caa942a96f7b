"""The ``standard`` reading: the text as PlantUML means it, over ``grammar.lark``.

The grammar defines what each line may say; this module removes comments, tracks which body a
line belongs to (class, enum, note, package) and turns the parse trees into a ``Diagram``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from dmbench.errors import ParseError
from dmbench.plantuml._block import find_block
from dmbench.plantuml._grammar import parser, terminal
from dmbench.plantuml._messages import NO_BLOCK
from dmbench.plantuml._namespaces import Namespaces, separator_setting
from dmbench.plantuml._preprocess import expand_macros
from dmbench.plantuml._reading_memo import memoised_short_lines
from dmbench.plantuml.model import (
    Attribute,
    Class,
    Diagram,
    Enum,
    Note,
    Relationship,
    RelationshipKind,
    Repair,
)
from dmbench.plantuml.repairs import EMPTY_MULTIPLICITY, INLINE_BODY, SLASH_COMMENT

_TRAILING_SLASHES = re.compile(r"(^|\s)//.*$")
_END_NOTE = re.compile(r"^end\s?note$", re.I)
_METHOD = re.compile(terminal("METHOD_LINE"))
_SEPARATOR = re.compile(terminal("SEPARATOR_LINE"))
_BLOCK_SETTING = re.compile(
    r"^(?:(?:left|right|center)\s+)?(legend|header|footer|title|caption)\b(?!.*:)"
    r"(\s+(left|right|center|top|bottom))*\s*$", re.I)
_PORT = re.compile(r"::.*$")
_PACKAGE_ALIAS = re.compile(r"^\s+as\s+([\w$.]+)")
_NOTE_OF = re.compile(r'^(?:top|bottom|left|right)\s+of\s+("[^"]+"|[^\s:#]+)', re.I)
_NOTE_ALIAS = re.compile(r"\bas\s+([\w$.]+)\s*$")
_SLASH_LINE = re.compile(r"^\s*//")
_FIELD = re.compile(r"\{field\}", re.I)
_LONE_MODIFIERS = re.compile(r"(?:\{(?:static|abstract|classifier|field)\}\s*)+", re.I)
"""A body line of modifiers and nothing they apply to: PlantUML keeps it as a field only beside
other member lines."""
_STYLE = re.compile(r"^<style>", re.I)
_SPRITE = re.compile(r"^sprite\s+\$?\w+", re.I)
_HIDE_ONE = re.compile(r'^hide\s+("[^"]+"|[^\s<@$]\S*)\s*$', re.I)
_HIDE_WORDS = {"empty", "members", "member", "fields", "field", "attributes", "attribute",
               "methods", "method", "circle", "circles", "stereotype", "stereotypes",
               "class", "interface", "enum", "abstract", "annotation", "entity", "footbox",
               "unlinked", "private", "protected", "public", "package", "packages", "title"}
_REMOVE_LINK = re.compile(r"^(remove|restore)\b", re.I)
_ALLOW_MIXING = re.compile(r"^allow_?mixing\b", re.I)
_DATA_BLOCK = re.compile(r'^(?:json|map)\s+("[^"]+"|[^\s{]+)(?:\s+(?:<<.*>>|#\S+))*\s*\{?$', re.I)
_ELEMENT_ALIAS = re.compile(r'^(?:"([^"]+)"|(\S+))(?:\s+as\s+("[^"]+"|[^\s#<]+))?')
_PACKAGE_NAME = re.compile(r'^(?:"([^"]+)"|([^\s"#<]+))')


def parse_standard(text: str) -> Diagram:
    """Read ``text`` as PlantUML does; raise ``ParseError`` at the first line it cannot read."""
    block = find_block(text)
    if block is None:
        raise ParseError(NO_BLOCK, line=1, column=1, line_text=text.split("\n", 1)[0])
    _, start, end = block
    first_line = text.count("\n", 0, start) + 1
    body = text[start : end - len("@enduml")]
    body_lines = expand_macros(_strip_comments(body).split("\n"), first_line)
    lines = [_TRAILING_SLASHES.sub("", line) for line in body_lines]
    return _Reader(lines, first_line, body_lines=body_lines).read()


def _strip_comments(body: str) -> str:
    """Blank out comments, keeping every line and column where it was.

    ``//`` starts no comment to PlantUML: in a class body it is member text, elsewhere a line
    PlantUML rejects, which the reader reads through (``SLASH_COMMENT``)."""
    body = _blank_block_comments(body)
    out = []
    for line in body.split("\n"):
        line = line.rstrip("\r")
        out.append("" if line.lstrip().startswith("'") else line)
    return "\n".join(out)


def _blank_block_comments(body: str) -> str:
    """Each ``/' … '/`` as spaces (newlines kept), left to right, in one pass: a lazy
    ``/'.*?'/`` would rescan to the end from every ``/'`` of an unclosed comment."""
    parts, position = [], 0
    while (start := body.find("/'", position)) >= 0:
        end = body.find("'/", start + 2)
        if end < 0:
            break
        parts += [body[position:start], re.sub(r"[^\n]", " ", body[start : end + 2])]
        position = end + 2
    return "".join(parts) + body[position:]


def _span(tree: Tree | Token, line: str) -> str:
    """The source text a subtree was read from (types keep their spelling)."""
    if isinstance(tree, Token):
        return str(tree)
    return line[tree.meta.start_pos : tree.meta.end_pos]


def classify_arrow(arrow: str) -> tuple[RelationshipKind, bool]:
    """(kind, swap): what a PlantUML arrow means, and whether its right end is the source.

    The source is the whole for composition and aggregation, the parent for inheritance and
    the tail otherwise.
    """
    left = re.match(r"<\||<|\*|o|#|\+", arrow)
    right = re.search(r"(\|>|>|\*|o|#|\+)$", arrow)
    heads = (left.group(0) if left else "", right.group(1) if right else "")
    diamonds: tuple[tuple[tuple[str, ...], RelationshipKind], ...] = (
        (("<|", "|>"), "inheritance"), (("*",), "composition"), (("o",), "aggregation")
    )
    for marks, kind in diamonds:
        if heads[0] in marks:
            return kind, False
        if heads[1] in marks:
            return kind, True
    dotted = "." in arrow
    if heads[0] == "<" and heads[1] != ">":
        return ("dependency" if dotted else "directed"), True
    if heads[1] == ">" and heads[0] != "<":
        return ("dependency" if dotted else "directed"), False
    return ("dependency" if dotted else "association"), False


@dataclass
class _Builder:
    """Collects declarations; PlantUML merges repeated declarations of one name.

    The parts of each name are gathered in lists and joined once, in ``diagram``: joining
    tuples at every redeclaration would be quadratic in the number of declarations.
    """

    classes: dict[str, list[Class]] = field(default_factory=dict)
    enums: dict[str, list[Enum]] = field(default_factory=dict)
    relationships: list[Relationship] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    mentioned: set[str] = field(default_factory=set)
    member_owners: set[str] = field(default_factory=set)
    """Names given a member with ``A : x`` (a class even when nothing declares it)."""
    unlinked_ends: set[str] = field(default_factory=set)
    """Ends of a line that draws no relationship (a hidden link, a link to an element of
    another diagram): PlantUML still makes each a class."""
    repairs: list[Repair] = field(default_factory=list)
    package_names: set[str] = field(default_factory=set)
    """A link to a package that is not also a class links no class."""
    interfaces: set[str] = field(default_factory=set)
    """Names after ``implements``: PlantUML makes an undeclared one an interface."""

    def add_class(self, cls: Class) -> None:
        self.classes.setdefault(cls.name, []).append(cls)

    def add_enum(self, enum: Enum) -> None:
        self.enums.setdefault(enum.name, []).append(enum)

    def relate(self, relationship: Relationship, *names: str) -> None:
        self.relationships.append(relationship)
        self.mentioned.update(names)

    def drop_links_of(self, names: set[str]) -> None:
        """No relationship touches ``names`` any more; the other end of each dropped link was
        still made a class by it, as PlantUML makes it."""
        kept = []
        for relationship in self.relationships:
            ends = set(_ends(relationship))
            if ends & names:
                self.unlinked_ends |= ends
            else:
                kept.append(relationship)
        self.relationships = kept

    def diagram(self, display: Callable[[set[str]], dict[str, str]]) -> Diagram:
        """The declarations merged by name; a name declared both as a class and an enum takes
        the kind of its last declaration, the other's members with it, as PlantUML does.
        ``display`` names each class in the model by its full name (the builder's key)."""
        for name in self.classes.keys() & self.enums.keys():
            classes, enums = self.classes[name], self.enums[name]
            declared = max((c.line or 0 for c in classes if c.kind), default=-1)  # A : x, no kind
            if declared > max(e.line or 0 for e in enums):
                literals = [
                    Attribute(value, line=line)
                    for e in enums
                    for value, line in zip(e.values, e.value_lines or (e.line,) * len(e.values))
                ]
                classes.insert(0, Class(name, attributes=tuple(literals), line=enums[0].line))
                del self.enums[name]
            else:
                enums.append(
                    Enum(
                        name,
                        tuple(a.name for c in classes for a in c.attributes),
                        value_lines=tuple(a.line or 0 for c in classes for a in c.attributes),
                    )
                )
                del self.classes[name]
        for name in sorted(self.interfaces - self.classes.keys() - self.enums.keys()):
            self.classes[name] = [Class(name, True, kind="interface")]
        packages = self.package_names - self.classes.keys() - self.enums.keys()
        if packages:
            self.drop_links_of(packages)
            self.mentioned = {name for r in self.relationships for name in _ends(r)}
            self.mentioned |= self.member_owners | (self.unlinked_ends - packages)
        implicit = self.mentioned - self.classes.keys()
        shown = display(set(self.classes) | set(self.enums) | implicit)
        return Diagram(
            classes=tuple(
                replace(_merged_class(parts), name=shown[key])
                for key, parts in self.classes.items()
            ),
            enums=tuple(
                replace(_merged_enum(parts), name=shown[key]) for key, parts in self.enums.items()
            ),
            relationships=tuple(_renamed(r, shown) for r in self.relationships),
            notes=tuple(self.notes),
            implicit_classes=tuple(sorted(shown[key] for key in implicit)),
            repairs=tuple(self.repairs),
        )


def _parse_line(start: str, line: str) -> Tree:
    return parser().parse(line, start=start)


#: Per grammar start rule, its lines' parse trees, shared by every diagram holding the line (the
#: reader only reads trees): lark's parse is most of a reading's time.
_LINE_PARSERS = {
    start: memoised_short_lines(partial(_parse_line, start))
    for start in ("top_line", "member_line", "free_member", "enum_line")
}


@dataclass
class _Reader:
    lines: list[str]
    first_line: int
    body_lines: list[str]
    """The lines with ``//`` text kept: member text in a body (``lines`` has it cut off)."""
    out: _Builder = field(default_factory=_Builder)
    slash_lines: list[Repair] = field(default_factory=list)
    note_aliases: set[str] = field(default_factory=set)
    """Names of notes (``note "x" as N``): a link to one is not a relationship."""
    names: Namespaces = field(default_factory=Namespaces)
    """Which class each name means: packages are namespaces (``set separator`` sets theirs)."""
    qualified: set[str] = field(default_factory=set)
    """Every declared class's full name, to find a class declared inside another."""
    foreign: set[str] = field(default_factory=set)
    """Elements of other diagrams (actors, components, lollipops, json): kept apart from classes,
    as PlantUML keeps them; a link to one links no class."""
    objects: set[str] = field(default_factory=set)
    """Names declared ``object``: every member line of one is a field."""
    package_lines: dict[str, int] = field(default_factory=dict)
    """Each package opened so far, by full name: the line that opened it first."""
    hidden: set[str] = field(default_factory=set)
    """Names after ``hide NAME``: PlantUML draws none of their links."""
    mixing: bool = False
    """Whether ``allow_mixing`` lets the elements of other diagrams into the class diagram."""
    description_line: int | None = None
    at: int = 0
    """The index of the top-level line being read."""
    """The first line (index + 1) only a use-case or component diagram takes."""

    def read(self) -> Diagram:
        i = 1  # line 0 is the rest of the @startuml line: a diagram name, ignored
        while i < len(self.lines):
            i = self._top_level(i)
        self.out.repairs[:0] = self.slash_lines
        if self.description_line is not None and not self.mixing:
            return self._description_diagram(self.description_line)
        if self.foreign:
            self.out.drop_links_of(self.foreign)
            self.out.mentioned -= self.foreign
            self.out.unlinked_ends -= self.foreign
        if self.hidden:  # PlantUML hides the links of a hidden class; the class stays
            self.out.drop_links_of({self.names.resolve(name) for name in self.hidden})
        self.out.package_names = set(self.names.packages)
        return self.out.diagram(self.names.display)

    def _description_diagram(self, line: int) -> Diagram:
        """Elements of a use-case or component diagram without ``allow_mixing``: PlantUML reads
        the whole text as that diagram, which has no classes, or rejects it if it declares any."""
        kinds = {c.kind for parts in self.out.classes.values() for c in parts}
        if self.out.enums or self.out.member_owners or kinds - {"interface"}:
            raise self._error(line - 1, "an element of a use-case or component diagram: PlantUML "
                                     "takes it beside classes only after 'allow_mixing'")
        return Diagram(repairs=tuple(self.out.repairs))

    def _parse(self, i: int, start: str) -> Tree:
        try:
            return _LINE_PARSERS[start](self.lines[i])
        except UnexpectedInput as exc:
            raise self._unexpected(i, exc) from None

    def _top_level(self, i: int) -> int:
        line = self.lines[i].strip()
        if _SLASH_LINE.match(self.body_lines[i]):
            self.slash_lines.append(Repair(SLASH_COMMENT, self._line_number(i)))
        if not line:
            return i + 1
        if line.endswith("{") and line.lower().startswith("skinparam"):
            return self._skip_block(i, "skinparam")
        if block := _BLOCK_SETTING.match(line):
            return self._skip_to_end(i, block.group(1).lower())
        if _STYLE.match(line):
            return self._skip_style(i)
        if _SPRITE.match(line):  # a picture for stereotypes, drawn from its lines up to '}'
            return self._skip_block(i, "sprite") if line.endswith("{") else i + 1
        if data := _DATA_BLOCK.match(line):
            self.foreign.add(data.group(1).strip('"'))
            return self._skip_data(i) if line.endswith("{") else i + 1
        node = self._parse(i, "top_line").children[0]
        if isinstance(node, Token):
            if (separator := separator_setting(line)) is not None:
                self.names.separator = separator
            if _ALLOW_MIXING.match(line):
                self.mixing = True
            if (hidden := _HIDE_ONE.match(line)) and hidden.group(1).lower() not in _HIDE_WORDS:
                self.hidden.add(hidden.group(1).strip('"'))
            return i + 1
        if node.data in ("relationship", "quoted_target") and _REMOVE_LINK.match(line):
            raise self._error(i, "a link from a class named 'remove' or 'restore': PlantUML "
                                 "reads the line as its remove command, not as a link")
        handler = getattr(self, f"_{node.data}")
        self.at = i
        return handler(i, node)

    def _class_decl(self, i: int, node: Tree) -> int:
        keyword, name, *rest = node.children
        name = self._class_name(name)
        self._check_hierarchy(i, name)
        self._refuse_a_package(i, name, "class", "rejects it ('it already exists')")
        kind = {"plain_class": "class", "abstract_class": "abstract class"}.get(
            keyword.data
        ) or str(keyword.children[0]).lower()
        abstract = kind in ("abstract class", "interface")
        if kind == "object":
            self.objects.add(name)
        body = next((c for c in rest if isinstance(c, Tree) and c.data.endswith("body")), None)
        for parents in (c for c in rest if isinstance(c, Tree) and c.data == "parents"):
            typed = any(isinstance(c, Token) and c.type == "GENERICS" for c in parents.children)
            if typed and body is None and self._next_line(i) != "{":
                raise self._error(i, "type arguments after extends or implements: PlantUML "
                                     "takes them only when a body '{' follows")
            implements = self.lines[i][parents.meta.start_pos:].lower().startswith("implements")
            implements = implements or kind == "interface"  # an interface extends interfaces
            for parent in (self._parent(c) for c in parents.children if isinstance(c, Tree)):
                if implements:
                    self.out.interfaces.add(parent)
                self.out.relate(
                    Relationship("inheritance", parent, name, line=self._line_number(i)),
                    parent,
                    name,
                )
        if body is None and self._next_line(i) == "{":
            return self._class_body(self._next_index(i), name, abstract, kind)
        if body is None or body.data == "inline_body":
            members = body.children[0] if body is not None and body.children else None
            attributes = self._members(i, members) if members is not None else ()
            if members is not None:
                self.out.repairs.append(Repair(INLINE_BODY, self._line_number(i)))
            self.out.add_class(Class(name, abstract, attributes, line=self._line_number(i), kind=kind))
            return i + 1
        return self._class_body(i, name, abstract, kind)

    def _class_body(self, i: int, name: str, abstract: bool, kind: str) -> int:
        """The members up to ``}``, each line as PlantUML keeps it: ``//`` is member text there,
        an enum on one line is a member line, and an object's lines are all fields."""
        attributes: list[Attribute] = []
        nested: list[Enum] = []
        members_seen = False  # '{abstract}' alone is a field only beside other member lines
        j = i + 1
        while j < len(self.lines):
            text = self.body_lines[j].strip()
            if self.lines[j].strip() == "}":
                self.out.add_class(
                    Class(
                        name,
                        abstract,
                        tuple(attributes) if members_seen else (),
                        tuple(nested),
                        line=self._line_number(i),
                        kind=kind,
                    )
                )
                return j + 1
            if not text or _SEPARATOR.match(text):
                j += 1
                continue
            if kind != "object" and _LONE_MODIFIERS.fullmatch(text):
                attributes.append(self._free_attribute(j, text))
                j += 1
                continue
            members_seen = True
            if kind == "object" or _FIELD.search(text):
                attributes.append(self._free_attribute(j, text))
                j += 1
                continue
            if _METHOD.match(text):
                j += 1
                continue
            try:
                node = _LINE_PARSERS["member_line"](self.lines[j]).children[0]
            except UnexpectedInput:
                attributes.append(self._free_attribute(j, text))
                j += 1
                continue
            if node.data == "enum_decl" and _opens_body(node):
                enum, j = self._enum(j, node)
                nested.append(enum)
                continue
            if node.data == "enum_decl":
                attributes.append(self._free_attribute(j, text))
            else:
                attributes.extend(self._members(j, node))
            j += 1
        raise self._error(i, f"class {name!r} is opened but never closed (no line with '}}')")

    def _members(self, i: int, member_list: Tree) -> tuple[Attribute, ...]:
        attributes = []
        for member in member_list.children:
            attribute = member.children[-1]
            if attribute.data != "method":
                attributes.append(self._attribute(i, attribute))
        return tuple(attributes)

    def _attribute(self, i: int, node: Tree) -> Attribute:
        line = self.lines[i]
        parts = {c.data if isinstance(c, Tree) else c.type: c for c in node.children}
        default = parts.get("default")
        value = str(default.children[0]).strip() if default is not None else None
        names = [c for c in node.children if isinstance(c, Token) and c.type == "IDENT"]
        type_ = _span(parts["type"], line) if "type" in parts else None
        return Attribute(
            str(names[-1]), type_, value, node.data == "constant", line=self._line_number(i)
        )

    def _class_name(self, node: Tree) -> str:
        """The full name a declaration gives (an alias over a quoted display name)."""
        return self.names.declare(_qualified(node))

    def _end(self, node: Tree) -> str:
        token = _token(node)
        if token.type == "ELEMENT_END":  # [component], :actor:, (use case)
            name = str(token)[1:-1].strip().strip('"')
            self.foreign.add(name)
            self._describes(self.at + 1)
            return name
        name = str(token)[1:-1] if token.type == "QUOTED" else str(token)
        if token.type != "QUOTED" and self.names.separator != "::":
            name = _PORT.sub("", name)  # A::member, unquoted, is a member of A
        if name in self.foreign or name in self.note_aliases:
            return name
        return self.names.resolve(name)

    def _parent(self, node: Tree) -> str:
        """A name after ``extends`` or ``implements``: PlantUML looks for it in the current
        package only, and makes it there if it is not found (a declaration, not a link)."""
        token = _token(node)
        name = str(token)[1:-1] if token.type == "QUOTED" else str(token)
        return self.names.declare(name)

    def _check_hierarchy(self, i: int, qualified: str) -> None:
        """PlantUML refuses a class inside a class (``A.B`` after ``class A``), in either order."""
        separator = self.names.separator
        if not separator:
            return
        self.qualified.add(qualified)
        outer = qualified.rpartition(separator)[0]
        inner = [q for q in self.qualified if q.startswith(qualified + separator)]
        if outer in self.qualified or inner:
            parent, child = (outer, qualified) if outer in self.qualified else (qualified, inner[0])
            raise self._error(i, f"class {child!r} is inside class {parent!r}: PlantUML has no "
                                 "nested classes (it says 'Bad hierarchy')")

    def _free_attribute(self, i: int, text: str) -> Attribute:
        """A member line the precise rules cannot split: one attribute, as PlantUML keeps it."""
        if self.lines[i].strip():  # not a line of // text only
            self._parse(i, "free_member")
        name, type_, value = _free_member(_TRAILING_SLASHES.sub("", text) or text)
        return Attribute(name, type_, value, line=self._line_number(i))

    def _enum_decl(self, i: int, node: Tree) -> int:
        enum, j = self._enum(i, node)
        self.out.add_enum(enum)
        return j

    def _enum(self, i: int, node: Tree) -> tuple[Enum, int]:
        """An enum declared at line ``i`` (inline or as a block); return it and the next line."""
        name = self._class_name(node.children[0])
        last = node.children[-1]
        body = last if isinstance(last, Tree) and last.data.endswith("enum_body") else None
        opened = i
        if body is None and self._next_line(i) == "{":  # the body's brace on the next line
            opened = self._next_index(i)
        elif body is None or body.data == "inline_enum_body":
            inline = _literals(body.children[0]) if body is not None and body.children else ()
            number = self._line_number(i)
            if inline:  # PlantUML rejects literals on the line that opens the body
                self.out.repairs.append(Repair(INLINE_BODY, number))
            enum = Enum(
                name, inline, body is not None, line=number, value_lines=(number,) * len(inline)
            )
            return enum, i + 1
        values: list[str] = []
        lines: list[int] = []
        for j in range(opened + 1, len(self.lines)):
            line, text = self.lines[j].strip(), self.body_lines[j].strip()
            if line == "}":
                enum = Enum(
                    name, tuple(values), line=self._line_number(i), value_lines=tuple(lines)
                )
                return enum, j + 1
            if text and not _SEPARATOR.match(text) and not _METHOD.match(text):
                try:
                    literals = _literals(_LINE_PARSERS["enum_line"](self.lines[j]).children[0])
                except UnexpectedInput:
                    literals = (self._free_attribute(j, text).name,)
                values.extend(literals)
                lines.extend([self._line_number(j)] * len(literals))
        raise self._error(i, f"enum {name!r} is opened but never closed (no line with '}}')")

    def _relationship(self, i: int, node: Tree) -> int:
        tokens: dict[str, list[Token]] = {}
        ends = []
        for child in node.children:
            if isinstance(child, Tree):
                ends.append(self._end(child))
            else:
                tokens.setdefault(child.type, []).append(child)
        source, target = ends
        arrow_text = str(tokens["ARROW"][0])
        if source.lower() in _DECLARING_WORDS and arrow_text in ("o.", "x."):
            raise self._error(i, f"a one-letter package {arrow_text[0]!r} after {source!r} reads "
                                 "as an arrow head here, which the reading cannot tell apart")
        if arrow_text.startswith("()"):
            self.foreign.add(source)
        if arrow_text.endswith("()"):
            self.foreign.add(target)
        if {source, target} & self.note_aliases:
            return i + 1
        if {source, target} & self.foreign:
            self.out.mentioned.update({source, target} - self.foreign)
            self.out.unlinked_ends.update({source, target} - self.foreign)
            return i + 1
        if "hidden" in tokens["ARROW"][0]:  # a layout hint, no link; its ends are classes
            self.out.mentioned.update((source, target))
            self.out.unlinked_ends.update((source, target))
            return i + 1
        arrow = tokens["ARROW"][0]
        source_card = target_card = None
        for card in tokens.get("CARDINALITY", []):
            if card == '""':
                self.out.repairs.append(Repair(EMPTY_MULTIPLICITY, self._line_number(i)))
            elif (card.start_pos or 0) < (arrow.start_pos or 0):
                source_card = str(card[1:-1])
            else:
                target_card = str(card[1:-1])
        kind, swap = classify_arrow(arrow)
        if swap:
            source, target, source_card, target_card = target, source, target_card, source_card
        label = _label(tokens.get("LABEL"))
        self.out.relate(
            Relationship(
                kind, source, target, source_card, target_card, label, line=self._line_number(i)
            ),
            source,
            target,
        )
        return i + 1

    def _quoted_target(self, i: int, node: Tree) -> int:
        """``A -- "B C"``: a quoted name after an arrow, with no multiplicity before it."""
        *rest, last = node.children
        if isinstance(last, Token) and last.type == "LABEL":
            *rest, target = rest
            rest.append(Tree("end", [Token("QUOTED", str(target))]))
            rest.append(last)
        else:
            rest.append(Tree("end", [Token("QUOTED", str(last))]))
        return self._relationship(i, Tree("relationship", rest))

    def _next_index(self, i: int) -> int:
        j = i + 1
        while j < len(self.lines) and not self.lines[j].strip():
            j += 1
        return j

    def _next_line(self, i: int) -> str:
        j = self._next_index(i)
        return self.lines[j].strip() if j < len(self.lines) else ""

    def _assoc_class(self, i: int, node: Tree) -> int:
        a, b, _arrow, target, *label = (
            self._end(child) if isinstance(child, Tree) else str(child) for child in node.children
        )
        self.out.relate(
            Relationship(
                "association_class",
                f"({a}, {b})",
                target,
                label=_label(label),
                association_members=(a, b),
                line=self._line_number(i),
            ),
            a,
            b,
            target,
        )
        return i + 1

    def _member_of(self, i: int, node: Tree) -> int:
        """``A : x`` adds a member to A; PlantUML wants a space on each side of the colon."""
        colon = node.children[1]
        assert isinstance(colon, Token) and colon.start_pos is not None
        line = self.lines[i]
        if not (line[colon.start_pos - 1 : colon.start_pos].isspace()
                and line[colon.start_pos + 1 : colon.start_pos + 2].isspace()):
            raise self._error(i, "a member line needs a space on each side of ':' ('A : x'); "
                                 "PlantUML rejects 'A: x' and 'A :x'")
        name, text = self._end(node.children[0]), str(node.children[1])[1:].strip()
        if name in self.note_aliases:
            return i + 1
        self._refuse_a_package(i, name, "the member line's class", "drops the line")
        attributes: tuple[Attribute, ...] = ()
        if not _SEPARATOR.match(text) and (name in self.objects or not _METHOD.match(text)):
            attributes = (self._free_attribute(i, text),)
        self.out.add_class(Class(name, attributes=attributes, line=self._line_number(i)))
        self.out.mentioned.add(name)
        self.out.member_owners.add(name)
        return i + 1

    def _knows(self, name: str) -> bool:
        """Whether a class, package or element of that name was met so far."""
        return self.names.knows(name) or name.strip('"') in self.foreign | self.note_aliases

    def _note_decl(self, i: int, node: Tree) -> int:
        header = str(node.children[1]).strip() if len(node.children) > 1 else ""
        if (of := _NOTE_OF.match(header)) and not self._knows(_PORT.sub("", of.group(1))):
            raise self._error(i, f"note of {of.group(1)!r} before it is declared: PlantUML "
                                 "rejects a note of a class it does not know yet")
        if header.startswith('"'):
            content, _, position = header[1:].partition('"')
            if alias := _NOTE_ALIAS.search(position):
                self.note_aliases.add(alias.group(1))
            self.out.notes.append(Note(content, position.strip()))
            return i + 1
        if alias := _NOTE_ALIAS.search(header):
            self.note_aliases.add(alias.group(1))
        if colon := _SINGLE_COLON.search(header):
            position, content = header[: colon.start()], header[colon.end() :]
            self.out.notes.append(Note(content.strip(), position.strip()))
            return i + 1
        for j in range(i + 1, len(self.lines)):
            if _END_NOTE.match(self.lines[j].strip()):
                content = "\n".join(line.strip() for line in self.lines[i + 1 : j]).strip()
                self.out.notes.append(Note(content, header))
                return j + 1
        raise self._error(i, "note is opened but never closed (no 'end note' line)")

    def _package_open(self, i: int, node: Tree) -> int:
        """A package, namespace or other group opens: a namespace, unless ``together``."""
        keyword = str(node.children[0]).lower()
        names = [
            str(c).strip()
            for c in node.children
            if isinstance(c, Token) and c.type == "PACKAGE_NAME"
        ]
        opened = None
        if keyword != "together" and names and (name := _PACKAGE_NAME.match(names[0])):
            opened = (name.group(1) or name.group(2)).strip()
            if alias := _PACKAGE_ALIAS.search(names[0][name.end():]):
                opened = alias.group(1)
        self.names.open(opened)
        if opened:
            path = self.names.current() or opened
            if path in self.out.classes or path in self.out.enums:
                raise self._error(i, f"package {path!r} is named like a class declared before "
                                     "it: PlantUML makes that class the package")
            self.package_lines.setdefault(path, self._line_number(i))
        return i + 1

    def _refuse_a_package(self, i: int, name: str, what: str, plantuml: str) -> None:
        """PlantUML keeps a package's name for the package: ``what`` cannot also use it."""
        if name in self.package_lines:
            raise self._error(i, f"{what} {name!r} is named like the package opened at line "
                                 f"{self.package_lines[name]}: PlantUML {plantuml}")

    def _element_decl(self, i: int, node: Tree) -> int:
        """``actor A``, ``component "C" as C``, ``() I``, ``<> D``: no class."""
        keyword = str(node.children[0]).strip()
        rest = str(node.children[1]).strip() if len(node.children) > 1 else ""
        self.foreign.add(_element_name(rest))
        if keyword.lower() not in ("()", "<>", "diamond"):  # class diagrams' own shapes
            self._describes(i + 1)
        return i + 1

    def _element_line(self, i: int, node: Tree) -> int:
        """``[C]`` or ``[C] as API`` on a line of its own: a component."""
        rest = str(node.children[1]).strip() if len(node.children) > 1 else ""
        alias = re.match(r"as\s+(\S+)", rest)
        name = alias.group(1) if alias else str(node.children[0])[1:-1].strip().strip('"')
        self.foreign.add(name.strip('"'))
        self._describes(i + 1)
        return i + 1

    def _lone_package(self, i: int, node: Tree) -> int:
        """``node N``, ``database D`` with no body: a deployment element, no class. A
        ``package``'s body may open on the next line (not a namespace's, nor a node's)."""
        if str(node.children[0]).lower() == "package" and self._next_line(i) == "{":
            self._package_open(i, node)
            return self._next_index(i) + 1
        self.foreign.add(_element_name(str(node.children[1]).strip()))
        return i + 1

    def _describes(self, index: int) -> None:
        """Note the first line only a use-case or component diagram takes."""
        if self.description_line is None:
            self.description_line = index

    def _skip_data(self, i: int) -> int:
        """A ``json`` or ``map`` block: its braces balanced, whatever they hold."""
        depth = 0
        for j in range(i, len(self.lines)):
            depth += self.lines[j].count("{") - self.lines[j].count("}")
            if depth <= 0:
                return j + 1
        raise self._error(i, "json block is opened but never closed (no line with '}')")

    def _empty_package(self, i: int, node: Tree) -> int:
        """``package p {}``: a package with nothing in it is still a package (a link to it
        links no class)."""
        self._package_open(i, node)
        self.names.close()
        return i + 1

    def _block_close(self, i: int, node: Tree) -> int:
        """A package's end; PlantUML also passes over a '}' that closes nothing."""
        self.names.close()
        return i + 1

    def _skip_to_end(self, i: int, keyword: str) -> int:
        """A multi-line legend, header, footer or title: its text up to ``end<keyword>``."""
        end = re.compile(rf"^end\s?{keyword}$", re.I)
        for j in range(i + 1, len(self.lines)):
            if end.match(self.lines[j].strip()):
                return j + 1
        raise self._error(i, f"{keyword} is opened but never closed (no 'end{keyword}' line)")

    def _skip_style(self, i: int) -> int:
        """A ``<style>`` block: its CSS up to ``</style>``."""
        for j in range(i, len(self.lines)):
            if "</style>" in self.lines[j].lower():
                return j + 1
        raise self._error(i, "<style> is opened but never closed (no '</style>' line)")

    def _skip_block(self, i: int, keyword: str) -> int:
        """A ``skinparam`` or ``sprite`` block up to the ``}`` that closes it: a skinparam block
        may hold blocks of its own (``skinparam {`` then ``class {`` ... ``}``)."""
        depth = 0
        for j in range(i, len(self.lines)):
            line = self.lines[j].strip()
            depth += line.endswith("{") - (line == "}")
            if depth <= 0:
                return j + 1
        raise self._error(i, f"{keyword} block is opened but never closed")

    def _line_number(self, i: int) -> int:
        return self.first_line + i

    def _error(self, i: int, message: str) -> ParseError:
        line = self.lines[i]
        column = len(line) - len(line.lstrip()) + 1
        number = self._line_number(i)
        return ParseError(
            f"line {number}: {message}",
            line=number,
            column=column,
            line_text=line,
            reason=message,
        )

    def _unexpected(self, i: int, exc: UnexpectedInput) -> ParseError:
        line = self.lines[i]
        column = exc.column if isinstance(exc.column, int) and exc.column > 0 else 1
        if isinstance(exc, UnexpectedCharacters):
            found = repr(line[column - 1])
        elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
            found = repr(str(exc.token))
        else:
            found = "the end of the line"
        number = self._line_number(i)
        reason = f"cannot read {found} here: {line.strip()!r}"
        message = f"line {number}, column {column}: {reason}"
        return ParseError(message, line=number, column=column, line_text=line, reason=reason)


def _merged_class(parts: list[Class]) -> Class:
    """One class of its declarations: the first says where it is, the last that names a kind
    (not ``A : x``, which only adds a member) what kind it is, as in PlantUML, where
    ``interface A`` after ``class A`` makes A an interface and ``class A`` after it a class."""
    kinded = [part for part in parts if part.kind is not None]
    last = kinded[-1] if kinded else None
    return Class(
        parts[0].name,
        last.is_abstract if last else any(part.is_abstract for part in parts),
        tuple(a for part in parts for a in part.attributes),
        tuple(e for part in parts for e in part.nested_enums),
        line=parts[0].line,
        kind=last.kind if last and last.kind else "class",
    )


def _merged_enum(parts: list[Enum]) -> Enum:
    return Enum(
        parts[0].name,
        tuple(v for part in parts for v in part.values),
        all(part.is_inline for part in parts),
        line=parts[0].line,
        value_lines=tuple(n for part in parts for n in part.value_lines),
    )


def _element_name(text: str) -> str:
    """The name an element is linked by: its alias, else its (unquoted) name."""
    found = _ELEMENT_ALIAS.match(text)
    if found is None:
        return text
    alias = found.group(3)
    if alias:
        return alias.strip('"')
    return found.group(1) or found.group(2)


def _opens_body(enum_decl: Tree) -> bool:
    """Whether an enum's line ends in ``{``, its literals on the lines below."""
    last = enum_decl.children[-1]
    return isinstance(last, Tree) and last.data == "open_enum_body"


def _literals(items: Tree) -> tuple[str, ...]:
    return tuple(str(item.children[0]) for item in items.children)


def _label(tokens: Sequence[str] | None) -> str | None:
    return str(tokens[0])[1:].strip() if tokens else None


def _renamed(relationship: Relationship, name: dict[str, str]) -> Relationship:
    members = relationship.association_members
    if members is not None:
        a, b = name.get(members[0], members[0]), name.get(members[1], members[1])
        return replace(relationship, source=f"({a}, {b})", target=name[relationship.target],
                       association_members=(a, b))
    return replace(relationship, source=name[relationship.source],
                   target=name[relationship.target])


def _ends(relationship: Relationship) -> tuple[str, ...]:
    """The classes a relationship names (an association class's two members and its class)."""
    if relationship.association_members:
        return (*relationship.association_members, relationship.target)
    return relationship.source, relationship.target


def _token(node: Tree) -> Token:
    """The token an ``end`` rule holds."""
    token = node.children[0]
    assert isinstance(token, Token), node
    return token


def _qualified(node: Tree) -> str:
    tokens = {child.type: str(child) for child in node.children if isinstance(child, Token)}
    return tokens["NAME"] if "NAME" in tokens else tokens["QUOTED"][1:-1]




_FREE_NOISE = re.compile(r"\{(static|abstract|classifier|field)\}|<<.*?>>|\{[^}]*\}\s*$", re.I)
_SINGLE_COLON = re.compile(r"(?<!:):(?!:)")
_DECLARING_WORDS = {"class", "interface", "enum", "abstract", "entity", "struct", "protocol",
                    "object", "annotation", "exception", "metaclass", "stereotype", "record"}
"""Words that open a declaration: a "link" from one is ``class x.Y`` misread as an arrow."""

_FREE_KEYWORDS = {"val", "var", "let", "const", "readonly", "public", "private", "protected",
                  "internal", "static", "final", "volatile", "transient", "mutable", "unique"}


def _free_member(text: str) -> tuple[str, str | None, str | None]:
    """(name, type, default) of a member line in any language's style: ``name : Type``
    (Kotlin, TypeScript, UML) or ``Type name`` (Java, C#, Go), with marks and modifiers left out."""
    text = _FREE_NOISE.sub(" ", text).strip().lstrip("+-#~").strip()
    text, equals, value = text.partition("=")
    default = value.strip() or None if equals else None
    if colon := _SINGLE_COLON.search(text):
        before, type_ = text[: colon.start()], text[colon.end() :]
        words = [w for w in before.split() if w.lower() not in _FREE_KEYWORDS]
        name = words[-1] if words else before.strip()
        return name.rstrip("?"), type_.strip() or None, default
    words = [w for w in text.split() if w.lower() not in _FREE_KEYWORDS] or [text.strip()]
    return words[-1], " ".join(words[:-1]) or None, default
