"""metrik-3 and metrik-5 against upstream: every golden line, the spec's worked examples, networkx.

The expected values are ``../shared/golden/metrics-study.jsonl`` (the unmodified upstream code
on the 840 distinct pairs, per metric; its README says how it was run). The PlantUML strings are
found by sha256 in the mirrored upstream files (``sources.published``). The library scores
every pair once per metric (module fixture); the parity and command-line tests share that run.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from conftest import score_pairs_from_shell

from dmbench.metrics import (
    EMPTY_GENERATED_MODEL,
    explain,
    get_metric,
    metrik3,
    metrik5,
    score_benchmark_many,
)
from dmbench.metrics._normalise import normalise
from dmbench.plantuml import parse
from dmbench.sources.published import texts_by_sha256

STUDY_METRICS = ("metrik-3", "metrik-5")

#: metrik-3's three upstream timeouts (SHAS pairs; upstream stopped at 60 s of CPU). dmbench's
#: search finishes them; a plain skip-first backtracking search written from the spec gave the
#: same levels. Keyed by the generated diagram's sha256 prefix: scores, levels, search steps.
METRIK3_UPSTREAM_TIMEOUTS = {
    "54b66acf0fce9c79": ((0.5809881175734835, 0.23999999999999994, 0.5333333333333333), (12, 6, 3, 1), 57903),
    "59f86b575f46af7e": ((0.625, 0.2287581699346405, 0.45833333333333337), (13, 6), 15125),
    "e29c52a620320c6b": ((0.6352564102564102, 0.16896551724137926, 0.5116279069767442), (13, 5, 2), 31887),
}


def _diagram(*lines: str) -> str:
    return "@startuml\n" + "\n".join(lines) + "\n@enduml\n"


@pytest.fixture(scope="module")
def golden(golden_dir: Path, upstream_dir: Path) -> dict[str, list[dict]]:
    """The golden lines per metric, each with its reference and generated text."""
    texts = texts_by_sha256(upstream_dir)
    rows: dict[str, list[dict]] = {metric: [] for metric in STUDY_METRICS}
    with (golden_dir / "metrics-study.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["metric"] in rows:
                row["pair"] = (texts[row["ref_sha256"]], texts[row["gen_sha256"]])
                rows[row["metric"]].append(row)
    return rows


@pytest.fixture(scope="module")
def library(golden: dict[str, list[dict]]) -> dict[str, list]:
    return {
        metric: score_benchmark_many([row["pair"] for row in rows], metric, workers=1)
        for metric, rows in golden.items()
    }


def _kind(error: str | None) -> str | None:
    """Upstream's error as the kind dmbench must give: same text, or the benchmark's name."""
    if error is None or error == "timeout":
        return error
    if error.startswith("ValueError: No UML blocks found"):
        return EMPTY_GENERATED_MODEL
    if error.startswith("ViolationError: "):
        return error.splitlines()[2]  # "isValidModel(student_model) was False"
    return error.removeprefix("ValueError: ")


@pytest.mark.parametrize("metric", STUDY_METRICS)
def test_every_golden_line(metric, golden, library):
    """Scores bit-identical where upstream scored, the same error where it raised."""
    counts = {"ok": 0, "error": 0, "timeout": 0}
    mismatches = []
    for row, got in zip(golden[metric], library[metric], strict=True):
        expected = _kind(row["error"])
        if expected is None:
            counts["ok"] += 1
            same = got.error is None and (
                got.class_score,
                got.attribute_score,
                got.association_score,
            ) == (row["class_score"], row["attribute_score"], row["association_score"])
        elif expected == "timeout":
            counts["timeout"] += 1
            scores, _, _ = METRIK3_UPSTREAM_TIMEOUTS[row["gen_sha256"][:16]]
            same = got.error is None and (
                got.class_score,
                got.attribute_score,
                got.association_score,
            ) == scores
        else:
            counts["error"] += 1
            same = got.error is not None and got.error.startswith(expected)
            same = same and (got.class_score, got.attribute_score, got.association_score) == (
                0.0,
                0.0,
                0.0,
            )
        if not same:
            mismatches.append((row["ref_sha256"][:12], row["gen_sha256"][:12], got, row))
    assert mismatches == []
    assert counts == (
        {"ok": 756, "error": 81, "timeout": 3}
        if metric == "metrik-3"
        else {"ok": 759, "error": 81, "timeout": 0}
    )


def test_metrik3_upstream_timeouts_fit_the_budget_with_steps_to_spare(golden):
    """The three pairs upstream gave up on finish, at the recorded step counts (the largest of
    all 840 pairs is 57,903); one step fewer is ``budget_exceeded``, so the count is the whole
    search and the budget is what stops it."""
    budget = get_metric("metrik-3").settings["search_step_budget"]
    assert budget == metrik3.SEARCH_STEP_BUDGET == 1_000_000
    timeouts = [row for row in golden["metrik-3"] if row["error"] == "timeout"]
    assert len(timeouts) == 3
    for row in timeouts:
        _, levels, steps = METRIK3_UPSTREAM_TIMEOUTS[row["gen_sha256"][:16]]
        explanation = explain(*row["pair"], "metrik-3")
        assert (explanation.levels, explanation.search_steps) == (levels, steps)
        assert steps * 10 < budget
    smallest = min(timeouts, key=lambda row: METRIK3_UPSTREAM_TIMEOUTS[row["gen_sha256"][:16]][2])
    steps = METRIK3_UPSTREAM_TIMEOUTS[smallest["gen_sha256"][:16]][2]
    reference, generated = (parse(text, "compat") for text in smallest["pair"])
    with pytest.raises(metrik3.BudgetExceeded, match="^budget_exceeded: "):
        metrik3.compare(reference, generated, budget=steps - 1)
    assert metrik3.compare(reference, generated, budget=steps).search_steps == steps


class TestMetrik3Examples:
    """The worked examples of the spec (section 3.7), computed there with the upstream code."""

    def test_one_level(self):
        reference = _diagram(
            "class Person {", "name", "age", "}", "class Car {", "model", "}", "class Garage",
            'Person "1" -- "*" Car', "Garage *-- Car",
        )
        generated = _diagram(
            "class Human {", "name", "}", "class Car {", "model", "colour", "}", "class Garage",
            "Human -- Car", "Garage *-- Car", "Car --> Human",
        )
        got = explain(reference, generated, "metrik-3")
        assert got.levels == (2,)
        assert (got.sim_inter, got.sim_intra) == (1.0, 0.7999999999999999)
        assert (got.class_score, got.attribute_score, got.association_score) == (
            0.8333333333333333,
            0.5833333333333333,
            0.6000000000000001,
        )

    def test_no_relationship_case(self):
        reference = _diagram("class Person {", "name", "}", "class Car {", "model", "}", "Person -- Car")
        generated = _diagram("class person {", "Name", "model", "}", "class Car")
        got = explain(reference, generated, "metrik-3")
        assert got.levels == () and got.sim_inter is None
        assert (got.class_score, got.attribute_score, got.association_score) == (0.75, 1.0, 0.0)

    def test_levels_map_classes_independently(self):
        reference = _diagram("L1 -- H", "L2 -- H", "L3 -- H")
        generated = _diagram("H -- L1", "H -- L2", "H -- L3")
        got = explain(reference, generated, "metrik-3")
        assert got.levels == (1, 1, 1)
        assert (got.class_score, got.attribute_score, got.association_score) == (1.0, 1.0, 1.0)

    def test_two_empty_diagrams_score_half_an_association(self):
        empty = _diagram("class A")
        got = explain(empty, empty, "metrik-3")
        assert (got.class_score, got.attribute_score, got.association_score) == (1.0, 1.0, 0.5)

    def test_a_repeated_attribute_is_an_error(self):
        reference = _diagram("class A {", "x", "x", "}", "A -- B")
        with pytest.raises(ValueError, match="class 'A' has two attributes named 'x'"):
            explain(reference, _diagram("class A"), "metrik-3")

    def test_a_repeated_class_breaks_the_precondition(self):
        generated = _diagram("class A", "class A")
        with pytest.raises(ValueError, match=r"^isValidModel\(student_model\) was False"):
            explain(_diagram("class A"), generated, "metrik-3")

    def test_a_pathological_pair_stops_at_the_budget(self):
        """Twelve disjoint associations against a path of twelve: exponential for upstream."""
        reference = parse(_diagram(*(f"A{2 * i} -- A{2 * i + 1}" for i in range(12))), "compat")
        generated = parse(_diagram(*(f"B{i} -- B{i + 1}" for i in range(12))), "compat")
        with pytest.raises(metrik3.BudgetExceeded) as raised:
            metrik3.compare(reference, generated, budget=20_000)
        assert str(raised.value) == (
            "budget_exceeded: the common-subgraph search needs more than 20000 steps"
        )


class TestMetrik5Examples:
    """The worked examples of the spec (section 4.7)."""

    def test_stars_and_exact_inter_distance(self):
        reference = _diagram("class A {", "x", "y", "}", "class B {", "z", "}", "A -- B")
        generated = _diagram(
            "class A {", "x", "}", "class B {", "z", "w", "}", "class C", "A -- B", "B *-- C"
        )
        got = explain(reference, generated, "metrik-5")
        assert (got.class_score, got.attribute_score, got.association_score) == (0.8, 0.8, 0.6)

    def test_a_repeated_attribute_makes_a_multigraph_star(self):
        got = explain(_diagram("class A {", "x", "x", "}"), _diagram("class A {", "x", "y", "}"), "metrik-5")
        assert (got.class_score, got.attribute_score, got.association_score) == (0.4, 0.4, 1.0)

    def test_association_score_depends_on_declaration_order(self):
        """An isomorphic chain declared in reverse is aligned by position: C1 with C9, ..."""
        chain = [f"C{i} -- C{i + 1}" for i in range(1, 9)]
        declared = [f"class C{i}" for i in range(1, 10)]
        reference = _diagram(*declared, *chain)
        reversed_order = _diagram(*reversed(declared), *chain)
        got = explain(reference, reversed_order, "metrik-5")
        assert (got.class_score, got.attribute_score, got.association_score) == (
            1.0,
            1.0,
            0.05882352941176472,
        )
        assert explain(reference, reference, "metrik-5").association_score == 1.0
        assert explain(_diagram(*chain), _diagram(*chain), "metrik-5").association_score == 1.0


def _reversed(graph: metrik5.ClassGraph) -> metrik5.ClassGraph:
    """The same graph with nodes and edges inserted in the opposite order."""
    last = len(graph.nodes) - 1
    inserted = [(last - s, last - t, tag) for s, t, tag in reversed(graph.edges)]
    return metrik5.ClassGraph(
        nodes=tuple(reversed(graph.nodes)),
        edges=metrik5._multidigraph_edge_order(inserted),
        stars=tuple(reversed(graph.stars)),
    )


def _networkx_graph(graph: metrik5.ClassGraph) -> nx.MultiDiGraph:
    built = nx.MultiDiGraph()
    built.add_nodes_from((i, {"tag": "vc"}) for i in range(len(graph.nodes)))
    built.add_edges_from((s, t, {"tag": tag}) for s, t, tag in graph.edges)
    return built


def _networkx_inter_cost(first: metrik5.ClassGraph, second: metrik5.ClassGraph) -> float:
    """Upstream's call: exact GED up to size 15, else the first value networkx yields."""
    size = max(len(first.nodes) + len(first.edges), len(second.nodes) + len(second.edges))
    match = {"node_match": _same_tag, "edge_match": _same_tag}
    g1, g2 = _networkx_graph(first), _networkx_graph(second)
    if size <= metrik5.EXACT_GED_MAX_SIZE:
        return nx.graph_edit_distance(g1, g2, **match)
    return next(nx.optimize_graph_edit_distance(g1, g2, **match))


