"""Constructs of PlantUML's class-diagram language, each read as PlantUML itself reads it.

Every diagram here is small and written for the test. Each is checked twice: against what the
reading should hold (names, members, links), and against PlantUML's own model of it from the
pinned jar (``oracle_support``, one JVM for the module), on the points the corpus test compares.
"""

from __future__ import annotations

import pytest
from oracle_support import disagreements, plantuml_comparable, plantuml_models, reading_comparable

from dmbench.core.hashing import sha256_text
from dmbench.errors import ParseError
from dmbench.plantuml import parse
from dmbench.plantuml.repairs import INLINE_BODY

DIAGRAMS = {
    "slash_text_in_a_body": "class A {\n  // shown as a member\n  int a // kept too\n}",
    "slash_text_in_an_enum": "enum E {\n  X\n  // a literal line\n}",
    "one_line_enum_in_a_body": "class A {\n  enum Mode { X, Y }\n  int a\n}",
    "object_lines_are_fields": "object O {\n  a = 1, b = 2\n  run()\n}\nO : f()",
    "direction_ends_the_arrow": "class A\nclass B\nA -up B\nA <-[hidden]up B",
    "hidden_link_ends_are_classes": "A -[hidden]- B",
    "lone_modifier_lines": (
        "class A {\n  {abstract}\n}\nclass B {\n  {abstract} {static}\n  {method}\n  {field}\n"
        "  int x\n}"
    ),
    "package_named_inside_itself": "package P {\n  X ... P\n}",
    "link_to_a_package_from_another": "package A {\n  class K\n}\npackage B {\n  X --> A\n}",
    "dotted_package_inside_its_first_part": (
        "package v {\n  package v.impl {\n    class C\n  }\n}\nclass C"
    ),
    "empty_package_on_one_line": "package a {\n  package u {\n  }\n}\npackage cli {}\ncli ..> a.u",
    "an_aggregation_from_object": "class Object\nclass B\nObject o-- B\nObject x-- B",
    "unlinked_ends_in_a_package": (
        "allow_mixing\nactor U\npackage p {\n  interface I\n}\npackage q {\n"
        "  I <|-[hidden]- Impl\n  Shop --> U\n}"
    ),
    "actors_beside_classes": (
        "allow_mixing\nactor U\nactor \"UI\" as user\nclass A\nU --> A\nuser -- A\nA -- B"
    ),
    "components_only": "[Comp] as API\n[Main]\nAPI --> [Main]\nAPI --> other",
    "lollipop": "class Store\nStore -() Port\nStore -- Price",
    "json_block": 'class A\njson J {\n  "a": {"b": [1, 2]}\n}\nA -- B',
    "map_named_like_a_class": "class Map\nclass Tile\nMap *-- Tile",
    "association_class_on_its_link": 'class A\nclass B\nA "1" -- "*" B\n(A, B) .. C',
    "association_class_alone": "class A\nclass B\n(A, B) .. C",
    "one_short_name_in_two_packages": (
        "package p {\n  class A {\n    int x\n  }\n}\npackage q {\n  class A\n  A -- B\n}\n"
        "p.A -- C"
    ),
    "a_unique_short_name_is_found": "package p {\n  class A\n}\npackage q {\n  A -- B\n}",
    "an_ambiguous_name_is_a_new_class": (
        "package p {\n  class A\n}\npackage q {\n  class A\n}\nA -- C"
    ),
    "a_parent_is_looked_for_here_only": (
        "package p {\n  interface I\n}\nclass C implements I\nclass D extends p.I"
    ),
    "a_link_to_a_package_links_no_class": (
        "package app.web {\n  class A\n}\nclass Main\nweb --> Main"
    ),
    "aliased_package": "package Lending as L <<Frame>> {\n  class Lending\n}\nLending -- B",
    "no_separator": "set separator none\npackage a.b {\n  class m.Y\n}\nm.Y -- a.b",
    "double_colon_separator": (
        "set namespaceSeparator ::\nnamespace io {\n  class R\n  ui::S -left-> R\n}\n"
        "namespace ui {\n  class S\n}"
    ),
    "names_in_parentheses": "class (A) {\n  int x\n}\nInterface (B){\n}\nA -- B",
    "package_colour_after_a_quoted_name": (
        'package "Classic Collections" #DDDDDD {\n  class A\n}\nclass "My Class" #red {\n}'
    ),
    "tags_and_diamonds": "class A $tag\nclass B\n<> d\nA - d\nd - B\nhide $tag",
    "field_and_method_marks": (
        "class A {\n  {field} a (with parens)\n  {method} some method\n  int x\n}"
    ),
    "style_block": "<style>\nclassDiagram {\n  class {\n    BackgroundColor #eee\n  }\n}\n</style>"
                   "\nclass A",
    "defines": (
        "!define ENTITY #87CEEB\n!define table(x) class x << (T,#FFAAAA) >>\n"
        "class A ENTITY\ntable(B) {\n  id : int\n}\nA -- B"
    ),
    "variables": (
        '!$name = "Shop"\n!$name ?= "Other"\n!$size=3\nclass $name\nclass "$name Item" as Item\n'
        "$name -- Item : $size\nclass A $tag"
    ),
    "circle_and_enum_members": "circle C\nenum E\nE : A\nE : B\nC -- E",
    "qualified_association_and_diamond": (
        'class Shop\nShop [customerId: long] ---> "1" Customer\ndiamond D\nShop -- D'
    ),
    "hidden_class": "class A\nclass B\nhide A\nhide empty members\nA -- B\nB -- C",
    "sprite_block": "sprite $foo [4x4/16] {\n  FFFF\n  FFFF\n}\nclass A <<$foo>>",
    "from_the_top": "namespace d {\n  Context <|-- .Caster\n}\nclass Caster",
    "static_class": "static class A {\n  int x\n}\nStatic Class B extends A",
    "brace_on_the_next_line": (
        "class A <<S>>\n{\n  int x\n}\nENUM E\n{\n  X\n}\npackage p\n{\n  class C\n}\nA -- C"
    ),
    "skin_and_skinparam_blocks": (
        "skin rose\nskinparam {\n  class {\n    FontColor black\n  }\n  note {\n    FontSize 14\n"
        "  }\n}\nclass A"
    ),
    "aligned_headers_and_footers": (
        "right footer page\nleft header x\ncenter header\n  two\nendheader\nright footer\n"
        "  text\nend footer\nclass A"
    ),
    "common_commands_one_line": (
        "title **A** //title// -- here\nheader: x\nfooter: y\ncaption **c**\nlegend: l\n"
        "mainframe **m**\nscale max 800 width\npage 2x2\n!theme plain\n"
        "left to right direction\nclass A"
    ),
    "common_commands_blocks": (
        "title\n  class X\nend title\ncaption\n  c\nendcaption\nlegend bottom right\n"
        "  |= a |\nendlegend\nclass A"
    ),
    "keyword_as_a_class": "title -- B\ntitle : x\nclass A",
    "keywords_before_new_heads": "class X\nTitle <<-- X\nHeader )-- X\nLegend 0-- X\nNote *-- X",
    "link_before_a_title": "class A\ntitle - Overview",
    "double_and_redefining_heads": (
        "class A\nA -up-||> B\nA <||-- C\nA -->> D\nA <<-- E"
    ),
    "ball_and_socket": (
        "class A\nA --0 B\nA --( C\nA 0)-- D\nA )-- E\nA --0)-- F\nA -(0)- G"
    ),
    "creole_display_names": (
        'class plan as ""Plan"" << (E,#EEEEEE) >> #FFDDDD {\n  int x\n}\n'
        'class ""Shown"" as S\nplan -- S'
    ),
    "last_declaration_sets_the_kind": (
        "class A {\n}\ninterface A\ninterface B\nclass B {\n}\nclass C\nabstract class C\n"
        "abstract D\nclass D"
    ),
}


