"""The statistics of the agreement table and of Tables 2-3, pinned on cases small enough to
compute by hand (the values in the comments are the hand computation)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from dmbench.tables.statistics import (
    cell_intervals,
    cluster_bootstrap_pearson,
    element_agreement,
    holm,
    overall_agreement,
    paired_interval,
    resample_counts,
    sign_flip_p,
)


class TestElementAgreement:
    # metric 0.5, 0.7, 0.9 against human 0.4, 0.8, 0.6: deltas 0.1, -0.1, 0.3
    METRIC = [0.5, 0.7, 0.9]
    HUMAN = [0.4, 0.8, 0.6]

    @pytest.fixture()
    def stats(self):
        return element_agreement(self.METRIC, self.HUMAN, ["a", "b", "c"], resamples=200)

    def test_delta_statistics(self, stats) -> None:
        """MAD 0.5/3; deltas deviate 0, -0.2, 0.2 from their mean 0.1, so the sample variance
        is 0.08/2 and the residual std 0.2; median |delta| 0.1."""
        assert stats.n == 3
        assert stats.mad == pytest.approx(0.5 / 3)
        assert stats.residual_std == pytest.approx(0.2)
        assert stats.bias == pytest.approx(0.1) and stats.abs_bias == pytest.approx(0.1)
        assert stats.median_abs == pytest.approx(0.1)

    def test_correlations_and_regression(self, stats) -> None:
        """x deviates -0.2, 0, 0.2 and y -0.2, 0.2, 0: cross sum 0.04 over 0.08 and 0.08, so
        r = 0.5 and the slope of human on metric 0.5, intercept 0.6 - 0.5 * 0.7 = 0.25.
        Ranks 1,2,3 against 1,3,2: Spearman 1 - 6*2/24 = 0.5; pairs 2 concordant, 1
        discordant: Kendall 1/3."""
        assert stats.pearson_r == pytest.approx(0.5)
        assert stats.slope == pytest.approx(0.5)
        assert stats.intercept == pytest.approx(0.25)
        assert stats.spearman == pytest.approx(0.5)
        assert stats.kendall == pytest.approx(1 / 3)

    def test_negative_bias_has_positive_abs_bias(self) -> None:
        stats = element_agreement([0.1, 0.2], [0.4, 0.3], ["a", "b"], resamples=50)
        assert stats.bias == pytest.approx(-0.2) and stats.abs_bias == pytest.approx(0.2)

    def test_constant_metric_has_no_correlation(self) -> None:
        """A metric that gives every pair the same score has no r, slope or interval."""
        stats = element_agreement([0.5, 0.5, 0.5], self.HUMAN, ["a", "b", "c"], resamples=50)
        assert stats.pearson_r is None and stats.slope is None and stats.r_ci_low is None
        assert stats.mad == pytest.approx((0.1 + 0.3 + 0.1) / 3)


def test_overall_pools_deltas_and_takes_std_of_pair_means() -> None:
    """Pair 1: metric (0.6, 0.6, 0.6) vs human (0.3, 0.6, 0.9): deltas 0.3, 0, -0.3, mean
    delta 0. Pair 2: (0.5, 0.5, 0.5) vs (0.4, 0.4, 0.4): deltas 0.1 each. MAD over the six
    deltas 0.9/6; bias 0.3/6; per-pair mean deltas 0 and 0.1: sample std 0.1/sqrt(2)."""
    metric = np.array([[0.6, 0.6, 0.6], [0.5, 0.5, 0.5]])
    human = np.array([[0.3, 0.6, 0.9], [0.4, 0.4, 0.4]])
    stats = overall_agreement(metric, human)
    assert stats.n == 2
    assert stats.mad == pytest.approx(0.15)
    assert stats.bias == pytest.approx(0.05)
    assert stats.residual_std == pytest.approx(0.1 / np.sqrt(2))
    assert stats.pearson_r is None and stats.median_abs is None


class TestClusterBootstrap:
    def test_equals_pearson_of_the_concatenated_clusters(self) -> None:
        """Weighting each pair by its cluster's draw count is the r of the clusters stacked."""
        rng = np.random.default_rng(1)
        x, y = rng.random(10), rng.random(10)
        clusters = ["a", "a", "b", "b", "b", "c", "c", "d", "d", "d"]
        low, high = cluster_bootstrap_pearson(x, y, clusters, seed=7, resamples=300)
        names, codes = np.unique(clusters, return_inverse=True)
        counts = resample_counts(len(names), 7, 300)
        by_hand = []
        for row in counts:
            members = [np.repeat(np.flatnonzero(codes == k), int(c)) for k, c in enumerate(row)]
            picked = np.concatenate(members)
            if np.ptp(x[picked]) and np.ptp(y[picked]):
                by_hand.append(np.corrcoef(x[picked], y[picked])[0, 1])
        assert (low, high) == pytest.approx(tuple(np.percentile(by_hand, [2.5, 97.5])))

    def test_perfect_agreement_gives_r_one(self) -> None:
        """Within every cluster metric = human, so every resample has r = 1."""
        x = np.array([0.1, 0.4, 0.2, 0.9, 0.5, 0.7])
        assert cluster_bootstrap_pearson(x, x, list("aabbcc"), resamples=100) == pytest.approx(
            (1.0, 1.0)
        )


