"""The statistics behind the agreement table and the uncertainty of Tables 2-3: pure functions.

Every resampling starts from ``numpy.random.default_rng(seed)`` afresh, so a value depends only
on its own inputs and the recorded seed, not on what else was computed before it. Bootstrap
intervals are percentile intervals. The regression and rank correlations are scipy's; the
bootstraps and the sign-flip test are a few numpy matrix products, because every statistic
resampled here is a mean (scipy's generic ``permutation_test`` took 37 ms per comparison, 4 s
of the main job, against under 1 ms here).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import scipy

SEED = 20261201
"""The seed of every resampling in the tables and the agreement table (recorded with them)."""
RESAMPLES = 10_000
CONFIDENCE = 0.95


def round_half_up(value: float, digits: int) -> Decimal:
    """``value`` rounded as a reader rounds (half up, on the shortest decimal of the float)."""
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def library_versions() -> dict[str, str]:
    """The numerical libraries whose algorithms give the intervals and p-values."""
    return {"numpy": np.__version__, "scipy": scipy.__version__}


def _percentiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def _none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


@dataclass(frozen=True, slots=True)
class Agreement:
    """How one metric's scores agree with the human F1s of the same pairs (study definitions).

    delta = metric − human; ``mad`` mean |delta|, ``residual_std`` sample std of delta,
    ``bias`` mean delta, ``median_abs`` median |delta|; ``slope``/``intercept`` regress the human
    F1 on the metric. The overall row has only the four statistics the study defines for it.
    """

    n: int
    mad: float
    residual_std: float | None
    bias: float
    abs_bias: float
    median_abs: float | None = None
    pearson_r: float | None = None
    slope: float | None = None
    intercept: float | None = None
    spearman: float | None = None
    kendall: float | None = None
    r_ci_low: float | None = None
    r_ci_high: float | None = None


def _sample_std(values: np.ndarray) -> float | None:
    return float(np.std(values, ddof=1)) if len(values) > 1 else None


def element_agreement(
    metric: Sequence[float] | np.ndarray,
    human: Sequence[float] | np.ndarray,
    clusters: Sequence[str],
    seed: int = SEED,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> Agreement:
    """All statistics of one element; r's interval resamples whole clusters (reference models).

    ``scipy.stats`` is imported here: at module level it cost every command that reaches the
    tables (validate, check, score, verify ...) 0.6 s of start-up, for the study's statistics
    only."""
    import scipy.stats

    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    delta = x - y
    bias = float(np.mean(delta))
    varying = len(x) > 1 and np.ptp(x) > 0 and np.ptp(y) > 0
    fit = scipy.stats.linregress(x, y) if varying else None
    low, high = (
        cluster_bootstrap_pearson(x, y, clusters, seed, resamples, confidence)
        if varying
        else (None, None)
    )
    return Agreement(
        n=len(x),
        mad=float(np.mean(np.abs(delta))),
        residual_std=_sample_std(delta),
        bias=bias,
        abs_bias=abs(bias),
        median_abs=float(np.median(np.abs(delta))),
        pearson_r=float(fit.rvalue) if fit else None,
        slope=float(fit.slope) if fit else None,
        intercept=float(fit.intercept) if fit else None,
        spearman=float(scipy.stats.spearmanr(x, y).statistic) if varying else None,
        kendall=float(scipy.stats.kendalltau(x, y).statistic) if varying else None,
        r_ci_low=low,
        r_ci_high=high,
    )


def overall_agreement(metric: np.ndarray, human: np.ndarray) -> Agreement:
    """The study's overall columns from (pairs × elements) arrays: mad and bias pool every
    delta; residual_std is the sample std of each pair's mean score minus its mean human F1."""
    metric, human = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    delta = metric - human
    bias = float(np.mean(delta))
    return Agreement(
        n=len(metric),
        mad=float(np.mean(np.abs(delta))),
        residual_std=_sample_std(metric.mean(axis=1) - human.mean(axis=1)),
        bias=bias,
        abs_bias=abs(bias),
    )


def cluster_bootstrap_pearson(
    x: np.ndarray,
    y: np.ndarray,
    clusters: Sequence[str],
    seed: int = SEED,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> tuple[float | None, float | None]:
    """Percentile interval of Pearson r when whole clusters are drawn with replacement.

    Drawing a cluster k times weighs each of its pairs by k, so each resample is a weighted r;
    resamples whose r is undefined (one value repeated) are left out.
    """
    names, codes = np.unique(np.asarray(clusters), return_inverse=True)
    weights = resample_counts(len(names), seed, resamples)[:, codes].astype(float)
    total = weights.sum(axis=1, keepdims=True)
    dx = x - (weights @ x)[:, None] / total
    dy = y - (weights @ y)[:, None] / total
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (weights * dx * dy).sum(axis=1) / np.sqrt(
            (weights * dx**2).sum(axis=1) * (weights * dy**2).sum(axis=1)
        )
    r = r[np.isfinite(r)]
    if not len(r):
        return None, None
    return _percentiles(r, confidence)


@functools.cache
def resample_counts(n: int, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """How often each of ``n`` items is drawn in each resample (resamples × n), read-only.

    A bootstrap statistic that is a (weighted) mean becomes one matrix product with these
    counts; the same ``n`` and seed give the same draws, so they are made once.
    """
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    offsets = draws + n * np.arange(resamples)[:, None]
    counts = np.bincount(offsets.ravel(), minlength=resamples * n).reshape(resamples, n)
    counts = counts.astype(float)  # BLAS multiplies floats only; integer products are 3x slower
    counts.setflags(write=False)
    return counts


def cell_intervals(
    scores: np.ndarray,
    seed: int = SEED,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> list[tuple[float, float]]:
    """Intervals of Table 2-3 cells, each the median over runs of each run's mean over records.

    ``scores`` is (records × runs × cells), e.g. the three elements of one row; records are
    resampled with their runs kept together, the same draws for every cell.
    """
    n, runs, cells = scores.shape
    run_means = resample_counts(n, seed, resamples) @ scores.reshape(n, runs * cells) / n
    statistic = np.median(run_means.reshape(resamples, runs, cells), axis=1)
    return [_percentiles(statistic[:, i], confidence) for i in range(cells)]


def paired_interval(
    differences: np.ndarray,
    seed: int = SEED,
    resamples: int = RESAMPLES,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """Percentile interval of the mean per-record difference, records resampled."""
    n = len(differences)
    return _percentiles(resample_counts(n, seed, resamples) @ differences / n, confidence)


@functools.cache
def sign_patterns(n: int, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """Sign flips for ``n`` paired differences: all 2^n patterns when there are no more than
    ``resamples`` of them (then the test is exact), else ``resamples`` random ones."""
    if 2**n <= resamples:
        patterns = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
    else:
        patterns = np.random.default_rng(seed).choice(np.array([-1, 1]), size=(resamples, n))
    patterns = patterns.astype(float)
    patterns.setflags(write=False)
    return patterns


def sign_flip_p(differences: np.ndarray, seed: int = SEED, resamples: int = RESAMPLES) -> float:
    """Two-sided paired permutation p-value of the mean difference under random sign flips.

    Exact over all 2^n patterns when they are few (DS-2's 8 records: 256, so the smallest
    p-value is 2/256); otherwise (1 + flips at least as extreme) / (1 + resamples), which never
    gives 0. "At least as extreme" allows a relative 100 ulp so ties in float sums count.
    """
    differences = np.asarray(differences, dtype=float)
    n = len(differences)
    patterns = sign_patterns(n, seed, resamples)
    observed = abs(differences.mean())
    null = np.abs(patterns @ differences / n)
    extreme = int((null >= observed * (1 - 100 * np.finfo(float).eps)).sum())
    if 2**n <= resamples:
        return extreme / len(patterns)
    return (extreme + 1) / (len(patterns) + 1)


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment: the i-th smallest of m p-values times (m − i), made
    monotone and capped at 1; the family-wise error stays at the nominal level."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    result = np.empty(m)
    result[order] = adjusted
    return [float(v) for v in result]
