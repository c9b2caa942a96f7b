"""The standard reading says where each element came from and reads as PlantUML reads.

Each case is a construct PlantUML's own model was checked on (``tests/plantuml/test_plantuml_oracle.py``
runs the check over every diagram of the package and the corpus); here they are pinned one by
one, through ``dmbench parse`` where the output shape is the point.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.errors import ParseError
from dmbench.plantuml import parse
from dmbench.plantuml.repairs import EMPTY_MULTIPLICITY, INLINE_BODY, SLASH_COMMENT

DIAGRAM = """@startuml
enum Status {
  OPEN, CLOSED
  HELD
}
class Book {
  title : String
  String a, String b
  String id, compare()
}
Book "1" -- "*" Page : has
@enduml
"""


def _read(body: str):
    return parse(f"@startuml\n{body}\n@enduml\n", "standard")


class TestLinesAndRepairs:
    def test_parse_prints_a_line_on_every_element_and_the_repairs(self, tmp_path) -> None:
        """Classes, attributes, enums, each literal and relationships carry their 1-based line;
        a comma-split member line gives each attribute that line; no repair, an empty list."""
        path = tmp_path / "d.puml"
        path.write_text(DIAGRAM, encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path)])
        assert result.exit_code == 0, result.output
        model = json.loads(result.output)
        book = model["classes"][0]
        assert (book["line"], book["kind"]) == (6, "class")
        assert [(a["name"], a["line"]) for a in book["attributes"]] == [
            ("title", 7), ("a", 8), ("b", 8)
        ]
        status = model["enums"][0]
        assert status["line"] == 2
        assert status["literals"] == [
            {"value": "OPEN", "line": 3}, {"value": "CLOSED", "line": 3}, {"value": "HELD", "line": 4}
        ]
        assert [r["line"] for r in model["relationships"]] == [11]
        assert model["repairs"] == []

    def test_compat_prints_upstreams_shape(self, tmp_path) -> None:
        """No line, kind or repairs in the compat reading's JSON (golden parity holds)."""
        path = tmp_path / "d.puml"
        path.write_text(DIAGRAM.replace("  String id, compare()\n", ""), encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path), "--reading", "compat"])
        model = json.loads(result.output)
        assert "repairs" not in model and "line" not in model["classes"][0]

    def test_what_plantuml_rejects_is_read_through_a_named_repair(self) -> None:
        """The report's repairs, by name and line: an empty multiplicity, a one-line body with
        members, a // comment line."""
        diagram = _read('// a note\nclass A { x : int }\nA "" -- "1" B')
        assert [(r.rule, r.line) for r in diagram.repairs] == [
            (SLASH_COMMENT, 2), (INLINE_BODY, 3), (EMPTY_MULTIPLICITY, 4)
        ]
        assert diagram.relationships[0].source_cardinality is None

    def test_a_class_inside_a_class_is_one_error_line(self, tmp_path) -> None:
        """PlantUML's 'Bad hierarchy': FILE:LINE:COL and what was not understood."""
        path = tmp_path / "nested.puml"
        path.write_text("@startuml\nclass a.A\nclass a.A.B\n@enduml\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path)])
        assert result.exit_code == 1
        assert result.output.strip().splitlines()[-1].startswith(f"Error: {path}:3:1: ")
        assert "is inside class" in result.output and "Traceback" not in result.output


class TestPlantumlsReading:
    def test_a_member_line_with_a_parenthesis_is_a_method(self) -> None:
        """PlantUML reads 'String ID, String Suit, compareHeight()' as one method: no attribute."""
        book = _read("class Card {\n  String ID, String Suit, compareHeight()\n}").classes[0]
        assert book.attributes == ()

    def test_separators_are_no_attributes_and_any_language_style_is_one(self) -> None:
        """'--', '..' and '...' separate; a Kotlin, C# or TypeScript line is one attribute."""
        cls = _read(
            "class A {\n  --\n  + val items : LiveData<List<T>>\n  ...\n"
            "  description: String?\n  {static} -instance : Db\n}"
        ).classes[0]
        assert [(a.name, a.type) for a in cls.attributes] == [
            ("items", "LiveData<List<T>>"), ("description", "String?"), ("instance", "Db")
        ]

    def test_keywords_kinds_names_and_decorations(self) -> None:
        """Keywords in any case, kinds kept, quoted names and aliases, qualified names shown
        short, stereotypes and colours after a declaration."""
        diagram = _read(
            'Interface Shape\nentity "Order Line" as OrderLine <<Entity>> #coral {\n  id\n}\n'
            "class com.example.Foo\npackage p <<Frame>> {\n  struct S\n}"
        )
        kinds = {c.name: c.kind for c in diagram.classes}
        assert kinds == {"Shape": "interface", "OrderLine": "entity", "Foo": "class", "S": "struct"}

    def test_a_keyword_before_a_link_is_a_name(self) -> None:
        """'Record -- Node' links two classes called Record and Node, as in PlantUML."""
        diagram = _read("Record -- Node\nNote : text")
        assert (diagram.relationships[0].source, diagram.relationships[0].target) == (
            "Record", "Node"
        )
        assert [c.name for c in diagram.classes] == ["Note"]

    def test_links_that_are_not_relationships(self) -> None:
        """Hidden links, links to a note and links to a package relate no classes."""
        diagram = _read(
            'A -[hidden]- B\nnote "n" as N\nN .. A\npackage core {\n  class C\n}\nA --> core\n'
            'A "1" }o--o{ "*" C'
        )
        assert [(r.source, r.target, r.kind) for r in diagram.relationships] == [
            ("A", "C", "association")
        ]

    def test_an_enum_redeclared_as_a_class_is_one_class(self) -> None:
        """The last declaration decides the kind; the literals come along as attributes."""
        diagram = _read("enum Level {\n  LOW\n}\nclass Level { }")
        assert diagram.enums == () and [a.name for a in diagram.classes[0].attributes] == ["LOW"]

    @pytest.mark.parametrize("line", ["A -- B ?", "class A {"])
    def test_what_no_rule_reads_is_refused(self, line: str) -> None:
        with pytest.raises(ParseError):
            _read(line)
