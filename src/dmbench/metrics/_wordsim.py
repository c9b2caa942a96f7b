"""Identifier similarity as metrik-4 computes it: WordNet vectors compared by cosine.

An identifier (class, attribute or relationship name) becomes a list of lemmas: split at
whitespace, underscores, camelCase and letter/digit boundaries, lower-cased, POS-tagged as one
sequence by NLTK's averaged perceptron, stripped of NLTK's English stopwords and lemmatised by
``WordNetLemmatizer``'s rule with the tag's WordNet POS (nouns by default), WordNet read by
``_wordnet_reader``'s lean reader, which skips what NLTK loads for other uses. Two lemma lists
are compared over a shared vocabulary: their lemmas in order of first appearance, each kept
only if its best Wu-Palmer similarity to every word already kept is below 0.85. Each list's
vector holds, per vocabulary word, its best Wu-Palmer similarity to the list; the score is their
cosine.

Everything NLTK computes here depends only on its arguments, so each step is memoised for the
life of the process: lemmas per identifier, synsets per lemma, Wu-Palmer per ordered lemma pair
and the cosine per ordered pair of lemma lists. NLTK's ``wup_similarity`` re-reads WordNet's
version header on every call, which made the upstream code spend almost all its time there; with
the memo each distinct lemma pair is asked once (and ``_wupalmer`` answers without that cost).

The cosine is ``dot / (norm1 * norm2)`` with every sum taken left to right in vocabulary order
and ``math.sqrt`` for the norms. That reproduces all 759 golden pairs bit for bit; ``numpy.dot``
and ``numpy.linalg.norm`` (BLAS, another summation) are one ulp off on 63 of them.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import Any

from dmbench.metrics._tagger import perceptron_tagger
from dmbench.metrics._wordnet_reader import SynsetId, import_nltk, lean_wordnet
from dmbench.metrics._wupalmer import WuPalmer
from dmbench.metrics.nltk_data import require_nltk_data, use_data_dirs

#: A lemma stays out of the shared vocabulary when it is this similar to a word already in it.
VOCABULARY_THRESHOLD = 0.85

_SEPARATORS = re.compile(r"[\s_]+")
# Zero-width split points inside a word: lower->Upper ("getData"), the last capital of an
# acronym before a capitalised word ("XMLParser"), and letter<->digit ("item1Count").
_WORD_BOUNDARY = re.compile(
    r"(?<=[a-z])(?=[A-Z])"
    r"|(?<=[A-Z])(?=[A-Z][a-z])"
    r"|(?<=[A-Za-z])(?=\d)"
    r"|(?<=\d)(?=[A-Za-z])"
)
# Penn Treebank tag initial -> WordNet POS; anything else is lemmatised as a noun.
_WORDNET_POS = {"J": "a", "V": "v", "N": "n", "R": "r"}


def tokenize(identifier: str) -> list[str]:
    """Split an identifier into its words, keeping their case."""
    return [
        part
        for chunk in _SEPARATORS.split(identifier)
        for part in _WORD_BOUNDARY.split(chunk)
        if part
    ]


class WordSimilarity:
    """The NLTK objects metrik-4 uses, with a memo for every function of them."""

    def __init__(self) -> None:
        import_nltk()  # first: the checks below import NLTK too
        require_nltk_data()
        use_data_dirs()
        from nltk.corpus import stopwords

        self._wordnet = lean_wordnet()
        self._tagger: Any = None
        self._stopwords = frozenset(stopwords.words("english"))
        self._wu_palmer = WuPalmer(self._wordnet)
        self._lemmas: dict[str, tuple[str, ...]] = {}
        self._synsets: dict[str, list[SynsetId]] = {}
        self._wup: dict[tuple[str, str], float] = {}
        self._cosine: dict[tuple[tuple[str, ...], tuple[str, ...]], float] = {}

    def lemmas(self, identifier: str) -> tuple[str, ...]:
        """The identifier's lemmas after tagging, stopword removal and lemmatisation."""
        cached = self._lemmas.get(identifier)
        if cached is None:
            cached = self._lemmas[identifier] = self._compute_lemmas(identifier)
        return cached

    def _compute_lemmas(self, identifier: str) -> tuple[str, ...]:
        words = [token.lower() for token in tokenize(identifier)]
        if not words:
            return ()
        return tuple(
            self._lemmatize(word, _WORDNET_POS.get(tag[:1], "n"))
            for word, tag in self._tag(words)
            if word not in self._stopwords
        )

    def _tag(self, words: list[str]) -> list[tuple[str, str]]:
        """NLTK's averaged perceptron tags; its model is loaded by the first call."""
        if self._tagger is None:
            self._tagger = perceptron_tagger()
        return self._tagger.tag(words)

    def _lemmatize(self, word: str, pos: str) -> str:
        """``WordNetLemmatizer().lemmatize``: the shortest of WordNet's base forms, else the word.

        NLTK's lemmatizer always asks ``nltk.corpus.wordnet``, the stock reader; this asks ours.
        """
        forms = self._wordnet._morphy(word, pos)
        return min(forms, key=len) if forms else word

    def _synsets_of(self, lemma: str) -> list[SynsetId]:
        found = self._synsets.get(lemma)
        if found is None:
            found = self._synsets[lemma] = self._wordnet.synset_ids(lemma)
        return found

    def wup(self, first: str, second: str) -> float:
        """Best Wu-Palmer similarity over all synset pairs; exact match if one has no synset.

        Both orders are memoised at once: metrik-4 asks for nearly every lemma pair both ways.
        """
        cached = self._wup.get((first, second))
        if cached is None:
            synsets1 = self._synsets_of(first)
            synsets2 = self._synsets_of(second)
            if synsets1 and synsets2:
                cached, reverse = self._wu_palmer.best_both_ways(synsets1, synsets2)
            else:
                cached = reverse = 1.0 if first.lower() == second.lower() else 0.0
            self._wup[(first, second)] = cached
            self._wup[(second, first)] = reverse
        return cached

    def similarity(self, first: str, second: str) -> float:
        """Cosine of the two identifiers' WordNet vectors, in [0, 1]."""
        if first == "" or second == "":
            return 1.0 if first == second else 0.0
        return self.lemma_similarity(self.lemmas(first), self.lemmas(second))

    def lemma_similarity(self, lemmas1: tuple[str, ...], lemmas2: tuple[str, ...]) -> float:
        """The cosine for two non-empty identifiers given as lemma lists."""
        key = (lemmas1, lemmas2)
        cached = self._cosine.get(key)
        if cached is None:
            cached = self._cosine[key] = self._compute_cosine(lemmas1, lemmas2)
        return cached

    def _compute_cosine(self, lemmas1: tuple[str, ...], lemmas2: tuple[str, ...]) -> float:
        vocabulary: list[str] = []
        for lemma in dict.fromkeys(lemmas1 + lemmas2):
            if not vocabulary or (
                max(self.wup(lemma, word) for word in vocabulary) < VOCABULARY_THRESHOLD
            ):
                vocabulary.append(lemma)
        if not vocabulary:
            return 0.0
        vector1 = [self._best_match(lemmas1, word) for word in vocabulary]
        vector2 = [self._best_match(lemmas2, word) for word in vocabulary]
        dot = sum(a * b for a, b in zip(vector1, vector2))
        norm1 = math.sqrt(sum(a * a for a in vector1))
        norm2 = math.sqrt(sum(b * b for b in vector2))
        if norm1 == 0.0 or norm2 == 0.0:
            return 0.0
        return max(0.0, min(1.0, dot / (norm1 * norm2)))

    def _best_match(self, lemmas: tuple[str, ...], word: str) -> float:
        return max((self.wup(lemma, word) for lemma in lemmas), default=0.0)


@cache
def word_similarity() -> WordSimilarity:
    """The process-wide instance, so every diagram pair shares one memo."""
    return WordSimilarity()