@pytest.fixture(scope="module")
def models() -> dict[str, dict]:
    texts = {key: f"@startuml\n{text}\n@enduml\n" for key, text in DIAGRAMS.items()}
    found = plantuml_models(list(texts.values()))
    return {key: found[sha256_text(text)] for key, text in texts.items()}


def read(key: str):
    return parse(f"@startuml\n{DIAGRAMS[key]}\n@enduml\n", "standard")


@pytest.mark.parametrize("key", sorted(DIAGRAMS))
def test_plantuml_accepts_and_the_reading_agrees(models, key: str) -> None:
    """PlantUML accepts each diagram, and the reading agrees with its model, unrepaired."""
    model = models[key]
    assert model["verdict"] == "accepted"
    diagram = read(key)
    assert not diagram.repairs
    assert disagreements(plantuml_comparable(model), reading_comparable(diagram)) == []


class TestBodies:
    def test_slash_text_in_a_body_is_member_text(self) -> None:
        """``//`` starts no comment in a body: a line of it is a member, a trailing one is kept
        out of the member's name."""
        (cls,) = read("slash_text_in_a_body").classes
        assert [(a.name, a.line) for a in cls.attributes] == [("member", 3), ("a", 4)]

    def test_one_line_enum_in_a_body_is_a_member_line(self) -> None:
        """PlantUML has no nested enum on one line: the line is a field of the class."""
        diagram = read("one_line_enum_in_a_body")
        assert diagram.enums == () and diagram.classes[0].nested_enums == ()
        assert [a.name for a in diagram.classes[0].attributes] == ["Mode", "a"]

    def test_every_line_of_an_object_is_one_field(self) -> None:
        """An object's lines, parentheses or commas in them, are one field each."""
        (obj,) = read("object_lines_are_fields").classes
        assert [a.line for a in obj.attributes] == [3, 4, 6]


