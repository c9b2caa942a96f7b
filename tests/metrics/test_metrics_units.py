"""Unit tests of metrik-4's parts: tokens, Wu-Palmer, matching, normalisation, benchmark view."""

from __future__ import annotations

import numpy as np
import pytest

from dmbench.errors import MissingPrerequisiteError, UnknownNameError
from dmbench.metrics import (
    EMPTY_GENERATED_MODEL,
    METRICS,
    BenchmarkScore,
    compute,
    explain,
    get_metric,
    nltk_data,
    score_benchmark,
    score_benchmark_many,
)
from dmbench.metrics._normalise import Edge, normalise
from dmbench.metrics._wordsim import tokenize, word_similarity
from dmbench.metrics.metrik4 import greedy_matching
from dmbench.plantuml import parse

REFERENCE = """@startuml
class Customer {
  name : String
  String email
}
class Order
enum Status {
  OPEN
  CLOSED
}
Customer "1" -- "*" Order : places
Order --> Status
@enduml
"""


class TestTokenize:
    @pytest.mark.parametrize(
        ("identifier", "tokens"),
        [
            ("getData", ["get", "Data"]),
            ("XMLParser", ["XML", "Parser"]),
            ("user_name", ["user", "name"]),
            ("parseURL", ["parse", "URL"]),
            ("item1Count", ["item", "1", "Count"]),
            ("  works for >", ["works", "for", ">"]),
            ("", []),
        ],
    )
    def test_splits_like_upstream(self, identifier, tokens):
        """Whitespace, underscores, camelCase, acronym ends and digits are word boundaries."""
        assert tokenize(identifier) == tokens


@pytest.mark.needs_nltk
class TestWordSimilarity:
    def test_empty_identifiers(self):
        """Two empty names are identical, one empty name matches nothing."""
        words = word_similarity()
        assert words.similarity("", "") == 1.0
        assert words.similarity("name", "") == 0.0

    def test_stopwords_only_scores_zero(self):
        """An identifier of stopwords has no lemmas: even ``A`` against ``A`` scores 0."""
        assert word_similarity().similarity("the", "of") == 0.0
        assert word_similarity().similarity("A", "A") == 0.0

    def test_lemmatises_with_pos(self):
        """Plural nouns are reduced to their lemma before comparison."""
        words = word_similarity()
        assert words.lemmas("OrderItems") == ("order", "item")
        assert words.similarity("orders", "Order") == 1.0

    def test_unknown_words_fall_back_to_equality(self):
        """Words without synsets are similar only when equal."""
        words = word_similarity()
        assert words.wup("qzxv", "qzxv") == 1.0
        assert words.wup("qzxv", "customer") == 0.0


class TestGreedyMatching:
    def test_first_maximum_in_row_major_order_wins_a_tie(self):
        """With equal maxima the earlier row, then the earlier column, is taken first."""
        total, picks = greedy_matching(np.array([[0.5, 0.9], [0.9, 0.5]]))
        assert picks == [(0, 1), (1, 0)]
        assert total == 0.9 + 0.9

    def test_rectangular_matrix_takes_min_dimension_picks(self):
        """A 3x2 matrix yields two picks, largest first."""
        total, picks = greedy_matching(np.array([[0.9, 0.1], [0.2, 0.8], [0.3, 0.4]]))
        assert picks == [(0, 0), (1, 1)]
        assert total == 0.9 + 0.8

    def test_zeros(self):
        """An all-zero matrix sums to zero."""
        assert greedy_matching(np.zeros((2, 3)))[0] == 0.0


class TestNormalise:
    def test_enums_associations_classes_and_implicit_classes(self):
        """Enums become classes of literals; an association class becomes two associations."""
        diagram = parse(
            "@startuml\nclass A {\n x : Int\n}\nenum E {\n P\n Q\n}\n(A, B) .. C : link\n"
            "A *-- D\nD .. A\n@enduml\n",
            "compat",
        )
        normalised = normalise(diagram)
        assert [c.name for c in normalised.classes] == ["A", "E", "B", "C", "D"]
        assert [(a.name, a.type, a.modifier) for a in normalised.classes[1].attributes] == [
            ("P", "enum_value", "const"),
            ("Q", "enum_value", "const"),
        ]
        assert normalised.classes[0].attributes[0].type == "int"
        assert normalised.associations == (
            Edge("A", "C", "link", "none"),
            Edge("B", "C", "link", "none"),
            Edge("A", "D", "", "composition"),
        )
        assert normalised.dependencies == (Edge("D", "A", "", "none"),)

    def test_duplicates_are_dropped(self):
        """A repeated edge counts once; an enum also named as an implicit class counts once."""
        diagram = parse("@startuml\nenum E { X }\nA -- E\nA -- E\n@enduml\n", "compat")
        counts = normalise(diagram).counts()
        assert counts["associations"] == 1
        assert counts["classes"] == 2