def _same_tag(first: dict, second: dict) -> bool:
    return first["tag"] == second["tag"]


def test_metrik5_inter_distance_equals_networkx_in_reversed_order(golden):
    """With both graphs built in reverse insertion order, dmbench's inter-graph cost is
    networkx 3.6.1's (the declared order is covered by the parity test), and the order changes
    the association score of many of the valid golden pairs, as upstream's README reports.

    networkx itself is asked for the 39 study pairs (for all valid pairs it takes minutes;
    that was checked once, see the closing note of issue 16); exact distances of graphs
    without self-loops are true edit distances, which no order changes, and are compared with
    the forward value.
    """
    assert nx.__version__ == "3.6.1"
    differing, changed = [], 0
    for row in golden["metrik-5"]:
        if row["error"] is not None:
            continue
        first, second = (
            metrik5.class_graph(normalise(parse(text, "compat"))) for text in row["pair"]
        )
        size = max(len(first.nodes) + len(first.edges), len(second.nodes) + len(second.edges))
        if size == 0:
            continue
        flipped = (_reversed(first), _reversed(second))
        loops = any(s == t for s, t, _ in first.edges + second.edges)
        study = any(source.startswith("dmm39:") for source in row["sources"])
        if size > metrik5.EXACT_GED_MAX_SIZE:
            same = not study or metrik5.first_path_cost(*flipped) == _networkx_inter_cost(*flipped)
        elif loops:
            same = not study or metrik5.exact_cost(*flipped) == _networkx_inter_cost(*flipped)
        else:
            same = metrik5.exact_cost(*flipped) == metrik5.exact_cost(first, second)
        if not same:
            differing.append(row["gen_sha256"][:12])
        changed += metrik5._inter(first, second) != metrik5._inter(*flipped)
    assert differing == []
    assert changed > 300


@pytest.mark.parametrize("metric", STUDY_METRICS)
def test_score_pairs_from_the_shell(metric, golden, library, tmp_path):
    """``dmbench score-pairs`` prints the library's view of every golden pair, and a pair that
    would search for minutes (metrik-3) ends with ``budget_exceeded`` instead of hanging."""
    pathological = (
        _diagram(*(f"A{2 * i} -- A{2 * i + 1}" for i in range(12))),
        _diagram(*(f"B{i} -- B{i + 1}" for i in range(12))),
    )
    pairs = [row["pair"] for row in golden[metric]] + [pathological]
    lines = score_pairs_from_shell(pairs, metric, tmp_path)
    assert lines[:-1] == [{"id": str(i), **s.to_dict()} for i, s in enumerate(library[metric])]
    last = lines[-1]
    if metric == "metrik-3":
        assert last["error"] == (
            "budget_exceeded: the common-subgraph search needs more than 1000000 steps"
        )
        assert (last["class_score"], last["attribute_score"], last["association_score"]) == (
            0.0,
            0.0,
            0.0,
        )
    else:
        assert last["error"] is None