class TestLinks:
    def test_a_direction_may_end_an_arrow(self) -> None:
        """``A -up B`` is a link; a hidden one links nothing but its ends are classes."""
        diagram = read("direction_ends_the_arrow")
        assert [(r.source, r.target) for r in diagram.relationships] == [("A", "B")]
        assert read("hidden_link_ends_are_classes").implicit_classes == ("A", "B")

    def test_names_and_packages_resolve_as_plantuml_resolves_them(self) -> None:
        """Inside package P, P names a new class P.P, not P itself; a link to another package
        keeps its other end a class; a dotted package inside its own first part is read from
        the top; ``package cli {}`` is a package; ``Object o-- B`` is an aggregation."""
        assert read("package_named_inside_itself").all_class_names == ("P", "X")
        assert read("link_to_a_package_from_another").all_class_names == ("K", "X")
        assert read("dotted_package_inside_its_first_part").all_class_names == ("C", "v.impl.C")
        empty = read("empty_package_on_one_line")
        assert empty.all_class_names == () and empty.relationships == ()
        assert [r.kind for r in read("an_aggregation_from_object").relationships] == [
            "aggregation", "association"]

    def test_a_body_of_modifiers_only_has_no_field(self) -> None:
        """``{abstract}`` alone in a body is no field to PlantUML; beside other members each
        such line is one (``{method}`` alone is a method)."""
        a, b = read("lone_modifier_lines").classes
        assert a.attributes == () and [x.line for x in b.attributes] == [6, 8, 9]

    def test_ends_of_links_that_draw_nothing_stay_classes_in_a_package(self) -> None:
        """A hidden link and a link to an actor draw no relationship, but each end that is no
        actor is still a class, in a package as at the top level."""
        diagram = read("unlinked_ends_in_a_package")
        assert diagram.relationships == ()
        assert diagram.all_class_names == ("I", "Impl", "Shop")

    def test_an_association_class_keeps_its_link(self) -> None:
        """The link and the association class are both read; the comparison counts the pair
        once, as PlantUML draws the link through the association's point."""
        kinds = [r.kind for r in read("association_class_on_its_link").relationships]
        assert kinds == ["association", "association_class"]


