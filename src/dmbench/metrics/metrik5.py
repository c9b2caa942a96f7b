"""Metrik-5: the structural view of Triandini et al. (2021), as domain-model-metrics 1.0.0.

Upstream computes metrik-4's semantic similarity and a structural one, and returns only the
structural half: ``class_score = attribute_score = clamp(intraSim)`` and ``association_score =
clamp(interSim)``. The semantic half (minutes of WordNet per pair) can change none of the three
and is not computed here.

Both halves are graph edit distances (GED) over upstream's class graph, a networkx
``MultiDiGraph`` of the normalised diagram (``_normalise``, shared with metrik-4): one ``vc``
node per class, one ``va`` node per distinct attribute name with an ``e_a`` edge per attribute,
and one edge per relationship (``e_1`` association, ``e_2`` generalisation, ``e_3``
aggregation, ``e_4`` composition, ``e_5`` dependency). A GED is normalised as ``clamp(1 -
cost / size)`` with ``size`` the larger ``|V| + |E|``. Upstream takes the exact GED when size
is at most 15 and otherwise the *first* cost networkx's ``optimize_graph_edit_distance``
yields, an upper bound that depends on the order in which nodes and edges were inserted.

* ``intraSim`` compares each class's star (the class, its attributes) with every other and
  matches greedily, like metrik-4's class matching. For distinct attribute names the exact GED
  and networkx's first bound are both ``2 * |a - b|``; a class with a repeated attribute name
  makes a multigraph star and goes to networkx itself.
* ``interSim`` compares the class-to-class graphs (all nodes ``vc``, so only structure and edge
  tags count). Up to size 15 networkx computes the exact GED; above, :func:`first_path_cost`
  follows the first edit path networkx builds, the diagrams aligned by declaration position.

networkx is pinned to the version whose search order defines the published values
(3.6.1); the faithful part of its behaviour that this module re-implements is tested against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import TYPE_CHECKING

from dmbench.errors import MetricError
from dmbench.metrics._normalise import Normalised, normalise
from dmbench.metrics.metrik4 import greedy_matching
from dmbench.plantuml import Diagram, parse

if TYPE_CHECKING:  # networkx, scipy.optimize and numpy are imported where used: 0.9 s a process
    import networkx as nx

EXACT_GED_MAX_SIZE = 15
"""Upstream's threshold: larger graphs get networkx's first (approximate) edit path."""

_EDGE_TAGS = {"composition": "e_4", "aggregation": "e_3", "none": "e_1"}


@dataclass(frozen=True, slots=True)
class ClassGraph:
    """The class-to-class part of upstream's graph, nodes and edges in insertion order.

    ``edges`` are (source index, target index, tag) in networkx's edge iteration order; ``stars``
    hold, per class, how often each attribute name occurs (in order of first occurrence).
    """

    nodes: tuple[str, ...]
    edges: tuple[tuple[int, int, str], ...]
    stars: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Explanation:
    """The two structural similarities; ``class_score`` etc. are the published view."""

    intraSim: float
    interSim: float

    @property
    def class_score(self) -> float:
        return _clamp(self.intraSim)

    @property
    def attribute_score(self) -> float:
        return _clamp(self.intraSim)

    @property
    def association_score(self) -> float:
        return _clamp(self.interSim)

    def to_dict(self) -> dict:
        return {
            "class_score": self.class_score,
            "attribute_score": self.attribute_score,
            "association_score": self.association_score,
            "intermediates": {"intraSim": self.intraSim, "interSim": self.interSim},
        }


def explain(reference: str, generated: str) -> Explanation:
    """Metrik-5 of two PlantUML texts, read with the compat reading (reference first)."""
    reference_model, generated_model = _read(reference), _read(generated)
    if not reference_model.is_valid():
        raise MetricError("Invalid reference model")
    if not generated_model.is_valid():
        raise MetricError("Invalid generated model")
    return compare(reference_model, generated_model)


#: A reference recurs in every pair of its record: each distinct text is read once.
_read = partial(parse, reading="compat")


def compare(reference: Diagram, generated: Diagram) -> Explanation:
    """Metrik-5 of two valid diagrams (see ``Diagram.is_valid``)."""
    first = class_graph(normalise(reference))
    second = class_graph(normalise(generated))
    return Explanation(intraSim=_intra_similarity(first, second), interSim=_inter(first, second))


def class_graph(diagram: Normalised) -> ClassGraph:
    """Upstream's graph of a normalised diagram, reduced to what the two GEDs read."""
    index = {cls.name: i for i, cls in enumerate(diagram.classes)}
    inserted = [
        (index[e.source], index[e.target], _EDGE_TAGS[e.ownership]) for e in diagram.associations
    ]
    inserted += [(index[e.source], index[e.target], "e_5") for e in diagram.dependencies]
    inserted += [(index[e.source], index[e.target], "e_2") for e in diagram.generalizations]
    return ClassGraph(
        nodes=tuple(cls.name for cls in diagram.classes),
        edges=_multidigraph_edge_order(inserted),
        stars=tuple(
            tuple(Counter(a.name for a in cls.attributes).values()) for cls in diagram.classes
        ),
    )


