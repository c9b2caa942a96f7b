"""Issue 37, finding 9: two 2000-class diagrams took ``score-pair`` 149 s and 1.4 GB. A diagram
beyond ``MAX_CLASSES``/``MAX_ELEMENTS`` is refused in one line before any comparison; a pair at
the bound is scored (``benchmarks/bench_huge_pairs.py`` times and measures both)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.metrics import METRICS, score_benchmark
from dmbench.metrics.scoring import MAX_CLASSES


def diagram(classes: int, tag: str, attributes: int = 1, relationships: int | None = None) -> str:
    lines = ["@startuml"]
    for i in range(classes):
        lines += [f"class Concept{tag}{i} {{",
                  *(f"  field{tag}{i}x{k} : String" for k in range(attributes)), "}"]  # fmt: skip
    for i in range(classes - 1 if relationships is None else relationships):
        lines.append(f'Concept{tag}{i % classes} "1" -- "*" Concept{tag}{(i * 7 + 1) % classes}')
    return "\n".join([*lines, "@enduml"]) + "\n"


@pytest.mark.needs_nltk
def test_two_2000_class_diagrams_are_refused_in_one_line_at_once(tmp_path):
    reference, generated = tmp_path / "ref.puml", tmp_path / "gen.puml"
    reference.write_text(diagram(2000, "A"))
    generated.write_text(diagram(2000, "B"))
    result = CliRunner().invoke(main, ["score-pair", str(reference), str(generated)])
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert "the reference diagram has 2000 classes" in line
    assert f"at most {MAX_CLASSES} classes" in line and "Traceback" not in result.output


@pytest.mark.parametrize("metric", sorted(METRICS))
@pytest.mark.parametrize("what", ["classes", "attributes", "relationships"])
def test_every_metric_refuses_a_diagram_past_its_bound_as_data(metric, what):
    """The benchmark view (score-pairs, run scoring) records the refusal as the pair's error."""
    classes, elements = METRICS[metric].bound
    shape = {"classes": (classes + 1, 1, 0), "attributes": (10, elements // 10 + 1, 0),
             "relationships": (10, 1, elements + 1)}[what]  # fmt: skip
    small = diagram(3, "S")
    scored = score_benchmark(small, diagram(shape[0], "G", shape[1], shape[2]), metric)
    assert scored.error is not None and "the generated diagram has" in scored.error
    assert what in scored.error and (scored.class_score, scored.attribute_score) == (0.0, 0.0)