class TestOtherDiagramsElements:
    def test_actors_are_kept_apart_from_classes(self) -> None:
        """With ``allow_mixing`` actors are drawn but are no classes; links to them relate none."""
        diagram = read("actors_beside_classes")
        assert [c.name for c in diagram.classes] == ["A"] and diagram.implicit_classes == ("B",)
        assert [(r.source, r.target) for r in diagram.relationships] == [("A", "B")]

    def test_a_component_diagram_has_no_classes(self) -> None:
        """Components without ``allow_mixing`` make the text a component diagram."""
        assert read("components_only").all_class_names == ()

    def test_a_component_among_classes_needs_allow_mixing(self) -> None:
        """PlantUML rejects a class diagram holding a component unless mixing is allowed."""
        text = "@startuml\nclass A {\n}\n[C]\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "rejected"
        with pytest.raises(ParseError, match="line 4: .*allow_mixing"):
            parse(text, "standard")

    def test_lollipops_and_json_are_no_classes(self) -> None:
        """A lollipop's circle and a json block are drawn but hold no class; ``Map *-- Tile``
        is a link, not a map block."""
        assert read("lollipop").all_class_names == ("Price", "Store")
        assert read("json_block").all_class_names == ("A", "B")
        assert len(read("map_named_like_a_class").relationships) == 1


def test_a_class_name_may_stand_in_parentheses() -> None:
    """``class (A)`` declares A, and any keyword's case is taken (``Interface``)."""
    diagram = read("names_in_parentheses")
    assert [(c.name, c.kind) for c in diagram.classes] == [("A", "class"), ("B", "interface")]


class TestNamespaces:
    def test_one_short_name_in_two_packages_is_two_classes(self) -> None:
        """Named by their full names where they collide, each with its own members; a link in a
        package means the class of that package."""
        diagram = read("one_short_name_in_two_packages")
        assert [(c.name, [a.name for a in c.attributes]) for c in diagram.classes] == [
            ("p.A", ["x"]), ("q.A", [])
        ]
        assert [(r.source, r.target) for r in diagram.relationships] == [
            ("q.A", "B"), ("p.A", "C")
        ]

    def test_a_short_name_means_the_only_class_of_that_name(self) -> None:
        """Found in another package when it is the only one; else a new class where it is
        written (PlantUML's rule), and the model keeps the short names where they are unique."""
        assert read("a_unique_short_name_is_found").all_class_names == ("A", "B")
        assert read("an_ambiguous_name_is_a_new_class").all_class_names == ("A", "C", "p.A", "q.A")

    def test_a_parent_is_looked_for_in_the_current_package(self) -> None:
        """``implements I`` at the top makes a top-level I, not the I of package p."""
        diagram = read("a_parent_is_looked_for_here_only")
        assert sorted((c.name, c.kind) for c in diagram.classes) == [
            ("C", "class"), ("D", "class"), ("I", "interface"), ("p.I", "interface")
        ]

    def test_package_names_and_separators(self) -> None:
        """A package's last name or alias links no class; ``set separator none`` keeps dots in
        names; ``::`` separates when set, and a name after it is the package's class."""
        assert read("a_link_to_a_package_links_no_class").relationships == ()
        assert len(read("aliased_package").relationships) == 1
        assert read("no_separator").all_class_names == ("m.Y",)
        assert read("no_separator").relationships == ()
        diagram = read("double_colon_separator")
        assert diagram.all_class_names == ("R", "io::ui::S", "ui::S")


