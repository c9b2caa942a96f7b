"""Tables 1-3 rebuilt from the package: the paper's cells, the score-source rule, the formats.

The regression files under ``tests/tables/test_tables/`` come from
``.venv/bin/pytest tests/tables/test_tables.py --force-regen`` (then review the diff).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import built_package, copy_package

from dmbench.cli import main
from dmbench.errors import PackageError, UnknownNameError
from dmbench.package import refresh
from dmbench.runs.scores import ScoreRow, write_scores
from dmbench.runs.store import OutputRow, RunInfo, list_runs, open_run
from dmbench.tables import results_tables
from dmbench.tables.corpus import corpus_table
from dmbench.tables.render import build_tables, write_tables
from dmbench.tables.results import RunSummary, aggregate, select_scores, series_of

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

PAPER_RULE_BASED = {
    "ds1": {"class": 0.417, "attribute": 0.447, "association": 0.348},
    "ds2": {"class": 0.312, "attribute": 0.353, "association": 0.215},
}


@pytest.fixture(scope="module")
def package() -> Path:
    return built_package()


@pytest.fixture(scope="module")
def tables(package: Path):
    return build_tables(package)


class TestPaperCells:
    @pytest.mark.parametrize("dataset", ["ds1", "ds2"])
    def test_rule_based_cells_are_the_papers(self, tables, dataset: str) -> None:
        """The published rule_based cells come out exactly as the paper prints them."""
        (row,) = [r for r in tables.results if r.dataset == dataset and r.candidate == "rule_based"]
        record = row.to_record()
        assert {e: record[e]["median"] for e in PAPER_RULE_BASED[dataset]} == PAPER_RULE_BASED[
            dataset
        ]
        assert row.runs == 3 and row.canonical and row.scores_from == "published"

    def test_canonical_rows_are_the_five_paper_series_per_dataset(self, tables) -> None:
        """Each paper table has rule_based and chen/calamo with both LLMs, 3 runs each."""
        for dataset in ("ds1", "ds2"):
            canonical = [r for r in tables.results if r.dataset == dataset and r.canonical]
            assert [(r.candidate, r.model) for r in canonical] == [
                ("rule_based", None),
                ("chen", "glm-5.1:cloud"),
                ("chen", "kimi-k2.6:cloud"),
                ("calamo", "glm-5.1:cloud"),
                ("calamo", "kimi-k2.6:cloud"),
            ]
            assert all(r.runs == 3 for r in canonical)


class TestRegression:
    def test_table1(self, tables, data_regression) -> None:
        """Table 1 under both readings, every count."""
        data_regression.check({"rows": [r.to_record() for r in tables.corpus]})

    def test_tables_2_and_3(self, tables, data_regression) -> None:
        """Tables 2 and 3 from the published scores, every row."""
        data_regression.check({"rows": [r.to_record() for r in tables.results]})

    @pytest.mark.parametrize("name", ["table1", "table2", "table3"])
    def test_markdown(self, tables, tmp_path: Path, file_regression, name: str) -> None:
        """The Markdown files a reader opens."""
        write_tables(tables, tmp_path)
        file_regression.check((tmp_path / f"{name}.md").read_text("utf-8"), extension=".md")


class TestFormats:
    def test_json_prints_the_library_records(self, package: Path, tables) -> None:
        """``--format json`` prints exactly ``TableSet.records()`` and writes no file."""
        result = CliRunner().invoke(main, ["tables", "--format", "json", "--package", str(package)])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == tables.records()

    def test_json_shape_of_tables_2_and_3(self, tables) -> None:
        """One object per (dataset, candidate, model) with median/std/interval per element."""
        records = [r for r in tables.records() if r["table"] in ("table2", "table3")]
        keys = {(r["dataset"], r["candidate"], r["model"]) for r in records}
        assert len(keys) == len(records) == 14
        for record in records:
            for element in ("class", "attribute", "association"):
                assert set(record[element]) == {"median", "std", "ci_low", "ci_high"}
            assert isinstance(record["fail_pct"], float)

    def test_csv_and_markdown_files(self, package: Path, tmp_path: Path) -> None:
        """``dmbench tables`` writes table1-3 as CSV and Markdown and says how long it took."""
        out = tmp_path / "results"
        result = CliRunner().invoke(main, ["tables", "--out", str(out), "--package", str(package)])
        assert result.exit_code == 0, result.output
        assert sorted(p.name for p in out.iterdir()) == [
            "comparisons.csv",
            "comparisons.md",
            "statistics.json",
            *(f"table{i}.{ext}" for i in (1, 2, 3) for ext in ("csv", "md")),
        ]
        assert result.output.startswith(f"wrote 9 files to {out} (") and " s)" in result.output
        header = (out / "table2.csv").read_text("utf-8").splitlines()[0]
        assert "class_median,class_std,class_ci_low,class_ci_high" in header
        assert "fail_pct" in header


class TestScoreSource:
    def test_recomputed_without_scoring_is_an_error(self, package: Path) -> None:
        """Recomputed scores before ``dmbench score`` are refused with the fix, not faked."""
        with pytest.raises(PackageError, match="run `dmbench score --metric metrik-4` first"):
            results_tables(package, source="recomputed")

    def test_unknown_source_is_an_error(self, package: Path) -> None:
        """A misspelt score source is refused."""
        run = list_runs(package)[0]
        with pytest.raises(UnknownNameError, match="unknown score source"):
            select_scores(run, "metrik-4", "newest")

    def test_generated_runs_get_their_own_rows(self, tmp_path: Path) -> None:
        """A run dmbench generated gets its own non-canonical row from its recomputed scores."""
        package = copy_package(tmp_path / "package")
        for index, means in ((1, 0.5), (2, 0.7)):
            info = RunInfo(
                run_id=f"chen__glm-5.1_cloud__ds2__run{index}__0123abcd",
                candidate="chen",
                model="glm-5.1:cloud",
                dataset="ds2",
                run_index=index,
                origin="generated",
                canonical=False,
                settings={"model": "glm-5.1:cloud"},
            )
            run = open_run(package, info)
            rows = []
            for number, record_id in enumerate(("ds2-TSS", "ds2-HBMS")):
                run.append(OutputRow(record_id, "@startuml\n@enduml", number == 1, None, 1.0))
                rows.append(
                    ScoreRow(
                        info.run_id, record_id, "metrik-4", "recomputed", means, means, means, None
                    )
                )
            write_scores(run.path, rows)
        unscored = RunInfo(
            run_id="calamo__glm-5.1_cloud__ds2__run1__89abcdef",
            candidate="calamo",
            model="glm-5.1:cloud",
            dataset="ds2",
            run_index=1,
            origin="generated",
            canonical=False,
            settings={"model": "glm-5.1:cloud"},
        )
        open_run(package, unscored).append(OutputRow("ds2-TSS", "", True, "x", 1.0))
        refresh(package)
        assert build_tables(package).unscored == (unscored.run_id,)
        result = CliRunner().invoke(main, ["tables", "--format", "json", "--package", str(package)])
        assert "1 run(s) without published metrik-4 scores left out" in result.stderr
        (row,) = [r for r in results_tables(package) if r.origin == "generated"]
        assert (row.series, row.runs, row.canonical, row.scores_from) == (
            "chen__glm-5.1_cloud__0123abcd",
            2,
            False,
            "recomputed",
        )
        assert row.median["class"] == pytest.approx(0.6)
        assert row.fail_pct == 50.0

    def test_incomplete_scores_are_refused(self, tmp_path: Path) -> None:
        """A run whose scores miss some outputs is reported with the command that fixes it."""
        package = copy_package(tmp_path / "package")
        run = next(
            r for r in list_runs(package) if r.info.run_id == "rule_based__no-llm__ds2__run1"
        )
        rows = (run.path / "scores.jsonl").read_text("utf-8").splitlines(keepends=True)
        (run.path / "scores.jsonl").write_text("".join(rows[:-1]), "utf-8")
        with pytest.raises(
            PackageError, match="dmbench score --runs rule_based__no-llm__ds2__run1"
        ):
            results_tables(package)


class TestAggregation:
    def _summary(self, index: int, mean: float, failed: int) -> RunSummary:
        return RunSummary(
            run_id=f"calamo__kimi-k2.6_cloud__ds1__run{index}",
            series="calamo__kimi-k2.6_cloud",
            dataset="ds1",
            candidate="calamo",
            model="kimi-k2.6:cloud",
            origin="published",
            canonical=True,
            run_index=index,
            scores_from="published",
            n_records=4,
            means={"class": mean, "attribute": mean, "association": mean},
            failed=failed,
            rejected=0,
            record_scores={f"ds1-r{i}": (mean, mean, mean) for i in range(4)},
        )

    def test_median_of_run_means_and_sample_std(self) -> None:
        """Median over runs of the run means, sample std (ddof=1), median fail share."""
        (row,) = aggregate(
            [self._summary(1, 0.2, 0), self._summary(2, 0.4, 1), self._summary(3, 0.9, 4)],
            "metrik-4",
        )
        assert row.median["class"] == 0.4
        # deviations from the mean 0.5: -0.3, -0.1, 0.4; squares sum to 0.26, over n - 1 = 2
        assert row.std["class"] == pytest.approx(0.13**0.5)
        assert row.fail_pct == 25.0

    def test_one_run_has_no_std(self) -> None:
        """With a single run the sample std is undefined and printed as null."""
        (row,) = aggregate([self._summary(1, 0.2, 0)], "metrik-4")
        assert row.std["class"] is None and row.to_record()["class"]["std"] is None

    def test_series_drops_dataset_and_run_index(self) -> None:
        """Runs that differ only in dataset and index share a series; a settings hash stays."""
        assert series_of("chen__glm-5.1_cloud__ds1__run2") == "chen__glm-5.1_cloud"
        assert (
            series_of("chen__glm-5.1_cloud__ds2__run1__0123abcd") == "chen__glm-5.1_cloud__0123abcd"
        )


def test_table1_readings_differ_only_where_compat_drops_lines(package: Path) -> None:
    """The standard reading finds at least as much as compat in every reference count."""
    rows = {(r.reading, r.dataset): r.counts for r in corpus_table(package)}
    for (reading, dataset), counts in rows.items():
        if reading == "standard":
            compat = rows[("compat", dataset)]
            assert all(counts[k] >= compat[k] for k in counts)
