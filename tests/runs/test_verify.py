"""``dmbench verify``: the acceptance numbers, the one explained exception, and real failures."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import built_package, copy_package, full_verification

from dmbench.api import Package
from dmbench.cli import main
from dmbench.errors import PackageError
from dmbench.runs.scores import read_scores, write_scores
from dmbench.runs.store import list_runs
from dmbench.runs.verify import VerifyReport, summarise, verify

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

TSS_RUN = "chen__kimi-k2.6_cloud__ds2__run3"


@pytest.fixture(scope="module")
def report() -> VerifyReport:
    return full_verification()


class TestAcceptance:
    def test_everything_holds_with_one_explained_exception(self, report: VerifyReport) -> None:
        """verify passes, and the only disagreement is the TSS near-tie, explained."""
        assert report.ok
        assert report.explained_records == [(TSS_RUN, "ds2-TSS")]
        assert "greedy" in report.to_dict()["explained_exceptions"][0]["reason"]

    def test_all_published_values_but_the_two_tss_values_reproduce(
        self, report: VerifyReport
    ) -> None:
        """3337 of the 3339 published values of 1113 records in 42 runs agree within 1e-9."""
        assert (len(report.runs), report.records) == (42, 1113)
        assert (report.values_checked, report.values_equal) == (3339, 3337)
        (tss,) = [run for run in report.runs if run.run_id == TSS_RUN]
        assert sorted(m.field for m in tss.mismatches) == ["attribute_score", "class_score"]
        assert all(m.explained_by for m in tss.mismatches)

    def test_every_upstream_summary_is_rederived(self, report: VerifyReport) -> None:
        """Mean, std, median, mad, n, buckets and failed of every run agree with upstream."""
        assert all(run.summary_equal == run.summary_checked == 21 for run in report.runs)

    def test_rendered_verdict(self, report: VerifyReport) -> None:
        """The printed report ends in the verdict and names the exception with its reason."""
        text = report.render()
        assert text.endswith("verdict: OK (1 explained exception)")
        assert "3337 of 3339 published score values (1113 records, 42 runs)" in text
        assert (
            f"why {TSS_RUN} ds2-TSS (upstream "
            "zenodo_zero_shot_kimi-k2.6_cloud_2026-07-02T13-34-44Z.json): near-tie" in text
        )


class TestCommand:
    def test_exit_code_and_json(self, report: VerifyReport, monkeypatch) -> None:
        """The command prints the library's report and exits 0 when it holds."""
        monkeypatch.setattr(Package, "verify", lambda *a, **k: report)
        result = CliRunner().invoke(main, ["verify", "--json", "--package", str(built_package())])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == report.to_dict()

    def test_a_changed_score_fails(self, tmp_path: Path) -> None:
        """A published value off by 1e-6 is a mismatch and the command exits 1."""
        package = copy_package(tmp_path / "package")
        run = next(
            r for r in list_runs(package) if r.info.run_id == "rule_based__no-llm__ds2__run1"
        )
        rows = read_scores(run.path)
        rows[0] = replace(rows[0], class_score=rows[0].class_score + 1e-6)
        write_scores(run.path, rows)
        result = CliRunner().invoke(main, ["verify", "--package", str(package)])
        assert result.exit_code == 1
        assert "MISMATCH: rule_based__no-llm__ds2__run1" in result.output
        assert "verdict: FAILED" in result.output


def test_the_exception_excuses_only_what_it_explains(tmp_path: Path) -> None:
    """A wrong TSS association score is not covered by the class/attribute near-tie exception."""
    package = copy_package(tmp_path / "package")
    run = next(r for r in list_runs(package) if r.info.run_id == TSS_RUN)
    rows = [
        replace(r, association_score=r.association_score + 0.01) if r.record_id == "ds2-TSS" else r
        for r in read_scores(run.path)
    ]
    write_scores(run.path, rows)
    checked = verify(package, run_ids=[TSS_RUN])
    assert not checked.ok
    records = [
        (m.record_id, m.field) for m in checked.runs[0].unexplained if m.record_id != "(summary)"
    ]
    assert records == [("ds2-TSS", "association_score")]


def test_nothing_to_verify_is_an_error(tmp_path: Path) -> None:
    """An unbuilt package is a one-sentence error, not an empty success or failure."""
    with pytest.raises(PackageError, match="run `dmbench build` first"):
        verify(tmp_path)


class TestSummarise:
    def test_population_std_mean_absolute_deviation_and_buckets(self) -> None:
        """Spec F.3: population std, mad from the mean, left-closed buckets, 1.0 in the last."""
        summary = summarise([0.0, 0.1, 0.5, 1.0], errors=1)
        assert summary["mean"] == pytest.approx(0.4)
        assert summary["std"] == pytest.approx(((0.16 + 0.09 + 0.01 + 0.36) / 4) ** 0.5)
        assert summary["mad"] == pytest.approx((0.4 + 0.3 + 0.1 + 0.6) / 4)
        assert summary["median"] == pytest.approx(0.3)
        assert summary["buckets"] == [1, 1, 0, 0, 0, 1, 0, 0, 0, 1]
        assert (summary["n"], summary["failed"]) == (4, 1)

    def test_one_value_has_zero_std(self) -> None:
        """A one-record run has std 0.0, as upstream writes it."""
        assert summarise([0.7], errors=0)["std"] == 0.0


def test_built_package_is_untouched_by_verify(report: VerifyReport) -> None:
    """verify stores nothing: the shared package has no recomputed rows afterwards."""
    for run in list_runs(built_package()):
        assert {r.origin for r in read_scores(run.path)} == {"published"}
