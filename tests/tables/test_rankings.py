"""The ranking comparison behind errata 2.7: Kendall's tau and the best cell, per column."""

from __future__ import annotations

import pytest

from dmbench.metrics import PUBLISHED_METRIC
from dmbench.tables.rankings import Column, study_metrics

SERIES = ("rule_based", "chen (glm)", "calamo (glm)")


def _column(**medians: tuple[float, ...]) -> Column:
    return Column("ds1", "class", SERIES, {PUBLISHED_METRIC: (0.3, 0.7, 0.6), **medians})


class TestColumn:
    def test_same_order_is_tau_one_and_the_best_holds(self):
        """Different values in the same order: tau 1, the paper's best is best."""
        column = _column(other=(0.1, 0.9, 0.5))
        assert column.tau("other") == pytest.approx(1.0)
        assert column.paper_best_holds("other")

    def test_reversed_order_is_tau_minus_one(self):
        column = _column(other=(0.9, 0.1, 0.5))
        assert column.tau("other") == pytest.approx(-1.0)
        assert column.best("other") == ("rule_based",)
        assert not column.paper_best_holds("other")

    def test_a_tie_for_first_still_holds(self):
        """Two series tied first under the metric: the paper's best is one of them."""
        column = _column(other=(0.3, 0.8, 0.8))
        assert column.best("other") == ("chen (glm)", "calamo (glm)")
        assert column.paper_best_holds("other")


def test_study_metrics_leave_out_the_standard_reading():
    """The comparison is over the study's metrics, not metrik-4's standard-reading variant."""
    assert PUBLISHED_METRIC in study_metrics()
    assert "metrik-4-standard" not in study_metrics()