class TestDecorations:
    def test_colours_tags_styles_and_marks(self) -> None:
        """A colour after a quoted name, a ``$tag``, a ``<style>`` block are decoration; a
        diamond ``<>`` is no class; ``{field}`` makes a line with parentheses a field."""
        assert read("package_colour_after_a_quoted_name").all_class_names == ("A", "My Class")
        assert read("tags_and_diamonds").all_class_names == ("A", "B")
        assert read("style_block").all_class_names == ("A",)
        (cls,) = read("field_and_method_marks").classes
        assert [a.line for a in cls.attributes] == [3, 5]

    def test_defines_are_expanded(self) -> None:
        """``!define`` replaces its name, with arguments too; lines keep their numbers."""
        diagram = read("defines")
        assert [(c.name, c.line) for c in diagram.classes] == [("A", 4), ("B", 5)]
        assert [a.name for a in diagram.classes[1].attributes] == ["id"]

    def test_variables_set_to_a_literal_are_expanded(self) -> None:
        """``!$name = "text"`` replaces ``$name`` below, in quotes too; ``?=`` sets it only once;
        a ``$tag`` no variable names stays a tag."""
        diagram = read("variables")
        assert diagram.all_class_names == ("A", "Item", "Shop")
        assert [(r.source, r.target, r.label) for r in diagram.relationships] == [
            ("Shop", "Item", "3")
        ]
        with pytest.raises(ParseError, match="line 2: a preprocessor directive"):
            parse('@startuml\n!$x = "a" + "b"\nclass A\n@enduml\n', "standard")

    def test_other_preprocessor_directives_are_refused(self) -> None:
        """What ``!include`` or ``!if`` makes is not in the text: one line, no guess."""
        with pytest.raises(ParseError, match="line 2: a preprocessor directive"):
            parse("@startuml\n!include common.puml\nclass A\n@enduml\n", "standard")

    def test_type_arguments_after_a_parent_need_a_body(self) -> None:
        """PlantUML rejects ``class U extends R<T>`` with no body, and takes it with one."""
        texts = ["@startuml\nclass U extends R<T>\n@enduml\n",
                 "@startuml\nclass U extends R<T> {\n}\n@enduml\n"]
        models = plantuml_models(texts)
        assert [models[sha256_text(t)]["verdict"] for t in texts] == ["rejected", "accepted"]
        with pytest.raises(ParseError, match="line 2: type arguments after extends"):
            parse(texts[0], "standard")
        assert parse(texts[1], "standard").classes[0].name == "U"


class TestWhatPlantumlRejects:
    def test_refused_or_read_through_a_named_repair(self) -> None:
        """A one-line enum body is read through the report's repair; a note of a class before
        the class exists is refused; PlantUML rejects both."""
        texts = ["@startuml\nenum T { A, B }\n@enduml\n",
                 "@startuml\nnote right of A : x\nclass A\n@enduml\n"]
        models = plantuml_models(texts)
        assert {models[sha256_text(t)]["verdict"] for t in texts} == {"rejected"}
        assert [r.rule for r in parse(texts[0], "standard").repairs] == [INLINE_BODY]
        with pytest.raises(ParseError, match="line 2: note of 'A' before it is declared"):
            parse(texts[1], "standard")

    def test_a_one_letter_package_o_or_x_is_refused_not_misread(self) -> None:
        """``class x.Y`` is a class to PlantUML; the grammar sees the arrow head ``x.``, so the
        reading refuses the line rather than read a link from a class named ``class``."""
        text = "@startuml\nclass x.Y\nclass A\nA -- x.Y\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "accepted"
        with pytest.raises(ParseError, match="line 2: a one-letter package 'x' after 'class'"):
            parse(text, "standard")

    def test_a_package_name_is_not_also_a_class(self) -> None:
        """A class declared with a package's name is rejected by PlantUML and refused here;
        where PlantUML instead turns the class into the package, or drops a member line given
        to a package, it accepts what the reading cannot follow, so the reading refuses that
        too rather than read a class PlantUML does not have."""
        rejected = ['@startuml\npackage "P" {\n  A -- B\n}\nclass P {\n  x\n}\n@enduml\n',
                    "@startuml\npackage P {\n}\nclass P\n@enduml\n"]
        accepted = ["@startuml\nclass P\npackage P {\n}\n@enduml\n",
                    "@startuml\npackage P {\n  class A\n}\nP : x\n@enduml\n"]
        models = plantuml_models([*rejected, *accepted])
        assert [models[sha256_text(t)]["verdict"] for t in rejected + accepted] == [
            "rejected", "rejected", "accepted", "accepted"]
        assert "P" not in plantuml_comparable(models[sha256_text(accepted[0])])["classes"]
        assert "P" not in plantuml_comparable(models[sha256_text(accepted[1])])["classes"]
        for text, message in zip(rejected + accepted, [
            "line 5: class 'P' is named like the package opened at line 2",
            "line 4: class 'P' is named like the package opened at line 2",
            "line 3: package 'P' is named like a class declared before it",
            "line 5: the member line's class 'P' is named like the package opened at line 2",
        ], strict=True):
            with pytest.raises(ParseError, match=message):
                parse(text, "standard")


