"""Metrik-3: structural similarity by common subgraphs (Yuan et al. 2020), as domain-model-metrics 1.0.0.

Each diagram becomes a UML class graph: one vertex per class name (explicit, implicit and enum),
one per attribute of an explicit class, and tagged edges (``e1`` association or directed,
``e2`` inheritance, ``e3`` aggregation, ``e4`` composition, ``e5`` dependency). Upstream
matches the relationship edges level by level: a maximum common edge subgraph (equal tags, a
consistent injective class map), then the same again on the edges left over, with a fresh map,
until nothing matches. Each score is the mean of a structural part (from the matched levels) and
a lexical F1 of normalised names; without relationship edges on either side only the
"no-relationship" formulas apply.

Upstream finds each level by exponential backtracking and keeps the *first* maximum solution in
its order: the reference edges sorted by (tag, source, target), each first skipped, then
matched with each fitting generated edge in the same order. Which maximum solution is found
changes the class map, and so the scores and the later levels. :func:`_first_maximum` returns
that same solution, but searches the compatibility graph of edge pairs (a maximum clique is a
maximum common edge subgraph) with forward checking and a colouring bound, so the pairs that
took upstream minutes take well under a second.

The search is still exponential in the worst case, so it runs on a budget of search steps (one
step is one node of the search tree, across all levels of one pair): deterministic, unlike a
clock, and recorded as the metric's setting ``search_step_budget``. A pair that needs more
fails with ``budget_exceeded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from dmbench.errors import BudgetExceeded, MetricError
from dmbench.metrics._contract import require_valid
from dmbench.plantuml import Diagram, parse

if TYPE_CHECKING:  # numpy is imported where used: a tenth of a second of every process
    import numpy as np

SEARCH_STEP_BUDGET = 1_000_000
"""Search steps per pair before ``budget_exceeded``; the 840 golden pairs need at most 57,732."""

BUDGET_EXCEEDED = "budget_exceeded"

_TAGS = {
    "association": "e1",
    "directed": "e1",
    "inheritance": "e2",
    "aggregation": "e3",
    "composition": "e4",
    "dependency": "e5",
}


@dataclass(frozen=True, slots=True)
class ClassGraph:
    """What metrik-3 reads of one diagram.

    ``vertices`` are the class names (explicit, implicit, enums; sorted), ``attribute_counts``
    the number of attributes of each explicit class, ``edges`` the relationship edges as
    (tag, source, target), sorted as upstream sorts them.
    """

    vertices: tuple[str, ...]
    attribute_counts: dict[str, int]
    edges: tuple[tuple[str, str, str], ...]
    attribute_names: frozenset[str]
    relationship_keys: frozenset[tuple[str, str, str]]

    @property
    def attribute_edges(self) -> int:
        return sum(self.attribute_counts.values())


@dataclass(frozen=True, slots=True)
class Explanation:
    """The structural and lexical parts of each score; structural ones are None without edges."""

    class_score: float
    attribute_score: float
    association_score: float
    levels: tuple[int, ...]
    sim_inter: float | None
    sim_intra: float | None
    class_lexical: float
    attribute_lexical: float
    association_lexical: float
    search_steps: int

    def to_dict(self) -> dict:
        return {
            "class_score": self.class_score,
            "attribute_score": self.attribute_score,
            "association_score": self.association_score,
            "intermediates": {
                "levels": list(self.levels),
                "sim_inter": self.sim_inter,
                "sim_intra": self.sim_intra,
                "class_lexical": self.class_lexical,
                "attribute_lexical": self.attribute_lexical,
                "association_lexical": self.association_lexical,
                "search_steps": self.search_steps,
            },
        }


def class_graph(diagram: Diagram) -> ClassGraph:
    """Upstream's class graph; a class with two attributes of one name is an error upstream too."""
    counts: dict[str, int] = {}
    for cls in diagram.classes:
        names = [a.name for a in cls.attributes]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise MetricError(
                f"class {cls.name!r} has two attributes named {repeated[0]!r}: "
                "metrik-3's class graph needs distinct attribute names"
            )
        counts[cls.name] = len(names)
    enum_names = [e.name for e in diagram.enums] + [
        e.name for c in diagram.classes for e in c.nested_enums
    ]
    edges = dict.fromkeys(
        (_TAGS[r.kind], r.source, r.target)
        for r in diagram.relationships
        if r.kind != "association_class"
    )
    return ClassGraph(
        vertices=tuple(sorted(set(diagram.all_class_names) | set(enum_names))),
        attribute_counts=counts,
        edges=tuple(sorted(edges)),
        attribute_names=frozenset(_norm(a.name) for c in diagram.classes for a in c.attributes),
        relationship_keys=frozenset(
            _relationship_key(r.kind, r.source, r.target)
            for r in diagram.relationships
            if r.kind != "association_class"
        ),
    )


def explain(reference: str, generated: str) -> Explanation:
    """Metrik-3 of two PlantUML texts, read with the compat reading (reference first)."""
    reference_model, generated_model = _read(reference), _read(generated)
    require_valid(reference_model, generated_model)
    return compare(reference_model, generated_model)