class TestBenchmarkView:
    def test_empty_generation(self):
        """Whitespace-only output is scored 0/0/0 without calling the metric."""
        assert score_benchmark(REFERENCE, " \n\t") == BenchmarkScore(
            0.0, 0.0, 0.0, EMPTY_GENERATED_MODEL
        )

    def test_parse_error_is_recorded(self):
        """A generation without @startuml is 0/0/0 with the parser's message."""
        score = score_benchmark(REFERENCE, "class A")
        assert score == BenchmarkScore(
            0.0, 0.0, 0.0, "No UML blocks found in input (missing @startuml/@enduml markers)"
        )

    def test_invalid_models(self):
        """Duplicate class names make a model invalid, with upstream's messages."""
        duplicate = "@startuml\nclass A\nclass A\n@enduml\n"
        assert score_benchmark(REFERENCE, duplicate).error == "Invalid generated model"
        assert score_benchmark(duplicate, REFERENCE).error == "Invalid reference model"
        with pytest.raises(ValueError, match="Invalid generated model"):
            compute(REFERENCE, duplicate)

    @pytest.mark.needs_nltk
    def test_identical_diagrams(self):
        """A diagram compared with itself matches every class to itself."""
        explanation = explain(REFERENCE, REFERENCE)
        assert [(m.reference, m.generated) for m in explanation.class_matching] == [
            ("Customer", "Customer"),
            ("Order", "Order"),
            ("Status", "Status"),
        ]
        assert explanation.association_score == 1.0

    @pytest.mark.needs_nltk
    def test_scores_are_the_semantic_parts(self):
        """class = clamp(0.7 propSim + 0.3 relSim), attribute = propSim, association = relSim."""
        generated = REFERENCE.replace("Customer", "Client").replace("places", "makes")
        explanation = explain(REFERENCE, generated)
        scores = compute(REFERENCE, generated)
        assert scores.attribute_score == explanation.propSim
        assert scores.association_score == explanation.relSim
        assert scores.class_score == min(1.0, 0.7 * explanation.propSim + 0.3 * explanation.relSim)

    @pytest.mark.needs_nltk
    def test_many_keeps_order_across_workers(self):
        """Two worker processes give the same list, in input order, as one process."""
        generated = REFERENCE.replace("Customer", "Client")
        pairs = [(REFERENCE, generated), (REFERENCE, ""), (REFERENCE, "x"), (REFERENCE, REFERENCE)]
        assert score_benchmark_many(pairs * 3, workers=2) == score_benchmark_many(
            pairs * 3, workers=1
        )


class TestRegistry:
    def test_metrics_by_name(self):
        """metrik-4-standard reads PlantUML with the standard reading, the others as upstream."""
        assert {name: m.reading for name, m in METRICS.items()} == {
            "metrik-4": "compat",
            "metrik-4-standard": "standard",
            "metrik-1": "compat",
            "metrik-2": "compat",
            "metrik-3": "compat",
            "metrik-5": "compat",
        }

    def test_unknown_metric(self):
        """An unknown name is an UnknownNameError (a LookupError) listing the known ones."""
        known = "metrik-4, metrik-4-standard, metrik-1, metrik-2, metrik-3, metrik-5"
        with pytest.raises(UnknownNameError, match=known):
            get_metric("metrik-9")

    @pytest.mark.needs_nltk
    def test_standard_reading_keeps_what_compat_drops(self):
        """A visibility mark drops the attribute in the compat reading only."""
        reference = "@startuml\nclass Person {\n  name : String\n}\n@enduml\n"
        generated = "@startuml\nclass Person {\n  +name : String\n}\n@enduml\n"
        assert compute(reference, generated, "metrik-4-standard").attribute_score == 1.0
        assert compute(reference, generated, "metrik-4").attribute_score < 1.0


class TestNltkData:
    def test_missing_data_is_one_sentence_with_the_fix(self, monkeypatch, tmp_path):
        """Without the NLTK data the error names the resources and `dmbench setup`."""
        import nltk

        monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
        monkeypatch.setattr(nltk_data, "nltk_data_dirs", lambda root=None: [])
        with pytest.raises(MissingPrerequisiteError, match="dmbench setup"):
            nltk_data.require_nltk_data()

    @pytest.mark.needs_nltk
    def test_present_data(self):
        """The offline data beside the checkout has every resource."""
        assert nltk_data.missing_resources() == []


class TestNumpySum:
    """metrik-2's sums as numpy adds them, without numpy: numpy is the oracle."""

    SIZES = (0, 1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 135, 136, 255, 256, 257, 600, 1031)

    @staticmethod
    def _values(rng, size: int, kind: int) -> list[float]:
        if kind == 0:
            return [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 8) for _ in range(size)]
        if kind == 1:
            return [rng.choice([0.0, -0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.1]) for _ in range(size)]
        return [rng.random() for _ in range(size)]

    def test_every_sum_is_numpys_bit_for_bit(self):
        import random

        from dmbench.metrics.metrik2 import _npsum

        rng = random.Random(25)
        for size in self.SIZES:
            for trial in range(60):
                values = self._values(rng, size, trial % 3)
                expected = float(np.asarray(values, dtype=np.float64).sum())
                assert repr(_npsum(values)) == repr(expected), (size, values)
