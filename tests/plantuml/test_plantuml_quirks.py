"""Where compat and standard differ: one test per upstream quirk named in spec section E.

Each test shows the compat reading (upstream's, pinned by spec E.3-E.6) beside the standard
one, and has an entry in ``QUIRKS`` (``TestQuirkTable``). Everything not listed here reads the
same in both (``TestAgreement``).
"""

from __future__ import annotations

import re
from importlib import resources

import pytest

from dmbench.plantuml import Attribute, Diagram, Enum, Note, ParseError, Relationship, parse
from dmbench.plantuml._quirks import QUIRKS


def both(body: str):
    text = f"@startuml\n{body}\n@enduml\n"
    return parse(text, "compat"), parse(text, "standard")


def compat_error(body: str) -> str:
    with pytest.raises(ParseError) as info:
        parse(f"@startuml\n{body}\n@enduml\n", "compat")
    return str(info.value)


class TestAgreement:
    def test_plain_diagram_reads_the_same(self):
        """Classes, typed attributes, enums, cardinalities and labels agree across readings."""
        compat, standard = both(
            "enum Colour {\n  RED\n  GREEN\n}\n"
            "abstract class Person {\n  name : String\n  int age = 3\n  nick\n}\n"
            'class Book { }\nPerson "1" -- "0..*" Book : reads >\nPerson <|-- Author\n'
            "(Person, Book) .. Loan\nnote right of Book : cheap"
        )
        assert compat == standard
        assert standard.implicit_classes == ("Author", "Loan")

    def test_no_block_is_the_same_error(self):
        """Both readings give upstream's message when the markers are missing."""
        for reading in ("compat", "standard"):
            with pytest.raises(ParseError, match="^No UML blocks found in input"):
                parse("class A", reading)


class TestQuirks:
    def test_apostrophe_cuts_the_rest_of_the_line(self):
        """Quirk 1: compat cuts at any apostrophe; PlantUML comments start a line."""
        compat, standard = both("A -- B : customer's order")
        assert compat.relationships[0].label == "customer"
        assert standard.relationships[0].label == "customer's order"

    def test_double_slash_cuts_urls(self):
        """Quirk 1b: compat cuts at ``//`` with no ``/`` before it."""
        compat, standard = both("A -- B : see http://x")
        assert compat.relationships[0].label == "see http:"
        assert standard.relationships[0].label == "see http://x"

    @pytest.mark.parametrize(
        ("line", "expected"),
        [
            ("+name : String", Attribute("name", "String")),
            ("- int age", Attribute("age", "int")),
            ("{static} x", Attribute("x")),
            ("String name;", Attribute("name", "String")),
            ("String[] arr", Attribute("arr", "String[]")),
            ("List<String> l", Attribute("l", "List<String>")),
            ("flag : Boolean {readOnly}", Attribute("flag", "Boolean")),
        ],
    )
    def test_decorated_attributes_are_dropped(self, line, expected):
        """Quirk 2: visibility, modifiers, ``;``, array/generic types first, constraints."""
        compat, standard = both(f"class A {{\n  {line}\n}}")
        assert compat.classes[0].attributes == ()
        assert standard.classes[0].attributes == (expected,)

    def test_comma_separated_attributes_are_dropped(self):
        """Quirk 3: comma lists (the Calamo prompt's format) vanish in compat, block or inline."""
        compat, standard = both(
            "class A {\n  String a, String b\n}\nclass Book{ String Title, String Author }"
        )
        assert [c.attributes for c in compat.classes] == [(), ()]
        expected = (Attribute("a", "String"), Attribute("b", "String"))
        assert standard.classes[0].attributes == expected
        assert [a.name for a in standard.classes[1].attributes] == ["Title", "Author"]

    def test_arrow_without_spaces_takes_an_o(self):
        """Quirk 4: ``Foo-->Bar`` is an aggregation Bar -> Fo in compat."""
        compat, standard = both("Foo-->Bar\nPhoto--Album")
        assert compat.relationships == (
            Relationship("aggregation", "Bar", "Fo"),
            Relationship("aggregation", "Phot", "Album"),
        )
        assert standard.relationships == (
            Relationship("directed", "Foo", "Bar"),
            Relationship("association", "Photo", "Album"),
        )

    @pytest.mark.parametrize(
        ("line", "kind"),
        [
            ('Whole "1" *--> "*" Part', "composition"),
            ('Part "*" <--* "1" Whole', "composition"),
            ('Whole "1" o--> "*" Part', "aggregation"),
            ('Part "*" <--o "1" Whole', "aggregation"),
        ],
    )
    def test_diamond_with_arrowhead_makes_the_part_the_source(self, line, kind):
        """Quirk 5: compat's table swaps these; PlantUML's whole is the diamond end."""
        compat, standard = both(line)
        assert (compat.relationships[0].source, compat.relationships[0].kind) == ("Part", kind)
        assert standard.relationships[0] == Relationship(kind, "Whole", "Part", "1", "*")

    def test_block_enum_keeps_only_identifier_lines(self):
        """Quirk 6: ``RED,``, ``A = 1`` and multi-word literals are dropped by compat."""
        compat, standard = both("enum E {\n  RED,\n  GREEN\n  BLUE = 1\n  key player\n}")
        assert compat.enums == (Enum("E", ("GREEN",)),)
        assert standard.enums == (Enum("E", ("RED", "GREEN", "BLUE", "key player")),)

    def test_text_after_an_opening_brace_is_ignored(self):
        """Quirk 7: compat skips members on the ``class A {`` line itself."""
        text = "@startuml\nclass A { x\n  y\n}\n@enduml"
        assert parse(text, "compat").classes[0].attributes == (Attribute("y"),)
        with pytest.raises(ParseError):
            parse(text, "standard")

    def test_member_line_ending_in_brace_does_not_close(self):
        """Quirk 7b: `` x : int }`` is not ``}``, so compat never closes the class."""
        message = compat_error("class A {\n  x : int }\nA -- B")
        assert message == "Class 'A' at line 2 not properly closed"
        with pytest.raises(ParseError):
            parse("@startuml\nclass A {\n  x : int }\nA -- B\n@enduml", "standard")

    @pytest.mark.parametrize(
        "line",
        [
            "interface I",
            "abstract B",
            "class A <<Entity>>",
            "class A extends B",
            "skinparam monochrome true",
            "hide empty members",
            "title Library",
            "A ..> B",
            "A <|.. B",
            "A --- B",
        ],
    )
    def test_constructs_compat_rejects(self, line):
        """Quirk 8: PlantUML constructs that make compat raise 'Unrecognized line'."""
        assert compat_error(line).startswith(f"Unrecognized line 2: '{line}'")
        assert isinstance(parse(f"@startuml\n{line}\n@enduml", "standard"), Diagram)

    def test_floating_note_is_never_closed_in_compat(self):
        """Quirk 8c: ``note "x" as N1`` waits for an ``end note`` that never comes."""
        assert compat_error('note "x" as N1') == "Note at line 2 not properly closed"
        standard = parse('@startuml\nnote "x" as N1\n@enduml', "standard")
        assert standard.notes == (Note("x", "as N1"),)

    def test_unrecognized_line_message_names_the_line(self):
        """Quirk 8b: compat's strict error is 'Unrecognized line N' counting @startuml as 1."""
        message = compat_error("class A\ninterface I")
        assert message.splitlines()[0] == "Unrecognized line 3: 'interface I'"
        assert ">>> 3: interface I" in message

    def test_single_line_note_swallows_up_to_a_later_end_note(self):
        """Quirk 9: compat looks for ``end note`` first, even after a one-line note."""
        compat, standard = both(
            "class A\nnote right of A : hi\nclass B\nB -- C\nnote left of B\n  text\nend note"
        )
        assert [c.name for c in compat.classes] == ["A"] and compat.relationships == ()
        assert len(compat.notes) == 1
        assert [c.name for c in standard.classes] == ["A", "B"]
        assert len(standard.notes) == 2

    def test_repeated_class_declarations(self):
        """Quirk 10: compat keeps duplicates (invalid for metrik-4); PlantUML merges them."""
        compat, standard = both("class A {\n  x\n}\nclass A {\n  y\n}")
        assert [c.name for c in compat.classes] == ["A", "A"] and not compat.is_valid()
        assert standard.classes[0].attributes == (Attribute("x"), Attribute("y"))
        assert standard.is_valid()

    def test_keyword_case(self):
        """Quirk 11: compat takes ``Note`` for the keyword even where a link or member follows;
        standard, like PlantUML (keywords in any case), reads a class called ``Note`` there."""
        assert parse("@startuml\nClass A\n@enduml", "standard").classes[0].name == "A"
        compat = parse("@startuml\nNote : x\n@enduml", "compat")
        assert (compat.classes, compat.notes[0].content) == ((), "x")
        standard = parse("@startuml\nNote : x\n@enduml", "standard")
        assert [c.name for c in standard.classes] == ["Note"] and standard.notes == ()

    def test_cardinality_closing_quote_is_optional(self):
        """Quirk 12: compat reads an unclosed cardinality quote up to the next quote."""
        line = 'TravelSearch "0..* <-- "0..*" RegularOffer'
        rel = parse(f"@startuml\n{line}\n@enduml", "compat").relationships[0]
        assert rel == Relationship("directed", "RegularOffer", "TravelSearch", "0..*", "0..* ")
        with pytest.raises(ParseError, match="line 2, column 29"):
            parse(f"@startuml\n{line}\n@enduml", "standard")


class TestQuirkTable:
    """``QUIRKS`` lists every difference once; each entry has its test and each test its entry."""

    def test_every_entry_has_its_test_and_every_quirk_test_an_entry(self):
        tests = {f"TestQuirks::{name}" for name in vars(TestQuirks) if name.startswith("test_")}
        listed = [quirk.test for quirk in QUIRKS]
        assert len(listed) == len(set(listed))
        assert set(listed) == tests

    def test_ids_and_spec_sections(self):
        """Ids are unique; each names a spec E subsection; LANGUAGE.md numbers the same quirks."""
        ids = [quirk.id for quirk in QUIRKS]
        assert len(ids) == len(set(ids))
        assert all(re.fullmatch(r"E\.[1-7]", quirk.spec) for quirk in QUIRKS)
        assert all(quirk.description for quirk in QUIRKS)
        language = resources.files("dmbench.plantuml").joinpath("LANGUAGE.md").read_text("utf-8")
        section = language.split("## The compat reading's quirks", 1)[1]
        documented = {int(n) for n in re.findall(r"^(\d+)\. ", section, re.M)}
        assert documented == {int(re.match(r"\d+", i).group(0)) for i in ids}

    def test_each_quirk_test_names_its_id(self):
        """A test's docstring starts with 'Quirk <id>:' so the table and the tests agree."""
        for quirk in QUIRKS:
            method = getattr(TestQuirks, quirk.test.split("::")[1])
            assert method.__doc__.startswith(f"Quirk {quirk.id}:"), quirk
