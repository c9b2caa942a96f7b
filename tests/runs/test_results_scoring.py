"""``dmbench score``: the benchmark's scoring rules on real outputs, and how rows are stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import copy_package

from dmbench.cli import main
from dmbench.errors import UnknownNameError
from dmbench.flows.changes import score_runs
from dmbench.package import validate_package
from dmbench.runs.scores import read_scores
from dmbench.runs.store import list_runs
from dmbench.tables import results_tables

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

RULE_BASED_DS2 = [f"rule_based__no-llm__ds2__run{i}" for i in (1, 2, 3)]
CALAMO_KIMI_DS1 = "calamo__kimi-k2.6_cloud__ds1__run1"
CHEN_KIMI_DS1 = "chen__kimi-k2.6_cloud__ds1__run1"


@pytest.fixture(scope="module")
def scored(tmp_path_factory) -> Path:
    """A package copy with rule_based DS-2 and one calamo and one chen run re-scored."""
    package = copy_package(tmp_path_factory.mktemp("scored") / "package")
    score_runs(package, run_ids=[*RULE_BASED_DS2, CALAMO_KIMI_DS1, CHEN_KIMI_DS1])
    return package


def _rows(package: Path, run_id: str) -> dict[str, dict]:
    run = next(r for r in list_runs(package) if r.info.run_id == run_id)
    outputs = {o.record_id: o for o in run.outputs()}
    table: dict[str, dict] = {}
    for row in read_scores(run.path):
        table.setdefault(row.record_id, {"output": outputs[row.record_id]})[row.origin] = row
    return table


class TestRules:
    def test_empty_generation_scores_zero_with_the_upstream_reason(self, scored: Path) -> None:
        """An empty generation is 0/0/0 with ``empty_generated_model``; the metric is not asked."""
        empty = [
            r for r in _rows(scored, CHEN_KIMI_DS1).values() if not r["output"].generated.strip()
        ]
        assert empty
        for record in empty:
            row = record["recomputed"]
            assert (row.class_score, row.attribute_score, row.association_score) == (0.0, 0.0, 0.0)
            assert row.error == "empty_generated_model"

    def test_failed_record_with_a_diagram_is_scored_normally(self, scored: Path) -> None:
        """The failed flag is not looked at: a repaired diagram gets its real scores."""
        failed = [
            r
            for r in _rows(scored, CHEN_KIMI_DS1).values()
            if r["output"].failed and r["output"].generated.strip()
        ]
        assert failed
        for record in failed:
            assert record["recomputed"].error is None
            assert record["recomputed"].class_score > 0
            assert record["recomputed"].class_score == pytest.approx(
                record["published"].class_score, abs=1e-9
            )

    def test_metric_rejection_scores_zero_with_the_message(self, scored: Path) -> None:
        """A diagram metrik-4 rejects is 0/0/0 with the metric's message, failed or not."""
        rejected = [
            r
            for r in _rows(scored, CALAMO_KIMI_DS1).values()
            if r["published"].error == "Invalid generated model"
        ]
        assert any(not r["output"].failed for r in rejected)
        for record in rejected:
            row = record["recomputed"]
            assert (row.class_score, row.attribute_score, row.association_score, row.error) == (
                0.0,
                0.0,
                0.0,
                "Invalid generated model",
            )


class TestStorage:
    def test_recomputed_rows_sit_beside_the_published_ones(self, scored: Path) -> None:
        """Each output keeps its published row and gains exactly one recomputed row."""
        for record in _rows(scored, RULE_BASED_DS2[0]).values():
            assert {"published", "recomputed"} <= set(record)

    def test_unscored_runs_keep_only_published_rows(self, scored: Path) -> None:
        """Runs not named are not touched."""
        untouched = _rows(scored, "chen__glm-5.1_cloud__ds2__run1")
        assert all("recomputed" not in r for r in untouched.values())

    def test_rescoring_replaces_instead_of_appending(self, scored: Path, tmp_path: Path) -> None:
        """Scoring a run twice leaves one recomputed row per output."""
        score_runs(scored, run_ids=[RULE_BASED_DS2[0]])
        run = next(r for r in list_runs(scored) if r.info.run_id == RULE_BASED_DS2[0])
        rows = read_scores(run.path)
        assert len(rows) == 2 * len(run.outputs())

    def test_package_stays_valid(self, scored: Path) -> None:
        """The refreshed tables and descriptor validate."""
        report = validate_package(scored)
        assert report.valid, report.render()

    def test_recomputed_tables_equal_published_for_rule_based(self, scored: Path) -> None:
        """Tables from recomputed scores give the paper's rule_based DS-2 cells too."""
        (row,) = [
            r
            for r in results_tables(scored, source="recomputed")
            if r.series == "rule_based__no-llm"
        ]
        assert row.scores_from == "recomputed"
        cell = row.to_record()["class"]
        assert (cell["median"], cell["std"]) == (0.312, 0.0)


class TestCommand:
    def test_score_named_runs(self, tmp_path: Path) -> None:
        """``--runs`` takes repeated or comma-separated ids; the three runs differ in line order."""
        package = copy_package(tmp_path / "package")
        result = CliRunner().invoke(
            main,
            [
                "score",
                "--runs",
                f"{RULE_BASED_DS2[0]},{RULE_BASED_DS2[1]}",
                "--runs",
                RULE_BASED_DS2[2],
                "--workers",
                "1",
                "--package",
                str(package),
            ],
        )
        assert result.exit_code == 0, result.output
        assert result.output.startswith(
            "scored 24 outputs of 3 runs with metrik-4 (12 distinct pairs"
        )
        assert result.output.rstrip().endswith(" s)")

    def test_unknown_run_is_one_sentence(self, tmp_path: Path) -> None:
        """A misspelt run id is an error naming it, never a silent no-op."""
        package = copy_package(tmp_path / "package")
        result = CliRunner().invoke(
            main, ["score", "--runs", "nope__x__ds1__run1", "--package", str(package)]
        )
        assert result.exit_code == 1
        assert "unknown run id(s): nope__x__ds1__run1" in result.output

    def test_unknown_metric_is_refused(self) -> None:
        """Only registered metrics can be asked for."""
        result = CliRunner().invoke(main, ["score", "--metric", "metrik-9"])
        assert result.exit_code == 2

    def test_library_rejects_unknown_runs(self, tmp_path: Path) -> None:
        """The library raises the same error the command prints."""
        package = copy_package(tmp_path / "package")
        with pytest.raises(UnknownNameError, match="unknown run id"):
            score_runs(package, run_ids=["nope"])
