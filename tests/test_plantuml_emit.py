"""The emitter: canonical text, and ``standard(emit(m)) == m`` on every real model."""

from __future__ import annotations

import pytest

from dmbench.plantuml import (
    Attribute,
    Class,
    Diagram,
    Enum,
    Note,
    ParseError,
    Relationship,
    emit,
    parse,
)
from dmbench.plantuml._published import output_rows, reference_rows, study_texts


class TestCanonicalText:
    def test_layout(self):
        """Enums, classes, relationships, notes; quoted cardinalities; source on the left."""
        diagram = Diagram(
            classes=(
                Class("A", True, (Attribute("n", "String", "x"), Attribute("k"))),
                Class("B"),
            ),
            enums=(Enum("E", ("X", "Y")),),
            relationships=(
                Relationship("composition", "A", "B", "1", "*", "has"),
                Relationship("inheritance", "A", "C"),
            ),
            notes=(Note("hi", "right of A"),),
            implicit_classes=("C",),
        )
        assert emit(diagram) == (
            "@startuml\n\nenum E {\n  X\n  Y\n}\n\nabstract class A {\n  String n = x\n  k\n}\n\n"
            'class B { }\n\nA "1" *-- "*" B : has\nA <|-- C\n\nnote right of A : hi\n\n@enduml\n'
        )
        assert parse(emit(diagram)) == diagram


@pytest.fixture(scope="module")
def published_models(upstream_dir):
    texts = {row.text for row in reference_rows(upstream_dir)}
    texts |= {row.text for row in output_rows(upstream_dir)}
    texts |= set(study_texts(upstream_dir))
    models = []
    for text in sorted(texts):
        try:
            models.append(parse(text, "standard"))
        except ParseError:
            continue
    return models


class TestRoundTrip:
    def test_every_reference_and_published_output(self, published_models):
        """All 53 references and every published output that the standard reading accepts."""
        assert len(published_models) >= 835
        broken = [emit(m)[:80] for m in published_models if parse(emit(m), "standard") != m]
        assert broken == []

    def test_emitted_text_reads_the_same_in_compat_for_simple_models(self):
        """The canonical form avoids compat's quirks when the model has none of their triggers."""
        diagram = parse('@startuml\nclass A {\n  name : String\n}\nA "1" -- "*" B\n@enduml')
        assert parse(emit(diagram), "compat") == diagram