def _multidigraph_edge_order(
    inserted: Sequence[tuple[int, int, str]],
) -> tuple[tuple[int, int, str], ...]:
    """How a MultiDiGraph iterates edges: by source node, then target by first edge, then key."""
    by_source: dict[int, dict[int, list[str]]] = {}
    for source, target, tag in inserted:
        by_source.setdefault(source, {}).setdefault(target, []).append(tag)
    return tuple(
        (source, target, tag)
        for source in sorted(by_source)
        for target, tags in by_source[source].items()
        for tag in tags
    )


def _intra_similarity(first: ClassGraph, second: ClassGraph) -> float:
    """Greedy matching of the class stars, ``2 * sum / (n1 + n2)``; 1.0 for two empty lists."""
    if not first.stars and not second.stars:
        return 1.0
    if not first.stars or not second.stars:
        return 0.0
    matrix = [[_star_similarity(a, b) for b in second.stars] for a in first.stars]
    total, _ = greedy_matching(matrix)
    return (2.0 * total) / (len(first.stars) + len(second.stars))


@lru_cache(maxsize=4096)
def _star_similarity(first: tuple[int, ...], second: tuple[int, ...]) -> float:
    if any(count > 1 for count in first + second):
        cost, size = _networkx_ged(_star_graph(first), _star_graph(second))
        return 0.0 if cost is None else _normalised_cost(cost, size)
    a, b = len(first), len(second)
    return _normalised_cost(2 * abs(a - b), max(1 + 2 * a, 1 + 2 * b))


def _star_size(graph: nx.MultiDiGraph) -> int:
    return graph.number_of_nodes() + graph.number_of_edges()


def _star_graph(counts: tuple[int, ...]) -> nx.MultiDiGraph:
    import networkx as nx

    graph = nx.MultiDiGraph()
    graph.add_node("class", tag="vc")
    for position, count in enumerate(counts):
        graph.add_node(position, tag="va")
        for _ in range(count):
            graph.add_edge("class", position, tag="e_a")
    return graph


def _inter(first: ClassGraph, second: ClassGraph) -> float:
    size = max(len(first.nodes) + len(first.edges), len(second.nodes) + len(second.edges))
    if size == 0:
        return 1.0
    if size <= EXACT_GED_MAX_SIZE:
        cost = exact_cost(first, second)
    else:
        cost = first_path_cost(first, second)
    return _normalised_cost(cost, size)


def _networkx_ged(first: nx.MultiDiGraph, second: nx.MultiDiGraph) -> tuple[float | None, int]:
    """Upstream's GED choice for any pair of graphs, with the size it is normalised by."""
    import networkx as nx

    size = max(_star_size(first), _star_size(second))
    if size <= EXACT_GED_MAX_SIZE:
        cost = nx.graph_edit_distance(first, second, node_match=_same_tag, edge_match=_same_tag)
    else:
        cost = next(
            nx.optimize_graph_edit_distance(
                first, second, node_match=_same_tag, edge_match=_same_tag
            ),
            None,
        )
    return cost, size


def _same_tag(first: dict, second: dict) -> bool:
    return first["tag"] == second["tag"]


def _normalised_cost(cost: float, size: int) -> float:
    return _clamp(1.0 - float(cost) / float(size))


Edge = tuple[int, int, str]
Step = tuple[int | None, int | None]


def first_path_cost(first: ClassGraph, second: ClassGraph) -> int:
    """The first cost networkx 3.6.1's ``optimize_graph_edit_distance`` yields (all nodes ``vc``).

    networkx walks the vertex alignment of one assignment problem on the node costs: reference
    nodes in order, each with its partner or deleted, then the inserted nodes.
    """
    partners = _alignment(len(first.nodes), len(second.nodes))
    steps: list[Step] = list(enumerate(partners))
    placed = {j for j in partners if j is not None}
    steps += [(None, j) for j in range(len(second.nodes)) if j not in placed]
    pending: tuple[Sequence[Edge], Sequence[Edge]] = (first.edges, second.edges)
    done: list[Step] = []
    cost = 0
    for u, v in steps:
        step_cost, pending = _step(pending, done, u, v)
        cost += step_cost
        done.append((u, v))
    return cost