class TestResampleCounts:
    def test_each_resample_draws_n_items(self) -> None:
        counts = resample_counts(5, 3, 1000)
        assert counts.shape == (1000, 5) and set(counts.sum(axis=1)) == {5.0}

    def test_seeded(self) -> None:
        assert np.array_equal(resample_counts(6, 11, 50), resample_counts(6, 11, 50))
        assert not np.array_equal(resample_counts(6, 11, 50), resample_counts(6, 12, 50))


class TestCellIntervals:
    def test_two_records_zero_and_one(self) -> None:
        """Records scoring 0 and 1 (one run): a resample's mean is 0, 0.5 or 1 with chances
        1/4, 1/2, 1/4, so the 95% interval is [0, 1]."""
        ((low, high),) = cell_intervals(np.array([[[0.0]], [[1.0]]]))
        assert (low, high) == (0.0, 1.0)

    def test_identical_records_give_zero_width(self) -> None:
        scores = np.full((6, 3, 2), 0.4)
        assert cell_intervals(scores, resamples=100) == [pytest.approx((0.4, 0.4))] * 2

    def test_runs_stay_together_and_the_median_is_over_runs(self) -> None:
        """Run 2 is always the middle run, so every resample's median is run 2's mean; its
        records 0.2 and 0.6 give means 0.2, 0.4, 0.6."""
        scores = np.array([[[0.0], [0.2], [0.9]], [[0.1], [0.6], [1.0]]])
        ((low, high),) = cell_intervals(scores)
        assert (low, high) == pytest.approx((0.2, 0.6))


def test_paired_interval_of_constant_differences() -> None:
    assert paired_interval(np.full(9, 0.25), resamples=100) == pytest.approx((0.25, 0.25))


class TestSignFlip:
    def test_exact_three_records(self) -> None:
        """Differences 1, 2, 3 (mean 2): of the 8 sign patterns only +++ and --- reach |mean| 2."""
        assert sign_flip_p(np.array([1.0, 2.0, 3.0])) == 0.25

    def test_exact_every_pattern_as_extreme(self) -> None:
        """1, 1, -1: every pattern's |sum| is 1 or 3, never below the observed 1."""
        assert sign_flip_p(np.array([1.0, 1.0, -1.0])) == 1.0

    def test_randomised_never_zero(self) -> None:
        """20 equal differences: 2^20 patterns, so 10,000 random ones; only all-equal signs
        are as extreme, which random draws (almost) never hit: p = 1/10001."""
        assert sign_flip_p(np.full(20, 0.1)) == pytest.approx(1 / 10_001, abs=2 / 10_001)

    def test_zero_differences(self) -> None:
        assert sign_flip_p(np.zeros(5)) == 1.0

    @pytest.mark.parametrize("n", [8, 45])
    def test_agrees_with_scipy(self, n: int) -> None:
        """Same test as scipy's permutation_test on the mean (exact for 8, random for 45)."""
        d = np.random.default_rng(n).normal(0.05, 0.2, n)
        expected = scipy.stats.permutation_test(
            (d,),
            np.mean,
            permutation_type="samples",
            n_resamples=10_000,
            rng=np.random.default_rng(0),
        ).pvalue
        assert sign_flip_p(d) == pytest.approx(expected, abs=0.02 if n > 8 else 1e-12)


def test_holm_by_hand() -> None:
    """Sorted 0.01, 0.03, 0.04 times 3, 2, 1: 0.03, 0.06, 0.04 -> monotone 0.03, 0.06, 0.06."""
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []
