"""The heuristics of Abdelnabi et al. 2020 as the upstream benchmark ran them (spec section A).

Text is cleaned, parsed by spaCy, and five extractors read relationships off the dependency
parse. Upstream collected the ends of one verb in Python sets, so the order of the lines inside
one verb's subject x object product followed the string-hash seed. Here those sets are
insertion-ordered (a dict's keys): names come in the order the extractor meets them (subjects
in the verb's child order; objects from direct objects first, then from prepositions, each in
child order; a head before its ``conj`` children), and pairs are emitted subject-major. The
output is the same under every ``PYTHONHASHSEED``, and equals upstream as a multiset of lines.

Two upstream bugs on conjoined verbs are kept because they decide whether a record fails
(A.5.1, A.5.2); neither fires on the benchmark texts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dmbench.plantuml import BLOCKLIST  # words that are never class names

Token = Any
Doc = Any

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

NOUNS = frozenset({"NOUN", "PROPN"})
ASSOCIATION_VERBS = frozenset({"take", "send", "buy", "give", "show", "record", "work", "talk"})
AGGREGATION_VERBS = frozenset(
    {"hold", "carry", "involve", "imply", "embrace", "consist", "comprise", "belong", "divide",
     "include"}
)
COMPOSITION_VERBS = frozenset({"have", "comprise", "possess", "contain"})
INCLUDE_VERBS = frozenset({"include"})
NOT_GENERAL = frozenset({"category", "type", "kind", "a"})

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_DROPPED = re.compile(r"[()*+]")
_SENTENCE_END = re.compile(r"\.\s+")


def preprocess(text: str) -> str:
    """A.3: drop non-ASCII runs and ``()*+``, then space out periods that end a sentence."""
    text = _NON_ASCII.sub("", text)
    text = _DROPPED.sub("", text)
    return _SENTENCE_END.sub(" . ", text)


Triple = tuple[str, str, str]


@dataclass(slots=True)
class Relations:
    """The five extractors' outputs, kept apart because each has its own line shape (A.9)."""

    associations: list[Triple] = field(default_factory=list)
    aggregations: list[Triple] = field(default_factory=list)
    compositions: list[Triple] = field(default_factory=list)
    includes: list[Triple] = field(default_factory=list)
    generalisations: list[tuple[str, str]] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (
            self.associations
            or self.aggregations
            or self.compositions
            or self.includes
            or self.generalisations
        )

    def names(self) -> set[str]:
        """Every relationship end that needs a cardinality."""
        triples = self.associations + self.aggregations + self.compositions + self.includes
        return {name for first, _, last in triples for name in (first, last)}


def _cap(name: str) -> str:
    return name.capitalize()


def candidate_classes(doc: Doc) -> set[str]:
    """A.4: lower-cased texts of noun tokens that can be class names, plus SVO additions."""
    cands = [
        t.text
        for t in doc
        if t.pos_ in NOUNS and IDENT.fullmatch(t.text) and t.text.lower() not in BLOCKLIST
    ]
    for verb in doc:
        if verb.pos_ != "VERB":
            continue
        subject = obj = None
        for child in verb.children:
            if child.pos_ not in NOUNS or child.text in cands:
                continue
            if child.dep_ == "nsubj":
                subject = child.text
            elif child.dep_ == "dobj":
                obj = child.text
        if subject is not None and obj is not None:
            cands += [subject, obj]
    return {text.lower() for text in cands}


