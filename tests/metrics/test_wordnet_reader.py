"""The lean WordNet reader answers as NLTK's stock reader on everything metrik-4 asks.

The words are every identifier of every diagram in ``../shared/golden/parsed.jsonl`` (names,
types, labels, enum values), split as metrik-4 splits them; the stock reader is
``nltk.corpus.wordnet`` itself.
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest

from dmbench.metrics._tagger import perceptron_tagger
from dmbench.metrics._wordnet_reader import (
    find_line,
    hypernym_ids,
    import_nltk,
    lean_wordnet,
    synset_offsets,
)
from dmbench.metrics._wordsim import tokenize
from dmbench.metrics._wupalmer import WuPalmer, _code
from dmbench.metrics.nltk_data import use_data_dirs

pytestmark = pytest.mark.needs_nltk

POS = ("n", "v", "a", "r", "s")


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@pytest.fixture(scope="module")
def readers():
    """(stock, lean), both over the same WordNet files."""
    import_nltk()
    use_data_dirs()
    from nltk.corpus import wordnet

    wordnet.ensure_loaded()
    return wordnet, lean_wordnet()


@pytest.fixture(scope="module")
def golden_words(golden_dir: Path) -> list[str]:
    words: set[str] = set()
    with (golden_dir / "parsed.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            model = json.loads(line)["strict"].get("model")
            for identifier in _strings(model):
                words.update(token.lower() for token in tokenize(identifier))
    return sorted(words)


@pytest.fixture(scope="module")
def golden_lemmas(readers, golden_words) -> list[str]:
    stock, _lean = readers
    lemmas = {form for word in golden_words for pos in POS for form in stock._morphy(word, pos)}
    return sorted(lemmas | set(golden_words))


def test_the_golden_data_reach_enough_words(golden_words, golden_lemmas):
    """The comparisons below cover a real vocabulary, not an empty one."""
    assert len(golden_words) > 1000
    assert len(golden_lemmas) > len(golden_words)


def test_lemma_index_equals_nltk_across_wordnet(readers, golden_lemmas):
    """Iterating the lazy index lists exactly NLTK's lemmas, and bisection finds the offsets per
    part of speech, satellites included, of every fourth lemma in WordNet's order (the first and
    last included) and of every golden lemma."""
    stock, lean = readers
    expected = stock._lemma_pos_offset_map
    every = sorted(expected)
    assert sorted(lean._lemma_pos_offset_map) == every
    index = lean._lemma_pos_offset_map
    checked = [*every[::4], every[-1], *golden_lemmas]
    assert [lemma for lemma in checked if index[lemma] != expected[lemma]] == []


def test_words_outside_wordnet_are_absent(readers):
    stock, lean = readers
    for word in ("", "qzxv", "zzzzzzzz", "a b", "customer\n", "ä", " ", "!"):
        assert (word in lean._lemma_pos_offset_map) == (word in stock._lemma_pos_offset_map)
        assert lean._lemma_pos_offset_map[word] == {}
        assert lean.synsets(word) == stock.synsets(word) == []


def test_lemmatisation_equals_nltk_on_the_golden_words(readers, golden_words):
    """Same exception lists (irregular forms), same base forms of every golden word."""
    stock, lean = readers
    assert lean._exception_map == stock._exception_map
    for word in golden_words:
        for pos in POS:
            assert lean._morphy(word, pos) == stock._morphy(word, pos), (word, pos)


def _id(synset) -> tuple[str, int]:
    """A stock ``Synset`` as the lean reader's id (satellites live in the adjective file)."""
    return ("a" if synset.pos() == "s" else synset.pos(), synset.offset())


def test_synsets_and_paths_equal_nltk_on_the_golden_lemmas(readers, golden_lemmas):
    """Same synsets in the same order (as objects and as ids), same hypernym paths and depths."""
    stock, lean = readers
    for lemma in golden_lemmas:
        ours, theirs = lean.synsets(lemma), stock.synsets(lemma)
        assert [s.name() for s in ours] == [s.name() for s in theirs], lemma
        assert lean.synset_ids(lemma) == [_id(s) for s in theirs], lemma
        for mine, nltks in zip(ours, theirs, strict=True):
            assert [[s.name() for s in path] for path in mine.hypernym_paths()] == [
                [s.name() for s in path] for path in nltks.hypernym_paths()
            ], mine
            assert (mine.min_depth(), mine.max_depth()) == (nltks.min_depth(), nltks.max_depth())


def test_hypernyms_and_depths_equal_nltk_on_every_synset_the_golden_lemmas_reach(
    readers, golden_lemmas
):
    """The hypernym ids parsed from the data lines are NLTK's ``hypernyms()`` and
    ``instance_hypernyms()``, and Wu-Palmer's depths NLTK's ``min_depth`` and ``max_depth``, on
    every synset of a golden lemma and every ancestor of one."""
    stock, lean = readers
    wu_palmer = WuPalmer(lean)
    reached: set = set()
    todo = [synset for lemma in golden_lemmas for synset in stock.synsets(lemma)]
    while todo:
        synset = todo.pop()
        if synset in reached:
            continue
        reached.add(synset)
        parents = synset.hypernyms() + synset.instance_hypernyms()
        assert sorted(lean.hypernym_ids(_id(synset))) == sorted(map(_id, parents)), synset
        todo += parents
    assert len(reached) > 5000
    for synset in reached:
        node = wu_palmer._node(_code(_id(synset)))
        depths = (wu_palmer._min_depth[node.synset], wu_palmer._max_depth[node.synset])
        assert depths == (synset.min_depth(), synset.max_depth()), synset


