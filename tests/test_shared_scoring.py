"""The main job scores each distinct (reference, generated, metric) once: verification and the
score stage share the rows instead of computing them twice."""

from __future__ import annotations

import pytest
from results_support import copy_package

from dmbench.flows.changes import score_runs
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


def test_rows_of_another_metric_are_refused(package_and_rows):
    package, rescored = package_and_rows
    with pytest.raises(ValueError, match="not of this metric"):
        score_runs(package, STANDARD_METRIC, RULE_BASED_DS2, rescored=rescored)