class _Extractor:
    """The extractors of A.5 over one parsed document and its class vocabulary."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.classes = candidate_classes(doc)

    def is_class(self, token: Token) -> bool:
        return token.text.lower() in self.classes

    def grab(self, token: Token) -> list[str]:
        """A class token and its direct ``conj`` children that are classes too."""
        if not self.is_class(token):
            return []
        return [token.text] + [
            c.text for c in token.children if c.dep_ == "conj" and self.is_class(c)
        ]

    def gather(self, token: Token, dep: str) -> dict[str, None]:
        """Ordered set of the names grabbed from the ``dep`` children of ``token``."""
        found: dict[str, None] = {}
        for child in token.children:
            if child.dep_ == dep:
                found.update(dict.fromkeys(self.grab(child)))
        return found

    def verbs(self, lemmas: frozenset[str]) -> list[Token]:
        return [t for t in self.doc if t.pos_ == "VERB" and t.lemma_ in lemmas]

    def conj_verbs(self, verb: Token, lemmas: frozenset[str]) -> list[Token]:
        return [
            c
            for c in verb.children
            if c.dep_ == "conj" and c.pos_ == "VERB" and c.lemma_ in lemmas
        ]

    @staticmethod
    def is_prep(token: Token) -> bool:
        return token.dep_ == "prep" and token.pos_ == "ADP"

    def associations(self) -> list[Triple]:
        """A.5.1, with upstream's stale subject on conjoined verbs."""
        out: list[Triple] = []
        stale_subject: str | None = None
        for verb in self.verbs(ASSOCIATION_VERBS):
            subjects = self.gather(verb, "nsubj")
            objects = self.gather(verb, "dobj")
            phrase = verb.text
            for prep in verb.children:
                if self.is_prep(prep):
                    objects.update(self.gather(prep, "pobj"))
                    phrase = f"{verb.text} {prep.text}"
            for conj in self.conj_verbs(verb, ASSOCIATION_VERBS):
                conj_objects: dict[str, None] = {}
                conj_phrase = conj.text
                for child in conj.children:
                    if child.dep_ == "dobj":
                        conj_objects.update(dict.fromkeys(self.grab(child)))
                    elif self.is_prep(child):
                        conj_objects.update(self.gather(child, "pobj"))
                        conj_phrase = f"{conj.text} {child.text}"
                for _ in subjects:
                    for obj in conj_objects:
                        if stale_subject is None:
                            raise UnboundLocalError(
                                "cannot access local variable 's' where it is not associated "
                                "with a value"
                            )
                        out.append((_cap(stale_subject), conj_phrase, _cap(obj)))
            for subject in subjects:
                out += [(_cap(subject), phrase, _cap(obj)) for obj in objects]
                stale_subject = subject
        return out

    @staticmethod
    def accepts(lemma: str, prep: str) -> bool:
        return (
            (lemma in {"consist", "comprise"} and prep == "of")
            or (lemma in {"belong", "divide"} and prep == "to")
            or (lemma == "include" and prep == "in")
        )

    def aggregations(self) -> list[Triple]:
        """A.5.2, with upstream's stale preposition on a conjoined *include*."""
        out: list[Triple] = []
        last_prep: str | None = None
        for verb in self.verbs(AGGREGATION_VERBS):
            lemma = verb.lemma_
            subjects = self.gather(verb, "nsubj")
            objects = self.gather(verb, "dobj")
            phrase = lemma
            for prep in verb.children:
                if self.is_prep(prep):
                    last_prep = prep.text.lower()
                    if self.accepts(lemma, last_prep):
                        objects.update(self.gather(prep, "pobj"))
                        phrase = f"{lemma} {last_prep}"
            for conj in self.conj_verbs(verb, AGGREGATION_VERBS):
                conj_lemma = conj.lemma_
                conj_objects: dict[str, None] = {}
                conj_phrase = conj_lemma
                for child in conj.children:
                    if child.dep_ == "dobj":
                        conj_objects.update(dict.fromkeys(self.grab(child)))
                    elif self.is_prep(child):
                        own = child.text.lower()
                        if conj_lemma == "include":
                            if last_prep is None:
                                raise UnboundLocalError(
                                    "cannot access local variable 'q' where it is not "
                                    "associated with a value"
                                )
                            accepted = last_prep == "in"
                        else:
                            accepted = self.accepts(conj_lemma, own)
                        if accepted:
                            conj_objects.update(self.gather(child, "pobj"))
                            conj_phrase = f"{conj_lemma} {own}"
                out += [(_cap(s), conj_phrase, _cap(o)) for s in subjects for o in conj_objects]
            out += [(_cap(s), phrase, _cap(o)) for s in subjects for o in objects]
        return out

    def compositions(self) -> list[Triple]:
        """A.5.3: the whole (direct object) comes first; prepositions are ignored."""
        out: list[Triple] = []
        for verb in self.verbs(COMPOSITION_VERBS):
            subjects = self.gather(verb, "nsubj")
            for conj in self.conj_verbs(verb, COMPOSITION_VERBS):
                conj_objects = self.gather(conj, "dobj")
                out += [(_cap(o), conj.lemma_, _cap(s)) for s in subjects for o in conj_objects]
            objects = self.gather(verb, "dobj")
            out += [(_cap(o), verb.lemma_, _cap(s)) for s in subjects for o in objects]
        return out

    def includes(self) -> list[Triple]:
        """A.5.4: one subject (no conjuncts), every direct object other than itself."""
        out: list[Triple] = []
        for verb in self.verbs(INCLUDE_VERBS):
            subject = next(
                (c.text for c in verb.children if c.dep_ == "nsubj" and self.is_class(c)), None
            )
            if subject is None:
                continue
            objects = self.gather(verb, "dobj")
            out += [(_cap(o), "include", _cap(subject)) for o in objects if o != subject]
        return out

    def general(self, token: Token) -> bool:
        lower = token.text.lower()
        return lower in self.classes and lower not in NOT_GENERAL

    def generalisations(self) -> list[tuple[str, str]]:
        """A.5.5: the first *be* of each sentence, else a *maybe* between two classes."""
        out: list[tuple[str, str]] = []
        for sent in self.doc.sents:
            be = next((t for t in sent if t.lemma_ == "be"), None)
            if be is not None:
                pair = self._be_pair(be)
            elif "maybe" in sent.text.lower():
                pair = self._maybe_pair(sent)
            else:
                pair = None
            if pair is not None:
                out.append(pair)
        return out

    def _be_pair(self, be: Token) -> tuple[str, str] | None:
        children = list(be.children)
        reverse = any(
            c.text.lower() == "maybe" or (c.lemma_ == "can" and c.dep_ == "aux") for c in children
        )
        subject = next((c for c in children if c.dep_ == "nsubj" and self.general(c)), None)
        obj = next(
            (c for c in children if c.dep_ in {"attr", "acomp"} and self.general(c)), None
        )
        if obj is None:
            obj = next(
                (
                    p
                    for c in children
                    if c.dep_ == "prep" and c.text.lower() == "of"
                    for p in c.children
                    if p.dep_ == "pobj" and self.general(p)
                ),
                None,
            )
        if subject is None or obj is None:
            return None
        if reverse:
            return _cap(obj.text), _cap(subject.text)
        return _cap(subject.text), _cap(obj.text)

    def _maybe_pair(self, sent: Any) -> tuple[str, str] | None:
        maybe = next((t for t in sent if t.text.lower() == "maybe"), None)
        if maybe is None:
            return None
        before = next(
            (t for t in reversed(sent) if t.idx < maybe.idx and self.general(t)), None
        )
        after = next((t for t in sent if t.idx > maybe.idx and self.general(t)), None)
        if before is None or after is None:
            return None
        return _cap(after.text), _cap(before.text)


def extract(doc: Doc) -> Relations:
    """All five extractors over one parsed document, in upstream's order."""
    ex = _Extractor(doc)
    return Relations(
        associations=ex.associations(),
        aggregations=ex.aggregations(),
        compositions=ex.compositions(),
        includes=ex.includes(),
        generalisations=ex.generalisations(),
    )
