"""The standard reading: PlantUML's meaning, errors with positions, the grammar reference."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from dmbench.errors import UnknownNameError
from dmbench.plantuml import (
    Attribute,
    Class,
    Diagram,
    ParseError,
    Relationship,
    grammar_reference,
    parse,
)
from dmbench.plantuml._compat import ARROWS
from dmbench.plantuml._grammar import grammar_arrows, parser, terminal
from dmbench.plantuml._standard import classify_arrow
from dmbench.plantuml._validator import _ARROWS as VALIDATOR_ARROWS


def read(body: str):
    return parse(f"@startuml\n{body}\n@enduml\n")


class TestArrows:
    @pytest.mark.parametrize(
        ("arrow", "kind", "swap"),
        [
            ("--", "association", False),
            ("-", "association", False),
            ("---", "association", False),
            ("-->", "directed", False),
            ("<--", "directed", True),
            ("-up->", "directed", False),
            ("-[#red]->", "directed", False),
            ("..", "dependency", False),
            ("..>", "dependency", False),
            ("<..", "dependency", True),
            ("<|--", "inheritance", False),
            ("--|>", "inheritance", True),
            ("<|..", "inheritance", False),
            ("..|>", "inheritance", True),
            ("*--", "composition", False),
            ("--*", "composition", True),
            ("*-->", "composition", False),
            ("<--*", "composition", True),
            ("o--", "aggregation", False),
            ("--o", "aggregation", True),
        ],
    )
    def test_arrow_kind_and_source_end(self, arrow, kind, swap):
        """Source is the whole, the parent or the tail; the table matches LANGUAGE.md."""
        assert classify_arrow(arrow) == (kind, swap)
        rel = read(f'L "l" {arrow} "r" R').relationships[0]
        expected = ("R", "L", "r", "l") if swap else ("L", "R", "l", "r")
        ends = (rel.source, rel.target, rel.source_cardinality, rel.target_cardinality)
        assert (rel.kind, *ends) == (kind, *expected)


class TestDeclarations:
    def test_members_of_every_form(self):
        """Types keep their spelling; operations and constraints are not attributes; a one-line
        enum in a body is a member line to PlantUML (a field), not a nested enum."""
        d = read(
            "class A {\n  + id : Long\n  Map<String, Integer> m = x\n  const int MAX = 10\n"
            "  getName() : String\n  flag : Boolean {readOnly}\n  enum K { P, Q }\n}"
        )
        assert d.classes == (
            Class(
                "A",
                attributes=(
                    Attribute("id", "Long"),
                    Attribute("m", "Map<String, Integer>", "x"),
                    Attribute("MAX", "int", "10", True),
                    Attribute("flag", "Boolean"),
                    Attribute("K", "enum"),
                ),
            ),
        )

    def test_interface_and_abstract_are_abstract_classes(self):
        """An interface has no model field of its own; it reads as an abstract class."""
        d = read("interface I\nabstract A\nabstract class B\nclass C")
        assert [(c.name, c.is_abstract) for c in d.classes] == [
            ("I", True),
            ("A", True),
            ("B", True),
            ("C", False),
        ]

    def test_extends_adds_inheritance(self):
        """``class A extends B`` is the same as ``B <|-- A``; B stays implicit."""
        d = read("class A extends B")
        assert d.relationships == (Relationship("inheritance", "B", "A"),)
        assert d.implicit_classes == ("B",)

    def test_packages_settings_and_comments_are_tolerated(self):
        """Layout commands and packages do not change the model."""
        d = read(
            "skinparam classAttributeIconSize 0\nskinparam class {\n  BackgroundColor White\n}\n"
            "hide empty members\nleft to right direction\n' comment\n/' block\ncomment '/\n"
            'package "Core" {\n  class A // trailing\n}\nA -- B'
        )
        assert [c.name for c in d.classes] == ["A"]
        assert d.relationships == (Relationship("association", "A", "B"),)

    def test_member_of_adds_an_attribute(self):
        """``A : name : String`` adds a typed attribute to A, declaring A if needed."""
        d = read("A : name : String\nA : age")
        attributes = (Attribute("name", "String"), Attribute("age"))
        assert d.classes == (Class("A", attributes=attributes),)


class TestErrors:
    def test_error_carries_line_column_and_text(self):
        """Positions count in the text given to parse, not from @startuml."""
        text = "prose before\n@startuml\nclass A\nA -- B ?\n@enduml\n"
        with pytest.raises(ParseError) as info:
            parse(text)
        err = info.value
        assert (err.line, err.column, err.line_text) == (4, 8, "A -- B ?")
        assert str(err) == "line 4, column 8: cannot read '?' here: 'A -- B ?'"
        assert isinstance(err, ValueError)

    @pytest.mark.parametrize(
        ("body", "message"),
        [
            ("class A {\n  x", "class 'A' is opened but never closed"),
            ("enum E {\n  X", "enum 'E' is opened but never closed"),
            ("class A\nnote left of A\n  x", "note is opened but never closed"),
            ("note left of A\n  x\nend note", "note of 'A' before it is declared"),
        ],
    )
    def test_unclosed_blocks(self, body, message):
        """A block that never closes is reported at the line that opened it."""
        with pytest.raises(ParseError, match=re.escape(message)):
            read(body)

    @pytest.mark.parametrize("body", ["}", "package P {\nclass A", "class A\n}"])
    def test_package_braces_plantuml_forgives(self, body):
        """A '}' closing nothing and a package left open at @enduml: PlantUML draws both."""
        assert isinstance(read(body), Diagram)

    def test_unknown_reading(self):
        """A typo in the reading name is an UnknownNameError naming both readings."""
        with pytest.raises(UnknownNameError, match="compat, standard"):
            parse("@startuml\n@enduml", "strict")


def _language() -> str:
    return resources.files("dmbench.plantuml").joinpath("LANGUAGE.md").read_text("utf-8")


def _section(title: str) -> str:
    return _language().split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def _table_cells(title: str, column: int = 0) -> list[str]:
    """Backticked snippets in one column of the tables under a LANGUAGE.md heading."""
    rows = [line for line in _section(title).splitlines() if line.startswith("| `")]
    cells = [re.split(r"(?<!\\)\|", row)[column + 1] for row in rows]
    return [s.replace("\\|", "|") for cell in cells for s in re.findall(r"`([^`]+)`", cell)]


class TestLanguageDocument:
    """LANGUAGE.md, written by hand, against the grammar: what it shows must be readable."""

    def test_the_example_diagram_parses(self):
        """The full example in 'A diagram' reads without error and finds what it shows."""
        example = _section("A diagram").split("```\n", 2)[1]
        d = parse(example)
        assert {c.name for c in d.classes} >= {"Person", "Student", "Book", "Lendable"}
        assert {e.name for e in d.enums} == {"Status", "Colour"}
        assert len(d.relationships) == 5 and len(d.notes) == 2

    def test_every_declaration_example_parses(self):
        """Each snippet in the Declarations table is a line (or lines) the grammar accepts."""
        snippets = [s.replace("…", "x") for s in _table_cells("Declarations")]
        snippets = [s for s in snippets if s not in ("{", "}")]
        assert len(snippets) >= 10
        for snippet in snippets:
            body = snippet + "\n}" if snippet.endswith("{") and "}" not in snippet else snippet
            assert isinstance(read(body), Diagram), snippet

    def test_every_member_example_parses(self):
        """Each snippet in the Class members table reads as a class body line."""
        lines = []
        for snippet in _table_cells("Class members"):
            if "…" in snippet:
                continue
            if re.fullmatch(r"\S( \S)+", snippet):  # visibility marks "+ - # ~"
                lines += [f"{mark} x" for mark in snippet.split()]
            elif re.fullmatch(r"\{\w+\}", snippet):  # a modifier
                lines.append(f"{snippet} x")
            elif re.fullmatch(r"[a-z]+", snippet) and snippet != "name":  # public, ...
                lines.append(f"{snippet} int x")
            else:
                lines.append(snippet)
        assert len(lines) >= 15
        for line in lines:
            assert isinstance(read(f"class A {{\n  {line}\n}}"), Diagram), line

    def test_every_documented_arrow_is_a_grammar_arrow(self):
        """The Relationships table's arrows are ARROW tokens and mean the kind it states."""
        rows = [r for r in _section("Relationships").splitlines() if r.startswith("| `")]
        checked = 0
        for row in rows:
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
            kind = cells[1]
            if kind == "association class":
                continue
            for arrow in re.findall(r"`([^`]+)`", cells[0]):
                arrow = arrow.replace("\\|", "|")
                assert re.fullmatch(terminal("ARROW"), arrow), arrow
                assert classify_arrow(arrow)[0] == kind, arrow
                checked += 1
        assert checked >= 15

    def test_documented_keywords_are_in_the_grammar_reference(self):
        """Every keyword LANGUAGE.md names is one grammar_reference() (the grammar) has."""
        reference = grammar_reference()
        words = set(re.findall(r"`([a-z]+(?: [a-z]+)*)`", _section("Also accepted and ignored")))
        words |= {"class", "abstract", "interface", "enum", "extends", "implements", "const"}
        words |= {"note", "end note"}
        assert len(words) > 15
        missing = [w for w in sorted(words) if w not in reference]
        assert missing == []


class TestOneGrammar:
    def test_terminals_read_from_the_grammar_text_are_larks(self):
        """``terminal`` reads a token from grammar.lark's text, as Lark reads it (Lark turns the
        escape ``\\n`` into the newline it stands for)."""
        for name in ("IDENT", "ARROW", "CARDINALITY", "LABEL"):
            ours = terminal(name)
            assert ours.replace("\\n", "\n") == parser().get_terminal(name).pattern.to_regexp()

    def test_a_token_with_flags_or_alternatives_is_refused(self):
        """MODIFIER is two patterns, the first with a flag: not one that a reader could take."""
        with pytest.raises(KeyError):
            terminal("MODIFIER")

    def test_compat_arrows_are_grammar_arrows(self):
        """compat's arrow table only adds upstream's meanings and order to the grammar's ARROW."""
        arrow = re.compile(terminal("ARROW"))
        assert all(arrow.fullmatch(text) for text, _kind, _swap in ARROWS)

    def test_validator_arrows_are_grammar_and_compat_arrows(self):
        """The validator's arrows are ARROW tokens and a subset of compat's table."""
        arrow = re.compile(terminal("ARROW"))
        assert all(arrow.fullmatch(text) for text in VALIDATOR_ARROWS)
        assert set(VALIDATOR_ARROWS) <= {text for text, _kind, _swap in ARROWS}

    def test_grammar_arrows_refuses_an_unknown_arrow(self):
        """The import-time check is live: an arrow the grammar lacks is refused."""
        assert grammar_arrows("--", "..") == ("--", "..")
        with pytest.raises(RuntimeError, match="=>"):
            grammar_arrows("--", "=>")
