"""A rebuild never drops recomputed scores without saying so: those of published runs whose
outputs are unchanged are kept; those whose outputs changed are named with the command that
computes them again."""

from __future__ import annotations

from click.testing import CliRunner
from results_support import UPSTREAM, copy_package

from dmbench import Package
from dmbench.cli import main
from dmbench.flows.changes import score_runs
from dmbench.package import build, validate_package
from dmbench.runs.store import list_runs

RUN = "rule_based__no-llm__ds2__run1"


def _recomputed(package, run_id):
    (run,) = [r for r in list_runs(package) if r.info.run_id == run_id]
    return [row for row in run.scores() if row.origin == "recomputed"]


def test_a_rebuild_keeps_the_recomputed_scores_of_unchanged_runs(tmp_path):
    package = copy_package(tmp_path / "package")
    score_runs(package, run_ids=[RUN])
    before = _recomputed(package, RUN)
    assert len(before) == 8
    result = CliRunner().invoke(main, ["build", "--sources", str(UPSTREAM),
                                       "--package", str(package)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "kept the recomputed scores of 1 published runs" in result.output
    assert _recomputed(package, RUN) == before
    assert validate_package(package).valid


def test_a_rebuild_names_the_runs_whose_recomputed_scores_it_dropped(tmp_path):
    package = copy_package(tmp_path / "package")
    score_runs(package, run_ids=[RUN])
    outputs = package / "runs" / RUN / "outputs.jsonl"
    outputs.write_bytes(outputs.read_bytes().replace(b"class ", b"class Edited", 1))
    said = CliRunner().invoke(main, ["build", "--sources", str(UPSTREAM),
                                     "--package", str(package)])  # fmt: skip
    assert said.exit_code == 0, said.output
    assert "the recomputed scores of 1 published runs were dropped" in said.output
    assert f"`dmbench score --runs {RUN}` (per metric)" in said.output
    assert _recomputed(package, RUN) == []
    assert build(package, UPSTREAM).scores_dropped == ()  # nothing recomputed is left to drop


def test_tables_refreshes_every_metric_that_has_scores(tmp_path):
    """A new run scored with both metrics appears in results/ and results/metrik-4-standard/;
    without standard scores that folder is not written (it would be empty)."""
    package = copy_package(tmp_path / "package")
    script = tmp_path / "one.sh"
    script.write_text("#!/bin/sh\ncat >/dev/null\nprintf '@startuml\\nclass One\\n@enduml\\n'\n")
    (run,) = Package(package).generate(command=f"sh {script}", name="one", dataset="ds2")
    out = tmp_path / "results"
    score_runs(package, run_ids=[run.info.run_id])
    first = CliRunner().invoke(main, ["tables", "--out", str(out), "--package", str(package)])
    assert first.exit_code == 0, first.output
    assert "one" in _candidates(out / "table3.csv") and not (out / "metrik-4-standard").exists()
    score_runs(package, "metrik-4-standard", run_ids=[run.info.run_id])
    second = CliRunner().invoke(main, ["tables", "--out", str(out), "--package", str(package)])
    assert second.exit_code == 0 and "wrote 18 files" in second.output
    assert _candidates(out / "metrik-4-standard" / "table3.csv") == {"one"}


def _candidates(table_csv) -> set[str]:
    import csv

    with open(table_csv, encoding="utf-8") as handle:
        return {row["candidate"] for row in csv.DictReader(handle)}
