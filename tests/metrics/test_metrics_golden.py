"""Parity of metrik-4 with upstream on every golden pair, through the library and the CLI.

The expected values are ``../shared/golden/scores.jsonl`` (upstream domain-model-metrics 1.0.0
run on every pair; see ``../shared/golden/README.md`` for the command that produced it) and the
metric study's ``Quantitative-Analysis/Results/results_metrik4.json``. The PlantUML strings are
found by sha256 in the mirrored upstream files. The first test pays for WordNet and the memo;
the later ones reuse both.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import read_jsonl

from dmbench.cli import main
from dmbench.metrics import compare, score_benchmark_many
from dmbench.plantuml.model import Diagram
from dmbench.sources.published import texts_by_sha256

INTERMEDIATES = ("semantic", "propSim", "relSim", "raSim", "rdSim", "rgSim")


@pytest.fixture(scope="module")
def golden_rows(golden_dir: Path) -> list[dict]:
    return read_jsonl(golden_dir / "scores.jsonl")


@pytest.fixture(scope="module")
def parsed_models(golden_dir: Path) -> dict[str, dict]:
    return {row["sha256"]: row["strict"] for row in read_jsonl(golden_dir / "parsed.jsonl")}


@pytest.fixture(scope="module")
def texts(upstream_dir: Path) -> dict[str, str]:
    """Every PlantUML string of the runs, corpora and metric study, by sha256 of its UTF-8."""
    return texts_by_sha256(upstream_dir)


@pytest.fixture(scope="module")
def pairs(golden_rows: list[dict], texts: dict[str, str]) -> list[tuple[str, str]]:
    return [(texts[row["ref_sha256"]], texts[row["gen_sha256"]]) for row in golden_rows]


def test_compare_is_bit_identical_on_every_golden_pair(golden_rows, parsed_models):
    """Every intermediate and count of the 759 scored pairs equals upstream's float exactly."""
    mismatches = []
    scored = [row for row in golden_rows if row["status"] == "ok"]
    for row in scored:
        reference = Diagram.from_dict(parsed_models[row["ref_sha256"]]["model"])
        generated = Diagram.from_dict(parsed_models[row["gen_sha256"]]["model"])
        explanation = compare(reference, generated)
        got = {name: getattr(explanation, name) for name in INTERMEDIATES}
        got |= {
            "class_score": explanation.class_score,
            "attribute_score": explanation.attribute_score,
            "association_score": explanation.association_score,
            "counts_ref": explanation.counts_reference,
            "counts_gen": explanation.counts_generated,
        }
        expected = {**row["intermediates"], **row["metrik4"]}
        expected |= {"counts_ref": row["counts_ref"], "counts_gen": row["counts_gen"]}
        if got != expected:
            mismatches.append((row["ref_sha256"][:12], row["gen_sha256"][:12], got, expected))
    assert len(scored) == 759
    assert mismatches == []


def test_benchmark_view_matches_golden_on_every_pair(golden_rows, pairs):
    """Status, error text and scores of all 840 pairs, from the PlantUML strings (compat)."""
    got = [score.to_dict() for score in score_benchmark_many(pairs, workers=1)]
    assert got == [row["benchmark_view"] for row in golden_rows]


def test_errors_follow_upstream(golden_rows, pairs):
    """The 81 failed pairs: 53 empty generations (never parsed), 28 invalid generated models."""
    errors = [row["benchmark_view"]["error"] for row in golden_rows]
    assert errors.count("empty_generated_model") == 53
    assert errors.count("Invalid generated model") == 28


def test_study_pairs_match_published_results(upstream_dir):
    """The metric study's 39 published results, recomputed from their own strings, within 1e-9."""
    results = json.loads(
        (
            upstream_dir
            / "domainModel-Metrics-Comparison/Quantitative-Analysis/Results/results_metrik4.json"
        ).read_text(encoding="utf-8")
    )["comparisons"]
    assert len(results) == 39
    study = [(c["reference_plantuml"], c["generated_plantuml"]) for c in results.values()]
    for (key, comparison), score in zip(
        results.items(), score_benchmark_many(study, workers=1), strict=True
    ):
        published = comparison["metric_results"]
        assert score.error is None, key
        for name in ("class_score", "attribute_score", "association_score"):
            assert getattr(score, name) == pytest.approx(published[name], abs=1e-9), (key, name)


def _batch(pairs: list[tuple[str, str]], path: Path) -> Path:
    lines = (
        json.dumps({"id": str(i), "reference": ref, "generated": gen}) + "\n"
        for i, (ref, gen) in enumerate(pairs)
    )
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _views(output: str) -> list[dict]:
    lines = [json.loads(line) for line in output.splitlines()]
    assert [line["id"] for line in lines] == [str(i) for i in range(len(lines))]
    return [{k: v for k, v in line.items() if k != "id"} for line in lines]


def test_cli_score_pairs_prints_the_golden_view_of_every_pair(golden_rows, pairs, tmp_path):
    """``dmbench score-pairs`` over the 840 golden pairs prints the golden benchmark view, which
    the library gives too (``test_benchmark_view_matches_golden_...``). In this process, where
    WordNet and the memo are warm; the next test runs the command from the shell."""
    batch = _batch(pairs, tmp_path / "pairs.jsonl")
    result = CliRunner().invoke(main, ["score-pairs", "--jsonl", str(batch)])
    assert result.exit_code == 0, result.output
    assert _views(result.stdout) == [row["benchmark_view"] for row in golden_rows]


def test_cli_score_pairs_from_the_shell(golden_rows, pairs, tmp_path):
    """The installed ``dmbench`` command, in a process of its own, on one pair of each kind of
    result (scored, empty generation, each metric error text) and a few more."""
    kinds: dict[object, int] = {}
    for index, row in enumerate(golden_rows):
        kinds.setdefault(row["benchmark_view"]["error"], index)
    chosen = sorted({*kinds.values(), *range(0, len(pairs), 120)})
    batch = _batch([pairs[i] for i in chosen], tmp_path / "pairs.jsonl")
    dmbench = Path(sys.executable).with_name("dmbench")
    result = subprocess.run(
        [str(dmbench), "score-pairs", "--jsonl", str(batch)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert _views(result.stdout) == [golden_rows[i]["benchmark_view"] for i in chosen]