#: A reference recurs in every pair of its record: each distinct text is read once.
_read = partial(parse, reading="compat")


def compare(
    reference: Diagram, generated: Diagram, budget: int = SEARCH_STEP_BUDGET
) -> Explanation:
    """Metrik-3 of two diagrams; raises :class:`BudgetExceeded` past ``budget`` steps."""
    first, second = class_graph(reference), class_graph(generated)
    class_lexical = _f1({_norm(v) for v in first.vertices}, {_norm(v) for v in second.vertices})
    attribute_lexical = _f1(set(first.attribute_names), set(second.attribute_names))
    association_lexical = _f1(set(first.relationship_keys), set(second.relationship_keys))
    if not first.edges or not second.edges:
        return Explanation(
            class_score=_clamp(
                (_f1(set(first.vertices), set(second.vertices)) + class_lexical) / 2.0
            ),
            attribute_score=_clamp(
                (_attribute_count_similarity(first, second) + attribute_lexical) / 2.0
            ),
            association_score=_clamp(association_lexical / 2.0),
            levels=(),
            sim_inter=None,
            sim_intra=None,
            class_lexical=class_lexical,
            attribute_lexical=attribute_lexical,
            association_lexical=association_lexical,
            search_steps=0,
        )
    search = _CommonEdges(first.edges, second.edges, budget)
    levels = search.levels()
    pairs = {
        (first.edges[i][end], second.edges[j][end]) for level in levels for i, j in level for end in (1, 2)
    }
    min_re = min(len(first.edges), len(second.edges))
    max_re = max(len(first.edges), len(second.edges))
    sim_inter = sum(len(level) for level in levels) / min_re
    sim_intra = _intra_similarity(pairs, first, second)
    class_struct = _class_structure(pairs, len(first.vertices), len(second.vertices))
    attribute_struct = _clamp(((sim_intra - 0.5) - 0.1) / 0.4)
    association_struct = _association_structure(sim_inter, min_re, max_re)
    return Explanation(
        class_score=_clamp(_clamp((class_struct + class_lexical) / 2.0)),
        attribute_score=_clamp(_clamp((attribute_struct + attribute_lexical) / 2.0)),
        association_score=_clamp(_clamp((association_struct + association_lexical) / 2.0)),
        levels=tuple(len(level) for level in levels),
        sim_inter=sim_inter,
        sim_intra=sim_intra,
        class_lexical=class_lexical,
        attribute_lexical=attribute_lexical,
        association_lexical=association_lexical,
        search_steps=search.steps,
    )


class _CommonEdges:
    """Upstream's chain of first-found maximum common edge subgraphs, on a step budget.

    A node of the compatibility graph is a pair (reference edge i, generated edge j) of one tag,
    both self-loops or neither; two nodes are adjacent when they can be in one solution: other
    edges on both sides, and the ends they share on one side exactly those they share on the
    other. A solution is a clique. Nodes are numbered in (i, j) order and held in int bitsets.
    """

    def __init__(
        self,
        first: Sequence[tuple[str, str, str]],
        second: Sequence[tuple[str, str, str]],
        budget: int,
    ) -> None:
        self.budget = budget
        self.steps = 0
        self._nodes = [
            (i, j)
            for i, (tag, source, target) in enumerate(first)
            for j, (tag2, source2, target2) in enumerate(second)
            if tag == tag2 and (source == target) == (source2 == target2)
        ]
        self._adjacency = _compatibility(first, second, self._nodes)
        self._of_edge = [0] * len(first)
        for node, (i, _) in enumerate(self._nodes):
            self._of_edge[i] |= 1 << node

    def levels(self) -> list[list[tuple[int, int]]]:
        found: list[list[tuple[int, int]]] = []
        live = (1 << len(self._nodes)) - 1
        while True:
            level = self._first_maximum(live)
            if not level:
                return found
            found.append([self._nodes[node] for node in level])
            used_first = {self._nodes[node][0] for node in level}
            used_second = {self._nodes[node][1] for node in level}
            for node, (i, j) in enumerate(self._nodes):
                if i in used_first or j in used_second:
                    live &= ~(1 << node)

    def _first_maximum(self, candidates: int) -> list[int]:
        """The first largest clique in upstream's order (skip an edge first, then match it).

        Any branch that cannot beat the best so far is cut; the best only changes for a
        strictly larger clique, so the first maximum in that order is what remains.
        """
        best: list[int] = []
        chosen: list[int] = []
        nodes, adjacency, of_edge = self._nodes, self._adjacency, self._of_edge
        # A node's colour class excludes itself and its neighbours: one mask per node.
        excluded = [~(bits | 1 << node) for node, bits in enumerate(adjacency)]
        # And every node of a node's reference edge: one mask per node.
        other_edges = [~of_edge[i] for i, _ in nodes]

        def search(pool: int) -> None:
            nonlocal best
            self.steps += 1
            if self.steps > self.budget:
                raise BudgetExceeded(
                    f"{BUDGET_EXCEEDED}: the common-subgraph search needs more than "
                    f"{self.budget} steps",
                    self.budget,
                )
            if not pool:
                if len(chosen) > len(best):
                    best = list(chosen)
                return
            margin = len(best) - len(chosen)
            if _edges_in(pool, other_edges, margin) <= margin:
                return
            if _colour_bound(pool, excluded, margin) <= margin:
                return
            edge = nodes[_lowest(pool)][0]
            search(pool & ~of_edge[edge])
            matches = pool & of_edge[edge]
            while matches:
                node = _lowest(matches)
                matches &= matches - 1
                chosen.append(node)
                search(pool & adjacency[node])
                chosen.pop()

        search(candidates)
        return best


