"""The main job scores each distinct (reference, generated, metric) once: verification and the
score stage share the rows instead of computing them twice."""

from __future__ import annotations

import pytest
from results_support import copy_package

from dmbench.errors import PackageError
from dmbench.flows.changes import score_metrics, score_runs
from dmbench.metrics import PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.package import load_records
from dmbench.runs import rescoring as scoring
from dmbench.runs.rescoring import rescore, select_runs
from dmbench.runs.scores import read_scores
from dmbench.runs.verify import verify

RULE_BASED_DS2 = [f"rule_based__no-llm__ds2__run{i}" for i in (1, 2, 3)]


@pytest.fixture
def package_and_rows(tmp_path):
    package = copy_package(tmp_path / "package")
    runs = select_runs(package, RULE_BASED_DS2)
    return package, rescore(load_records(package), runs, PUBLISHED_METRIC)


def _no_scoring(*args, **kwargs):
    raise AssertionError("scored a pair a second time")


def test_verify_and_score_reuse_the_rows_they_are_given(package_and_rows, monkeypatch):
    package, rescored = package_and_rows
    assert rescored.distinct_pairs < 24  # the three runs share most of their outputs
    monkeypatch.setattr(scoring, "score_benchmark_many", _no_scoring)
    report = verify(package, RULE_BASED_DS2, rescored=rescored)
    assert report.ok and report.values_checked == 3 * 8 * 3
    result = score_runs(package, PUBLISHED_METRIC, RULE_BASED_DS2, rescored=rescored)
    assert result.records == 24 and result.distinct_pairs == rescored.distinct_pairs
    for run in select_runs(package, RULE_BASED_DS2):
        stored = [r for r in read_scores(run.path) if r.origin == "recomputed"]
        assert tuple(stored) == rescored.rows[run.info.run_id]


def test_metrics_scored_together_are_stored_as_scored_one_by_one(package_and_rows, tmp_path):
    package, rescored = package_and_rows
    metrics = (PUBLISHED_METRIC, STANDARD_METRIC)
    apart = copy_package(tmp_path / "apart")
    for metric in metrics:
        score_runs(apart, metric, RULE_BASED_DS2)
    results = score_metrics(package, metrics, RULE_BASED_DS2, rescored={PUBLISHED_METRIC: rescored})
    assert [(r.metric, r.records) for r in results] == [(m, 24) for m in metrics]
    for run_id in RULE_BASED_DS2:
        together = (package / "runs" / run_id / "scores.jsonl").read_bytes()
        assert together == (apart / "runs" / run_id / "scores.jsonl").read_bytes()
        assert together.count(b'"origin": "recomputed"') == 2 * 8


def test_rows_of_another_metric_are_refused(package_and_rows):
    package, rescored = package_and_rows
    with pytest.raises(ValueError, match="not of this metric"):
        score_runs(package, STANDARD_METRIC, RULE_BASED_DS2, rescored=rescored)


class TestScoringMemo:
    """Each distinct (metric, reference, generated) is computed once per process."""

    @staticmethod
    def _counting(result):
        calls = []

        def explain(reference, generated):
            calls.append((reference, generated))
            if isinstance(result, Exception):
                raise result
            return result

        return explain, calls

    def test_a_pair_is_computed_once_and_its_error_remembered(self):
        from dmbench.metrics.scoring import Metric, Scores

        explain, calls = self._counting(Scores(0.5, 0.25, 1.0))
        metric = Metric("memo-test-ok", "compat", "", explain)
        first = metric.explained("A", "B")
        assert metric.explained("A", "B") is first
        assert metric.compute("A", "B") == Scores(0.5, 0.25, 1.0)
        assert metric.explained("A", "C") is first and len(calls) == 2
        failing, failures = self._counting(ValueError("Invalid generated model"))
        broken = Metric("memo-test-error", "compat", "", failing)
        for _ in range(3):
            with pytest.raises(ValueError, match="Invalid generated model"):
                broken.explained("A", "B")
        assert len(failures) == 1

    def test_a_missing_prerequisite_is_not_remembered(self):
        from dmbench.errors import MissingPrerequisiteError
        from dmbench.metrics.scoring import Metric

        explain, calls = self._counting(MissingPrerequisiteError("NLTK data missing"))
        metric = Metric("memo-test-missing", "compat", "", explain)
        for _ in range(2):
            with pytest.raises(MissingPrerequisiteError):
                metric.explained("A", "B")
        assert len(calls) == 2

    def test_the_same_metric_name_shares_the_memo_across_stages(self):
        """The report's explain and the score stage's benchmark view reuse one computation."""
        from dmbench.metrics import explain, score_benchmark

        reference = (
            "@startuml\nclass Customer {\n  name\n}\nclass Order\nCustomer -- Order\n@enduml"
        )
        generated = "@startuml\nclass Client {\n  name\n}\nclass Order\n@enduml"
        explained = explain(reference, generated, "metrik-1")
        assert explain(reference, generated, "metrik-1") is explained
        score = score_benchmark(reference, generated, "metrik-1")
        assert score.class_score == explained.class_score


def test_a_score_file_read_again_follows_its_bytes(package_and_rows):
    """Rows are made once per file content: a changed file is read anew, and a row check still
    names its line when the rows come from the memo."""
    package, _rescored = package_and_rows
    run = select_runs(package, RULE_BASED_DS2[:1])[0]
    path = run.path / "scores.jsonl"
    first = read_scores(run.path)
    assert read_scores(run.path) == first
    changed = first[0].class_score / 2 + 0.125
    text = path.read_text(encoding="utf-8").replace(
        f'"class_score": {first[0].class_score!r}', f'"class_score": {changed!r}', 1
    )
    path.write_text(text, encoding="utf-8")
    assert read_scores(run.path)[0].class_score == changed
    assert read_scores(run.path)[1:] == first[1:]
    with pytest.raises(PackageError, match=r"scores\.jsonl, line 1: record .* is not a record"):
        read_scores(run.path, record_ids={"ds2-Elsewhere"})