def test_hypernym_ids_read_whole_synset_pointers_before_the_gloss():
    """Hypernyms and instance hypernyms between whole synsets count; a lexical pointer (source
    and target not 0000), other symbols and the gloss do not."""
    line = (
        b"00002137 03 n 02 abstraction 0 abstract_entity 0 004 @ 00001740 n 0000 "
        b"@i 00005555 n 0000 @ 00007777 n 0101 ~ 00008888 n 0000 | a gloss | @ 00009999 n 0000\n"
    )
    assert hypernym_ids(line, 2137) == (("n", 1740), ("n", 5555))


def test_a_line_that_is_not_the_synset_asked_for_is_refused():
    line = b"00001740 03 n 01 entity 0 002 ~ 00001930 n 0000 ~ 00002137 n 0000 | that which is\n"
    assert hypernym_ids(line, 1740) == ()
    with pytest.raises(ValueError, match="no WordNet synset at offset 1741"):
        hypernym_ids(line, 1741)


def test_wu_palmer_equals_nltk_on_the_golden_lemmas(readers, golden_lemmas):
    """NLTK's own wup_similarity over each reader's synsets: each lemma's first two synsets
    against those of the next lemma in alphabetical order."""
    stock, lean = readers
    for lemma, other in zip(golden_lemmas, golden_lemmas[1:], strict=False):
        for mine1, nltks1 in zip(lean.synsets(lemma)[:2], stock.synsets(lemma)[:2], strict=True):
            partners = zip(lean.synsets(other)[:2], stock.synsets(other)[:2], strict=True)
            for mine2, nltks2 in partners:
                assert mine1.wup_similarity(mine2) == nltks1.wup_similarity(nltks2), (mine1, mine2)


def test_tagger_equals_nltk_and_tags_the_golden_words_alike(readers, golden_words):
    from nltk.tag.perceptron import PerceptronTagger

    stock, ours = PerceptronTagger(), perceptron_tagger()
    assert ours.model.weights == stock.model.weights
    assert (ours.tagdict, ours.classes, ours.model.classes) == (
        stock.tagdict,
        stock.classes,
        stock.model.classes,
    )
    assert ours.tag(golden_words) == stock.tag(golden_words)


def test_find_line_bisects_a_sorted_index():
    index = b"  1 licence header\n  2 more header\nabc n 1 0 1 0 00000001\nabd v 2 0 2 0 5 7\n"
    assert find_line(index, b"abd") == b"abd v 2 0 2 0 5 7"
    assert synset_offsets(find_line(index, b"abd")) == [5, 7]
    assert find_line(index, b"abc") == b"abc n 1 0 1 0 00000001"
    for absent in (b"ab", b"abcd", b"abe", b"a", b"zzz", b"1"):
        assert find_line(index, absent) is None


def test_nltk_is_imported_without_scipy_stats():
    """A fresh process that scores with metrik-4's reader never imports scipy.stats (1 s)."""
    import subprocess

    code = (
        "import sys; from dmbench.metrics._wordsim import word_similarity; "
        "print(word_similarity().similarity('customerOrder', 'order'), "
        "'scipy.stats' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert float(out[0]) > 0.5
    assert out[1:] == ["False", "False"]


#: Words of every part of speech, with satellites, instances and several senses each.
WUP_WORDS = ["customer", "order", "run", "book", "red", "quickly", "paris", "bank", "pay", "big"]


def test_wu_palmer_equals_nltk_on_every_synset_pair_of_a_mixed_vocabulary(readers):
    """The memoised computation over the lean reader's hypernym ids gives NLTK's
    wup_similarity on the stock reader's synsets exactly (nouns, verbs, adjectives,
    satellites, adverbs, instances)."""
    stock, lean = readers
    ids = [i for word in WUP_WORDS for i in lean.synset_ids(word)[:6]]
    synsets = [s for word in WUP_WORDS for s in stock.synsets(word)[:6]]
    ours = WuPalmer(lean)
    pairs = itertools.product(zip(ids, synsets, strict=True), repeat=2)
    for (id1, first), (id2, second) in pairs:
        assert ours.similarity(id1, id2) == first.wup_similarity(second), (first, second)


def test_best_both_ways_equals_nltk_maxima(readers):
    """One pass gives upstream's per-lemma maximum in each direction."""
    stock, lean = readers
    ours = WuPalmer(lean)
    for word1, word2 in itertools.combinations(WUP_WORDS, 2):
        synsets1, synsets2 = stock.synsets(word1), stock.synsets(word2)
        expected = tuple(
            max((a.wup_similarity(b) or 0.0 for a in x for b in y), default=0.0)
            for x, y in ((synsets1, synsets2), (synsets2, synsets1))
        )
        found = ours.best_both_ways(lean.synset_ids(word1), lean.synset_ids(word2))
        assert found == expected, (word1, word2)