def test_a_circle_is_a_classifier_and_an_enum_takes_member_lines() -> None:
    """``circle C`` is a classifier of kind circle; ``E : A`` adds a literal to enum E (it used
    to stop the reading with a traceback)."""
    diagram = read("circle_and_enum_members")
    assert [(c.name, c.kind) for c in diagram.classes] == [("C", "circle")]
    assert [(e.name, e.values) for e in diagram.enums] == [("E", ("A", "B"))]


def test_a_qualifier_is_read_over_and_a_diamond_is_no_class() -> None:
    """``A [key: K] --> B``: the qualifier is drawn by the link, which is read as usual."""
    diagram = read("qualified_association_and_diamond")
    assert [(r.source, r.target, r.target_cardinality) for r in diagram.relationships] == [
        ("Shop", "Customer", "1")
    ]
    assert diagram.all_class_names == ("Customer", "Shop")


def test_the_links_of_a_hidden_class_are_not_drawn() -> None:
    """``hide A`` keeps class A but PlantUML draws none of its links; ``hide empty members``
    hides no class."""
    diagram = read("hidden_class")
    assert diagram.all_class_names == ("A", "B", "C")
    assert [(r.source, r.target) for r in diagram.relationships] == [("B", "C")]


class TestCommonCommands:
    def test_titles_headers_and_legends_hold_no_class(self) -> None:
        """PlantUML's common commands, on one line or as blocks, with alignment before
        ``header``/``footer`` or after ``legend``, creole and ``:`` after the keyword."""
        for key in ("skin_and_skinparam_blocks", "aligned_headers_and_footers",
                    "common_commands_one_line", "common_commands_blocks"):
            assert read(key).all_class_names == ("A",), key

    def test_a_keyword_is_a_class_where_a_link_or_member_follows(self) -> None:
        """``title -- B`` and ``title : x`` (a space before the colon) name a class ``title``;
        ``title - Overview`` is a link, as PlantUML tries links first."""
        diagram = read("keyword_as_a_class")
        assert diagram.all_class_names == ("A", "B", "title")
        (title,) = (c for c in diagram.classes if c.name == "title")
        assert [a.name for a in title.attributes] == ["x"]
        assert read("link_before_a_title").all_class_names == ("A", "Overview", "title")

    def test_a_link_from_remove_is_refused(self) -> None:
        """PlantUML takes ``Remove -- X`` for its remove command (no class Remove, no link);
        the reading cannot say what that removes, so it refuses the line."""
        text = "@startuml\nclass X\nRemove -- X\n@enduml\n"
        model = plantuml_comparable(plantuml_models([text])[sha256_text(text)])
        assert model["classes"] == {"X": "class"} and not model["relationships"]
        with pytest.raises(ParseError, match="line 3: a link from a class named 'remove'"):
            parse(text, "standard")
        assert read("keyword_as_a_class").all_class_names == ("A", "B", "title")

    @pytest.mark.parametrize("line", [
        "mainframe", "skin", "scale", "scale abc", "page abc", "skinparam x", "hide", "set",
        "left to right direction x", "allowmixing x",
    ])
    def test_a_setting_without_its_arguments_is_refused(self, line: str) -> None:
        """PlantUML rejects a setting with no argument or one it does not know."""
        text = f"@startuml\n{line}\nclass A\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "rejected"
        with pytest.raises(ParseError, match="line 2"):
            parse(text, "standard")