def exact_cost(first: ClassGraph, second: ClassGraph) -> int:
    """What networkx 3.6.1's exact ``graph_edit_distance`` returns (all nodes ``vc``).

    Without self-loops that is the true edit distance (:func:`_edit_distance`). With them it is
    the least cost over the edit paths networkx explores, where an edge's cost depends on the
    order nodes are placed in (see :func:`_step`): networkx places the first pending generated
    node while at most as many reference nodes are pending, otherwise the first pending
    reference node, and tries every partner for it. The true distance bounds that from above.
    """
    true_distance = _edit_distance(first, second)
    if not any(s == t for s, t, _ in first.edges + second.edges):
        return true_distance
    best = min(first_path_cost(first, second), true_distance)
    first_edges, second_edges = first.edges, second.edges
    tiny = len(first.nodes) <= 1 and len(second.nodes) <= 1

    def search(
        ours: tuple[int, ...],
        theirs: tuple[int, ...],
        pending: tuple[Sequence[Edge], Sequence[Edge]],
        done: list[Step],
        cost: int,
    ) -> None:
        nonlocal best
        if not ours and not theirs:
            best = min(best, cost)
            return
        bound = cost + abs(len(ours) - len(theirs)) + _edge_lower_bound(*pending)
        if not tiny and bound >= best:
            return
        if len(ours) <= len(theirs):
            first_theirs = theirs[0]
            options: list[Step] = [(u, first_theirs) for u in ours] + [(None, first_theirs)]
        else:
            first_ours = ours[0]
            options = [(first_ours, v) for v in theirs] + [(first_ours, None)]
        for u, v in options:
            step_cost, rest = _step(pending, done, u, v)
            done.append((u, v))
            search(
                tuple(x for x in ours if x != u),
                tuple(y for y in theirs if y != v),
                rest,
                done,
                cost + step_cost,
            )
            done.pop()

    search(
        tuple(range(len(first.nodes))),
        tuple(range(len(second.nodes))),
        (first_edges, second_edges),
        [],
        0,
    )
    return best


def _edit_distance(first: ClassGraph, second: ClassGraph) -> int:
    """The true edit distance of two all-``vc`` multigraphs, by branch and bound.

    Mapping the smaller side's nodes costs nothing and never hurts, so the cost is the node
    count difference plus the edges: ``E1 + E2`` minus, per ordered node pair and its image,
    ``min(#edges, #edges') + #edges with a tag in common``. Nodes without edges map anywhere.
    """
    first_pairs = _edges_by_pair(first.edges)
    second_pairs = _edges_by_pair(second.edges)

    def gain(pair: tuple[int, int], image: tuple[int, int]) -> int:
        ours, theirs = first_pairs.get(pair), second_pairs.get(image)
        if ours is None or theirs is None:
            return 0
        return min(ours.total(), theirs.total()) + (ours & theirs).total()

    degree = Counter(end for s, t, _ in first.edges for end in (s, t))
    order = sorted(degree, key=lambda node: -degree[node])
    position = {node: k for k, node in enumerate(order)}
    settled_after = [0] * (len(order) + 1)
    for s, t, _ in first.edges:
        settled_after[max(position[s], position[t]) + 1] += 1
    for k in range(1, len(settled_after)):
        settled_after[k] += settled_after[k - 1]
    images = sorted({end for s, t, _ in second.edges for end in (s, t)})
    neighbours: dict[int, list[int]] = {node: [] for node in images}
    for s, t, _ in second.edges:
        neighbours[s].append(t)
        if t != s:
            neighbours[t].append(s)
    n_first, n_second = len(first.edges), len(second.edges)
    mapping: dict[int, int] = {}
    best = 0

    def search(k: int, total: int, covered: int) -> None:
        nonlocal best
        best = max(best, total)
        if k == len(order):
            return
        if total + 2 * min(n_first - settled_after[k], n_second - covered) <= best:
            return
        node = order[k]
        options = []
        for image in images:
            if image in mapping.values():
                continue
            added = gain((node, node), (image, image)) + sum(
                gain((node, other), (image, mapped)) + gain((other, node), (mapped, image))
                for other, mapped in mapping.items()
            )
            newly = sum(1 for y in neighbours[image] if y == image or y in mapping.values())
            options.append((-added, image, newly))
        for negative, image, newly in sorted(options):
            mapping[node] = image
            search(k + 1, total - negative, covered + newly)
            del mapping[node]
        search(k + 1, total, covered)

    search(0, 0, 0)
    return abs(len(first.nodes) - len(second.nodes)) + n_first + n_second - best


def _edges_by_pair(edges: Sequence[Edge]) -> dict[tuple[int, int], Counter[str]]:
    by_pair: dict[tuple[int, int], Counter[str]] = {}
    for source, target, tag in edges:
        by_pair.setdefault((source, target), Counter())[tag] += 1
    return by_pair


