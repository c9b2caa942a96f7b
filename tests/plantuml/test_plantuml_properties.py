"""Property tests: any input gives a Diagram or a ParseError; emitted models read back equal."""

from __future__ import annotations

from pathlib import Path

from conftest import require_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmbench.plantuml import (
    READINGS,
    Attribute,
    Class,
    Diagram,
    Enum,
    ParseError,
    Relationship,
    ValidationResult,
    emit,
    parse,
    validate,
)
from dmbench.sources.published import output_rows, reference_rows

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
require_shared()
CORPUS = sorted({r.text for r in [*reference_rows(UPSTREAM), *output_rows(UPSTREAM)]})
SIGNIFICANT = [*"{}()<>|*o.-:;,\"'/\\=+#~@\n \t", "@startuml", "@enduml", "end note", "class "]
READING = st.sampled_from(READINGS)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(text: str, reading: str):
    try:
        return parse(text, reading)
    except ParseError as exc:
        assert exc.line >= 1 and exc.column >= 1 and isinstance(exc.line_text, str)
        return exc


@st.composite
def mutated(draw):
    """A corpus diagram with a few characters or lines deleted, inserted or repeated."""
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "repeat_line", "cut"]))
        if action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 5)) :]
        elif action == "insert":
            text = text[:at] + draw(st.sampled_from(SIGNIFICANT)) + text[at:]
        elif action == "repeat_line":
            lines = text.split("\n")
            k = at % len(lines)
            text = "\n".join(lines[: k + 1] + lines[k:])
        else:
            text = text[:at]
    return text


class TestTotality:
    @FAST
    @given(st.text(), READING)
    def test_random_text(self, text, reading):
        """Arbitrary text: a Diagram or a ParseError, never another exception."""
        assert isinstance(outcome(text, reading), Diagram | ParseError)

    @FAST
    @given(st.lists(st.sampled_from([*SIGNIFICANT, "A", "B", "x"]), max_size=40), READING)
    def test_random_diagram_body(self, pieces, reading):
        """Text made of PlantUML's own symbols inside the markers."""
        text = "@startuml\n" + "".join(pieces) + "\n@enduml"
        assert isinstance(outcome(text, reading), Diagram | ParseError)

    @FAST
    @given(mutated(), READING)
    def test_mutated_corpus_diagrams(self, text, reading):
        """Damaged real diagrams: a Diagram or a ParseError, never another exception."""
        assert isinstance(outcome(text, reading), Diagram | ParseError)

    @FAST
    @given(st.one_of(st.text(), mutated()))
    def test_validator_is_total(self, text):
        """The validator returns a result for anything; repaired text exists only with content."""
        result = validate(text)
        assert isinstance(result, ValidationResult)
        assert result.ok == (not result.errors)
        assert result.repaired is None or result.repaired.endswith("\n")


RESERVED = {
    "abstract", "class", "interface", "enum", "note", "extends", "implements", "const",
    "skinparam", "hide", "show", "title", "caption", "header", "footer", "legend", "scale",
    "set", "package", "namespace", "together", "public", "private", "protected", "static",
    "final",
}  # fmt: skip
NAMES = st.from_regex(r"\A[A-Z][a-z0-9_]{0,6}\Z").filter(lambda n: n.lower() not in RESERVED)
LOWER = st.from_regex(r"\A[a-z][A-Za-z0-9_]{0,6}\Z").filter(lambda n: n not in RESERVED)
TYPES = st.sampled_from(
    [None, "String", "int", "Date", "List<String>", "Map<String, Integer>", "int[]"]
)
# no empty multiplicity: PlantUML rejects `""`, which the standard reading reads as none, repaired
CARDS = st.sampled_from([None, "1", "0..1", "1..*", "*"])
KINDS = st.sampled_from(
    ["association", "directed", "inheritance", "composition", "aggregation", "dependency"]
)


@st.composite
def diagrams(draw):
    """Models in the standard reading's normal form: unique names (a class and an enum too),
    implicit classes derived."""
    names = draw(st.lists(NAMES, min_size=1, max_size=6, unique=True))
    classes = []
    for name in names:
        attributes = tuple(
            Attribute(a, draw(TYPES), draw(st.sampled_from([None, "0", '"x"'])))
            for a in draw(st.lists(LOWER, max_size=4, unique=True))
        )
        classes.append(Class(name, draw(st.booleans()), attributes))
    # PlantUML has one classifier per name: a class and an enum cannot share one
    enum_names = [n for n in draw(st.lists(NAMES, max_size=2, unique=True)) if n not in names]
    enums = tuple(
        Enum(e, tuple(draw(st.lists(NAMES, max_size=4, unique=True))), draw(st.booleans()))
        for e in enum_names
    )
    ends = st.sampled_from(names + draw(st.lists(NAMES, max_size=2)))
    relationships = tuple(
        Relationship(draw(KINDS), draw(ends), draw(ends), draw(CARDS), draw(CARDS),
                     draw(st.sampled_from([None, "has", "works for >"])))
        for _ in range(draw(st.integers(0, 6)))
    )  # fmt: skip
    mentioned = {end for r in relationships for end in (r.source, r.target)}
    return Diagram(
        classes=tuple(classes),
        enums=enums,
        relationships=relationships,
        implicit_classes=tuple(sorted(mentioned - set(names))),
    )


class TestRoundTrip:
    @FAST
    @given(diagrams())
    def test_emit_then_standard_gives_the_model_back(self, diagram):
        """``parse(emit(m), "standard") == m`` for generated models."""
        assert parse(emit(diagram), "standard") == diagram