class TestMemberLines:
    @pytest.mark.parametrize("line", ["A: x", "A :x", "A:x"])
    def test_a_member_line_needs_spaces_round_its_colon(self, line: str) -> None:
        """PlantUML takes ``A : x`` and rejects the colon without a space on either side."""
        text = f"@startuml\nclass A\n{line}\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "rejected"
        with pytest.raises(ParseError, match="line 3: a member line needs a space"):
            parse(text, "standard")
        spaced = parse("@startuml\nclass A\nA  :  x\n@enduml\n", "standard")
        assert [a.name for a in spaced.classes[0].attributes] == ["x"]


class TestDeclarations:
    def test_static_class(self) -> None:
        """``static class`` declares a class (PlantUML takes no other modifier there)."""
        diagram = read("static_class")
        assert [(c.name, c.kind) for c in diagram.classes] == [("A", "class"), ("B", "class")]
        text = "@startuml\npublic class A\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "rejected"
        with pytest.raises(ParseError, match="line 2"):
            parse(text, "standard")

    def test_a_body_may_open_on_the_next_line(self) -> None:
        """A class's, an enum's and a package's ``{`` may stand alone on the next line."""
        diagram = read("brace_on_the_next_line")
        assert [a.name for a in diagram.classes[0].attributes] == ["x"]
        assert [(e.name, e.values) for e in diagram.enums] == [("E", ("X",))]
        assert [(r.source, r.target) for r in diagram.relationships] == [("A", "C")]

    def test_a_namespace_brace_on_the_next_line_is_refused(self) -> None:
        """PlantUML takes a package's brace on the next line, not a namespace's."""
        text = "@startuml\nnamespace n\n{\nclass A\n}\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "rejected"
        with pytest.raises(ParseError, match="line 3"):
            parse(text, "standard")

    def test_creole_display_names_take_an_alias(self) -> None:
        """``""Plan""`` is a display name in creole's monospace, beside an alias."""
        assert read("creole_display_names").all_class_names == ("S", "plan")

    def test_the_last_declaration_sets_the_kind(self) -> None:
        """``interface A`` after ``class A`` makes an interface, and the other way round."""
        kinds = {c.name: c.kind for c in read("last_declaration_sets_the_kind").classes}
        assert kinds == {"A": "interface", "B": "class", "C": "abstract class", "D": "class"}


class TestHeads:
    def test_double_and_redefining_heads(self) -> None:
        """``||>`` and ``<||`` (redefinition) read as inheritance, ``>>`` ``<<`` as navigation."""
        kinds = [r.kind for r in read("double_and_redefining_heads").relationships]
        assert kinds == ["inheritance", "inheritance", "directed", "directed"]

    def test_balls_and_sockets_are_plain_links(self) -> None:
        """A ball ``0`` or socket ``(`` at an end or in the middle of the line: one link each."""
        relationships = read("ball_and_socket").relationships
        assert [r.target for r in relationships] == ["B", "C", "D", "E", "F", "G"]

    def test_a_style_with_a_semicolon_is_refused(self) -> None:
        """PlantUML rejects ``-[#blue;thickness=2]->`` in a class diagram."""
        text = "@startuml\nclass A\nA -[#blue;thickness=2]-> B\n@enduml\n"
        assert plantuml_models([text])[sha256_text(text)]["verdict"] == "rejected"
        with pytest.raises(ParseError, match="line 3"):
            parse(text, "standard")