def _compatibility(
    first: Sequence[tuple[str, str, str]],
    second: Sequence[tuple[str, str, str]],
    nodes: Sequence[tuple[int, int]],
) -> list[int]:
    """Adjacency bitsets of the compatibility graph (numpy for the all-pairs comparison)."""
    import numpy as np

    if not nodes:
        return []
    ids: dict[str, int] = {}
    rows = np.array(
        [
            (
                i,
                j,
                ids.setdefault("r" + first[i][1], len(ids)),
                ids.setdefault("r" + first[i][2], len(ids)),
                ids.setdefault("g" + second[j][1], len(ids)),
                ids.setdefault("g" + second[j][2], len(ids)),
            )
            for i, j in nodes
        ]
    )
    i, j, s1, t1, s2, t2 = (rows[:, k] for k in range(6))

    def shared(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a[:, None] == b[None, :]

    ok = (i[:, None] != i[None, :]) & (j[:, None] != j[None, :])
    ok &= shared(s1, s1) == shared(s2, s2)
    ok &= shared(s1, t1) == shared(s2, t2)
    ok &= shared(t1, s1) == shared(t2, s2)
    ok &= shared(t1, t1) == shared(t2, t2)
    packed = np.packbits(ok, axis=1, bitorder="little")
    return [int.from_bytes(row.tobytes(), "little") for row in packed]


def _lowest(bits: int) -> int:
    return (bits & -bits).bit_length() - 1


def _edges_in(pool: int, other_edges: Sequence[int], margin: int) -> int:
    """How many reference edges still have a candidate (counting stops past ``margin``);
    ``other_edges[n]`` clears every node of node n's reference edge."""
    count = 0
    while pool and count <= margin:
        count += 1
        pool &= other_edges[(pool & -pool).bit_length() - 1]
    return count


def _colour_bound(pool: int, excluded: Sequence[int], margin: int) -> int:
    """Colour classes of a greedy colouring (sets of mutually exclusive pairs), stopping past
    ``margin``: no clique in ``pool`` is larger. ``excluded[n]`` clears node n and its
    neighbours."""
    colours = 0
    while pool and colours <= margin:
        colours += 1
        uncoloured = pool
        while uncoloured:
            low = uncoloured & -uncoloured
            uncoloured &= excluded[low.bit_length() - 1]
            pool ^= low
    return colours


def _intra_similarity(
    pairs: set[tuple[str, str]], first: ClassGraph, second: ClassGraph
) -> float:
    difference = total = 0
    for a, b in pairs:
        count_a = first.attribute_counts.get(a, 0)
        count_b = second.attribute_counts.get(b, 0)
        larger = max(count_a, count_b)
        if larger > 0:
            difference += abs(count_a - count_b)
            total += larger
    similarity = 1.0 if total == 0 else 1.0 - (difference * 1) / total
    return 0.4 * similarity + 0.5 * 1.0 + 0.1 * 1.0


def _class_structure(pairs: set[tuple[str, str]], n_first: int, n_second: int) -> float:
    if n_first == 0 and n_second == 0:
        return 1.0
    if n_first == 0 or n_second == 0 or not pairs:
        return 0.0
    precision = len({b for _, b in pairs}) / n_second
    recall = len({a for a, _ in pairs}) / n_first
    return 2 * precision * recall / (precision + recall)


def _association_structure(sim_inter: float, min_re: int, max_re: int) -> float:
    if min_re == 0:
        return 0.0
    matched = int(round(sim_inter * min_re))
    if matched == 0:
        return 0.0
    precision = matched / max_re
    return 2 * precision * sim_inter / (precision + sim_inter)


def _attribute_count_similarity(first: ClassGraph, second: ClassGraph) -> float:
    a, b = first.attribute_edges, second.attribute_edges
    if a == 0 and b == 0:
        return 1.0
    if a == 0 or b == 0:
        return 0.0
    return min(a, b) / max(a, b)


def _relationship_key(kind: str, source: str, target: str) -> tuple[str, str, str]:
    ends = (_norm(source), _norm(target))
    if kind in ("association", "inheritance"):
        ends = (min(ends), max(ends))
    return (ends[0], ends[1], kind)


def _f1(reference: set, generated: set) -> float:
    if not reference and not generated:
        return 1.0
    common = len(reference & generated)
    precision = common / len(generated) if generated else 0
    recall = common / len(reference) if reference else 0
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def _norm(name: str) -> str:
    return name.lower().strip().replace("_", "").replace("-", "").replace(" ", "").replace(".", "")


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, float(value)))
