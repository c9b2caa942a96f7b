"""NLTK's ``Synset.wup_similarity`` (nltk 3.10.4, default arguments), from memoised hypernym data.

NLTK recomputes every synset's ancestor distances and re-reads WordNet's version header on each
call, about 0.2 ms per synset pair; metrik-4 asks for millions of pairs. The value depends only
on the hypernym graph, so this module computes once per synset its ancestors (breadth-first
distances), ``min_depth`` and ``max_depth`` (NLTK's definitions: 0 without hypernyms, else one
more than the least, or greatest, of its hypernyms'), and then applies NLTK's rules exactly:

* a simulated root ``*ROOT*`` joins the taxonomies unless both synsets are nouns; it sits one
  step above each synset's *farthest* ancestor and has depth 0;
* the candidates are the common ancestors (a synset counts as its own ancestor) of greatest
  ``min_depth``, sorted by name; the subsumer is the first synset if it is a candidate, else the
  first candidate;
* ``depth = max_depth(subsumer) + 1``; each side's length is its shortest path through a common
  ancestor of itself and the subsumer, plus ``depth``; the result is ``2 * depth / (len1 + len2)``.

Synsets are ids, ``(pos, offset)``, and their hypernyms (instance hypernyms included) come from
the lean reader's parse of their data file lines: building NLTK's ``Synset`` objects for the
thousand synsets and ancestors of a cold pair took 0.15 s, a sixth of scoring it. Inside, an id
is one int (offset and pos in its low bits), which hashes faster than a tuple in the inner loop.
NLTK's names only order tied candidates, and are asked for then.

Only the subsumer rule depends on the order of the two synsets, so one pass gives the similarity
in both directions. Should the hypernym graph hold a cycle (NLTK refuses one), the lemma pair is
handed to NLTK's own ``wup_similarity``, so callers see exactly NLTK's behaviour. The two agreed
exactly on 300,000 random pairs of the 7,777 synsets of the golden data's words (on the stock
reader's ``Synset`` objects); a test checks every pair of a sample covering nouns, verbs,
adjectives, satellites, adverbs and instances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dmbench.metrics._wordnet_reader import SynsetId

ROOT = "*ROOT*"
_POS_CODES = {"n": 0, "v": 1, "a": 2, "r": 3}
_POS_NAMES = tuple(_POS_CODES)
_NOUN = _POS_CODES["n"]

#: A subsumer: a synset's code (:func:`_code`), or the simulated root.
_Subsumer = int | str


def _code(synset: SynsetId) -> int:
    pos, offset = synset
    return offset << 2 | _POS_CODES[pos]


def _synset_id(code: int) -> SynsetId:
    return _POS_NAMES[code & 3], code >> 2


@dataclass(frozen=True, slots=True)
class _Node:
    synset: int
    is_noun: bool
    #: ancestor -> shortest hypernym distance (the synset itself at 0)
    ancestors: dict[int, int]
    #: (ancestor, min_depth) of every ancestor, deepest first
    by_min_depth: tuple[tuple[int, int], ...]
    #: distance to the simulated root: one more than to the farthest ancestor
    root_distance: int


class WuPalmer:
    """Memoised Wu-Palmer similarity over the synsets of a lean reader (``wordnet``)."""

    def __init__(self, wordnet) -> None:
        self._wordnet = wordnet
        self._nodes: dict[int, _Node] = {}
        self._hypernyms: dict[int, tuple[int, ...]] = {}
        self._names: dict[int, str] = {}
        self._min_depth: dict[int, int] = {}
        self._max_depth: dict[int, int] = {}
        self._visiting: set[int] = set()
        self._distances: dict[tuple[int, int], int] = {}

    def similarity(self, first: SynsetId, second: SynsetId) -> float | None:
        """NLTK's ``wup_similarity`` of the two synsets; raises where NLTK raises."""
        try:
            node1, node2 = self._node(_code(first)), self._node(_code(second))
            lowest = self._lowest_common(node1, node2)
            if not lowest:
                return None
            subsumer = node1.synset if node1.synset in lowest else lowest[0]
            return self._value(node1, node2, subsumer)
        except ValueError:
            return self._wordnet.synset_of(first).wup_similarity(self._wordnet.synset_of(second))

    def best_both_ways(
        self, synsets1: Sequence[SynsetId], synsets2: Sequence[SynsetId]
    ) -> tuple[float, float]:
        """The best similarity over all pairs, from 1 to 2 and from 2 to 1.

        Like upstream, a pair whose similarity is None or raises is skipped, and 0.0 is the floor.
        """
        try:
            return self._best_both_ways(
                [self._node(_code(s)) for s in synsets1], [self._node(_code(s)) for s in synsets2]
            )
        except ValueError:
            nltk1 = [self._wordnet.synset_of(s) for s in synsets1]
            nltk2 = [self._wordnet.synset_of(s) for s in synsets2]
            return _best_by_nltk(nltk1, nltk2), _best_by_nltk(nltk2, nltk1)

    def _best_both_ways(self, nodes1: list[_Node], nodes2: list[_Node]) -> tuple[float, float]:
        forward = backward = 0.0
        for node1 in nodes1:
            for node2 in nodes2:
                lowest = self._lowest_common(node1, node2)
                if not lowest:
                    continue
                subsumer = node1.synset if node1.synset in lowest else lowest[0]
                there = self._value(node1, node2, subsumer)
                reverse_subsumer = node2.synset if node2.synset in lowest else lowest[0]
                back = (
                    there
                    if reverse_subsumer == subsumer
                    else self._value(node1, node2, reverse_subsumer)
                )
                if there > forward:
                    forward = there
                if back > backward:
                    backward = back
                if forward >= 1.0 and backward >= 1.0:  # Wu-Palmer never exceeds 1
                    return forward, backward
        return forward, backward

    def _node(self, synset: int) -> _Node:
        node = self._nodes.get(synset)
        if node is None:
            ancestors = self._ancestor_distances(synset)
            by_min_depth = sorted(
                ((ancestor, self._min_depth[ancestor]) for ancestor in ancestors),
                key=lambda item: -item[1],
            )
            node = _Node(
                synset,
                synset & 3 == _NOUN,
                ancestors,
                tuple(by_min_depth),
                max(ancestors.values()) + 1,
            )
            self._nodes[synset] = node
        return node

    def _hypernyms_of(self, synset: int) -> tuple[int, ...]:
        found = self._hypernyms.get(synset)
        if found is None:
            parents = self._wordnet.hypernym_ids(_synset_id(synset))
            found = self._hypernyms[synset] = tuple(map(_code, parents))
        return found

    def _ancestor_distances(self, synset: int) -> dict[int, int]:
        """Breadth-first hypernym distances (instance hypernyms included), recording depths."""
        distances = {synset: 0}
        frontier = [synset]
        level = 0
        while frontier:
            for current in frontier:
                self._record_depths(current)
            level += 1
            upper = []
            for current in frontier:
                for parent in self._hypernyms_of(current):
                    if parent not in distances:
                        distances[parent] = level
                        upper.append(parent)
            frontier = upper
        return distances

    def _record_depths(self, synset: int) -> None:
        """``min_depth`` and ``max_depth`` of the synset and its ancestors; a cycle raises."""
        if synset in self._min_depth:
            return
        if synset in self._visiting:
            raise ValueError(f"hypernym graph has a cycle at {_synset_id(synset)}")
        self._visiting.add(synset)
        try:
            parents = self._hypernyms_of(synset)
            for parent in parents:
                self._record_depths(parent)
        finally:
            self._visiting.discard(synset)
        self._min_depth[synset] = 1 + min(map(self._min_depth.__getitem__, parents), default=-1)
        self._max_depth[synset] = 1 + max(map(self._max_depth.__getitem__, parents), default=-1)

    def _lowest_common(self, first: _Node, second: _Node) -> list[_Subsumer]:
        """The subsumer candidates, sorted by name; the same list in either order."""
        other = second.ancestors
        lowest: list[_Subsumer] = []
        found = None
        for ancestor, min_depth in first.by_min_depth:
            if found is not None and min_depth != found:
                break
            if ancestor in other:
                found = min_depth
                lowest.append(ancestor)
        if not (first.is_noun and second.is_noun) and (found is None or found == 0):
            lowest.append(ROOT)
        if len(lowest) > 1:
            lowest.sort(key=self._name)
        return lowest

    def _name(self, subsumer: _Subsumer) -> str:
        if isinstance(subsumer, str):
            return subsumer
        name = self._names.get(subsumer)
        if name is None:
            name = self._names[subsumer] = self._wordnet.synset_of(_synset_id(subsumer)).name()
        return name

    def _value(self, first: _Node, second: _Node, subsumer: _Subsumer) -> float:
        """``2 * depth / (len1 + len2)``; the sum makes it symmetric in the two synsets."""
        need_root = not (first.is_noun and second.is_noun)
        depth = (0 if isinstance(subsumer, str) else self._max_depth[subsumer]) + 1
        length1 = self._distance(first, subsumer, need_root) + depth
        length2 = self._distance(second, subsumer, need_root) + depth
        return (2.0 * depth) / (length1 + length2)

    def _distance(self, node: _Node, subsumer: _Subsumer, need_root: bool) -> int:
        """NLTK's ``shortest_path_distance`` from a synset to one of its ancestors."""
        if node.synset == subsumer:
            return 0
        if isinstance(subsumer, str):  # ROOT, the only named subsumer
            return node.root_distance
        key = (node.synset, subsumer)
        best = self._distances.get(key)
        if best is None:
            above = self._node(subsumer)
            best = min(node.ancestors[synset] + d for synset, d in above.ancestors.items())
            self._distances[key] = best
        if need_root:
            return min(best, node.root_distance + self._nodes[subsumer].root_distance)
        return best


def _best_by_nltk(synsets1: Sequence, synsets2: Sequence) -> float:
    best = 0.0
    for synset1 in synsets1:
        for synset2 in synsets2:
            try:
                value = synset1.wup_similarity(synset2)
            except Exception:  # noqa: BLE001 - upstream skips a pair whose similarity raises
                continue
            if value is not None and value > best:
                best = value
    return best