def _edge_lower_bound(ours: Sequence[Edge], theirs: Sequence[Edge]) -> int:
    """No placement settles the pending edges for less than pairing them freely by tag."""
    common = Counter(tag for _, _, tag in ours) & Counter(tag for _, _, tag in theirs)
    return max(len(ours), len(theirs)) - sum(common.values())


@lru_cache(maxsize=1024)
def _alignment(m: int, n: int) -> tuple[int | None, ...]:
    """Each reference node's partner (or None: deleted) in networkx's initial node assignment.

    The matrix is networkx's: free substitutions, deletions and insertions of cost 1 on their
    diagonals, ``m + n + 1`` elsewhere; scipy's tie-breaking decides the alignment.
    """
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    big = m + n + 1
    matrix = np.zeros((m + n, m + n))
    matrix[:m, n:] = big
    matrix[m:, :n] = big
    matrix[:m, n:][np.diag_indices(m)] = 1
    matrix[m:, :n][np.diag_indices(n)] = 1
    rows, cols = linear_sum_assignment(matrix)
    partner = dict(zip(rows.tolist(), cols.tolist(), strict=True))
    return tuple(partner[i] if partner[i] < n else None for i in range(m))


def _step(
    pending: tuple[Sequence[Edge], Sequence[Edge]], done: Sequence[Step], u: int | None, v: int | None
) -> tuple[int, tuple[Sequence[Edge], Sequence[Edge]]]:
    """Cost of placing u against v (None: delete or insert) and the edges still pending after.

    Placing two nodes is free (same tag), deleting or inserting one costs 1. networkx then
    settles the edges whose ends are now both placed with a small assignment of its own; at the
    very first step it settles none (unless one graph has no edges left to settle).
    """
    node_cost = 0 if u is not None and v is not None else 1
    ours, theirs = pending
    if not done and ours and theirs:
        return node_cost, pending
    first_placed = {p for p, _ in done if p is not None}
    second_placed = {q for _, q in done if q is not None}
    settled_ours = _settled(ours, u, first_placed)
    settled_theirs = _settled(theirs, v, second_placed)
    cost = node_cost + _edge_step_cost(settled_ours, settled_theirs, u, v, done)
    return cost, (
        [e for e in ours if e not in settled_ours],
        [e for e in theirs if e not in settled_theirs],
    )


def _settled(pending: Sequence[Edge], node: int | None, placed: set[int]) -> list[Edge]:
    """The pending edges a step at ``node`` settles: its self-loops, edges to placed nodes and
    self-loops left on placed nodes."""
    return [
        edge
        for edge in pending
        if (edge[0] == edge[1] and (edge[0] == node or edge[0] in placed))
        or (edge[0] == node and edge[1] in placed)
        or (edge[1] == node and edge[0] in placed)
    ]


def _edge_step_cost(
    ours: Sequence[Edge], theirs: Sequence[Edge], u: int | None, v: int | None, done: Sequence[Step]
) -> int:
    """The optimal cost of settling two edge lists: 0 or 1 per allowed substitution, else 1 each.

    networkx allows a substitution between "parallel" edges (both from, or both to, the current
    pair of nodes and one placed pair) and, a quirk, whenever either edge is a self-loop on a
    placed or current node.
    """
    if not ours or not theirs:
        return len(ours) + len(theirs)
    placed_pairs = [(p, q) for p, q in done if p is not None and q is not None]
    first_loops = {p for p, _ in done if p is not None} | {u}
    second_loops = {q for _, q in done if q is not None} | {v}
    gain = [[0] * len(theirs) for _ in ours]
    for i, (s1, t1, tag1) in enumerate(ours):
        loop1 = s1 == t1 and s1 in first_loops
        for j, (s2, t2, tag2) in enumerate(theirs):
            allowed = (
                loop1
                or (s2 == t2 and s2 in second_loops)
                or any((s1, t1, s2, t2) in ((p, u, q, v), (u, p, v, q)) for p, q in placed_pairs)
            )
            if allowed:
                gain[i][j] = 2 if tag1 == tag2 else 1
    return len(ours) + len(theirs) - _best_gain(gain)


def _best_gain(gain: list[list[int]]) -> int:
    """The largest total of a matching in a small gain matrix (exhaustive up to 4 rows)."""
    if len(gain) > 4:
        import numpy as np
        from scipy.optimize import linear_sum_assignment

        matrix = np.array(gain)
        rows, cols = linear_sum_assignment(matrix, maximize=True)
        return int(matrix[rows, cols].sum())

    def best(row: int, used: int) -> int:
        if row == len(gain):
            return 0
        result = best(row + 1, used)
        for col, value in enumerate(gain[row]):
            if value and not used >> col & 1:
                result = max(result, value + best(row + 1, used | 1 << col))
        return result

    return best(0, 0)


def _clamp(value: float) -> float:
    return max(0.0, min(1.0, float(value)))
