"""``dmbench generate`` through click's CliRunner, into temporary packages."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import copy_package

from dmbench.candidates.rule_based import candidate as candidate_module
from dmbench.candidates.rule_based.spacy_model import MISSING_HINT
from dmbench.cli import main
from dmbench.package import validate_package
from dmbench.runs.store import list_runs
from dmbench.sources.records import RECORDS_PATH, records_from_sources, write_records


def _invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, ["generate", *args], input=stdin, catch_exceptions=False)


def _rule_based(package: Path, dataset: str, *more: str):
    """``generate --candidate rule_based --dataset DATASET --package PACKAGE [MORE...]``."""
    return _invoke(
        "--candidate", "rule_based", "--dataset", dataset, "--package", str(package), *more
    )


@pytest.fixture
def records_only(tmp_path: Path, upstream_dir: Path) -> Path:
    """A package folder holding only ``data/records.csv``: enough to generate into."""
    write_records(tmp_path / RECORDS_PATH, records_from_sources(upstream_dir))
    return tmp_path


def _generated_runs(package: Path):
    return [run for run in list_runs(package) if run.info.origin == "generated"]


class TestDatasetRuns:
    def test_writes_a_run_with_provenance(self, records_only):
        result = _rule_based(records_only, "ds2")
        assert result.exit_code == 0, result.output
        (run,) = _generated_runs(records_only)
        assert result.stdout == f"{run.info.run_id}: 8 records, 0 failed ({run.path})\n"
        assert run.info.run_id.startswith("rule_based__no-llm__ds2__run1__")
        assert run.info.provenance["spacy_model_version"] == "3.8.0"
        assert run.info.provenance["dmbench_version"]
        rows = run.outputs()
        assert [row.record_id for row in rows][:2] == ["ds2-LabTracker", "ds2-CelO"]
        assert not any(row.failed for row in rows)

    def test_rerun_resumes_and_more_runs_add_indices(self, records_only):
        _rule_based(records_only, "ds2")
        first = _generated_runs(records_only)[0].outputs_path.read_bytes()
        result = _rule_based(records_only, "ds2", "--runs", "2")
        assert result.exit_code == 0, result.output
        runs = _generated_runs(records_only)
        assert [r.info.run_index for r in runs] == [1, 2]
        assert runs[0].outputs_path.read_bytes() == first
        assert [r.generated for r in runs[0].outputs()] == [r.generated for r in runs[1].outputs()]

    def test_all_means_both_datasets(self, records_only):
        result = _rule_based(records_only, "all")
        assert result.exit_code == 0, result.output
        counts = Counter(run.info.dataset for run in _generated_runs(records_only))
        assert counts == {"ds1": 1, "ds2": 1}

    def test_a_built_package_stays_valid_and_lists_the_run(self, tmp_path):
        package = copy_package(tmp_path / "package")
        result = _rule_based(package, "ds2")
        assert result.exit_code == 0, result.output
        (run,) = _generated_runs(package)
        assert run.info.run_id in (package / "data/runs.csv").read_text("utf-8")
        report = validate_package(package)
        assert report.valid, report.render()

    def test_without_a_package_says_to_build(self, tmp_path):
        result = _rule_based(tmp_path, "ds1")
        assert result.exit_code == 1
        assert "not a dmbench data package (no data/records.csv)" in result.output
        assert "`dmbench build` makes one" in result.output
        assert list(tmp_path.iterdir()) == []


class TestOwnRecords:
    def test_prints_one_json_line_per_record(self, tmp_path):
        path = tmp_path / "mine.jsonl"
        lines = [{"id": "zoo", "text": "A zoo has many animals."}, {"id": "x", "text": "Hello."}]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
        result = _invoke("--candidate", "rule_based", "--records", str(path))
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        assert [sorted(row) for row in rows] == [["error", "failed", "generated", "id"]] * 2
        assert rows[0]["id"] == "zoo" and 'Animals "1..*" *-- "1" Zoo' in rows[0]["generated"]
        assert rows[1] == {
            "id": "x",
            "generated": "@startuml\n\n\n\n@enduml\n",
            "failed": False,
            "error": None,
        }

    def test_reads_stdin(self):
        result = _invoke(
            "--candidate", "rule_based", "--records", "-", stdin='{"id": "a", "text": "Hi."}\n'
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["id"] == "a"

    def test_a_bad_line_is_named(self, tmp_path):
        path = tmp_path / "bad.jsonl"
        path.write_text('{"id": "a", "text": "Hi."}\n{"id": 3}\n', "utf-8")
        result = _invoke("--candidate", "rule_based", "--records", str(path))
        assert result.exit_code == 1
        assert result.output == (
            f'Error: {path}, line 2: expected {{"id": "...", "text": "..."}}\n'
        )


class TestUsage:
    def test_needs_exactly_one_of_dataset_and_records(self, tmp_path):
        assert _invoke("--candidate", "rule_based").exit_code == 2
        path = tmp_path / "r.jsonl"
        path.write_text("", "utf-8")
        both = _invoke("--candidate", "rule_based", "--dataset", "ds1", "--records", str(path))
        assert both.exit_code == 2
        assert "exactly one of --dataset and --records" in both.output

    def test_missing_spacy_model_is_one_sentence_and_writes_nothing(
        self, records_only, monkeypatch
    ):
        monkeypatch.setattr(candidate_module, "load_model", lambda *args, **kwargs: None)
        result = _rule_based(records_only, "ds2")
        assert result.exit_code == 1
        assert result.output == f"Error: {MISSING_HINT}\n"
        assert not (records_only / "runs").exists()

    def test_has_help(self):
        result = CliRunner().invoke(main, ["generate", "--help"])
        assert result.exit_code == 0
        assert "--records" in result.output and "--runs" in result.output


def test_generated_rule_based_runs_reproduce_the_published_cells(tmp_path):
    """generate -> score -> tables on a built package: the rule_based cells of Tables 2 and 3."""
    package = copy_package(tmp_path / "package")
    assert _rule_based(package, "all").exit_code == 0
    run_ids = [run.info.run_id for run in _generated_runs(package)]
    runner = CliRunner()
    scored = runner.invoke(
        main, ["score", "--package", str(package), "--runs", ",".join(run_ids)]
    )
    assert scored.exit_code == 0, scored.output
    tables = runner.invoke(main, ["tables", "--format", "json", "--package", str(package)])
    assert tables.exit_code == 0, tables.output
    rows = [
        row
        for row in json.loads(tables.stdout)
        if row.get("candidate") == "rule_based" and row.get("origin") == "generated"
    ]
    cells = {
        row["dataset"]: [row[k]["median"] for k in ("class", "attribute", "association")]
        for row in rows
    }
    assert cells == {"ds1": [0.417, 0.447, 0.348], "ds2": [0.312, 0.353, 0.215]}
    assert all(row["scores"] == "recomputed" and row["fail_pct"] == 0.0 for row in rows)
    assert validate_package(package).valid
