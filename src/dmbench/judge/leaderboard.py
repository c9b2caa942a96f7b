"""The judge leaderboard as rows: one per judge run and (candidate, LLM), from stored judgements.

``overall`` is the mean S_final over the judged instances (failed ones are counted in
``failed``, never in a mean; an empty generated diagram is judged 0). Its 95% interval is a
percentile bootstrap clustered by record: a record's outputs from several runs are resampled
together, since they share one text and one reference. With both orders, ``position_bias`` is
the mean of [S_final with D̂ shown as A − S_final with D̂ shown as B], ``flip_rate`` the share of
instances whose preferred diagram changes with the order, and ``mean_abs_order_diff`` the mean
of |S_AB − S_BA|. A panel of judges gets Krippendorff's alpha (interval) between the judges'
S_final over all judged (instance, order) units.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

import krippendorff
import numpy as np

from dmbench.errors import PackageError
from dmbench.judge.judging import EMPTY_GENERATED, model_family
from dmbench.judge.runs import JudgeRun, find_judge_run, list_judge_runs, run_criteria
from dmbench.runs.store import list_runs

BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 20261201
CONTROL_CANDIDATE = "control"


def cluster_bootstrap_ci(
    values_by_cluster: Sequence[Sequence[float]],
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float | None, float | None]:
    """95% percentile interval of the pooled mean, resampling whole clusters (records)."""
    clusters = [list(c) for c in values_by_cluster if c]
    if not clusters:
        return None, None
    sums = np.array([sum(c) for c in clusters], dtype=float)
    counts = np.array([len(c) for c in clusters], dtype=float)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(clusters), size=(resamples, len(clusters)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def _order_value(row: dict[str, Any], generated_as: str) -> float | None:
    """The mean S_final (over the panel) of the judgements that showed D̂ as ``generated_as``."""
    reference_as = "B" if generated_as == "A" else "A"
    values = [
        j["s_final"] for j in row["judgements"] if j["reference_shown_as"] == reference_as
    ]
    return fmean(values) if values else None


def _order_stats(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    pairs = []
    for row in rows:
        if row["failed"] or row["error"] == EMPTY_GENERATED:
            continue
        as_a, as_b = _order_value(row, "A"), _order_value(row, "B")
        if as_a is not None and as_b is not None:
            pairs.append((as_a, as_b))
    if not pairs:
        return {"position_bias": None, "flip_rate": None, "mean_abs_order_diff": None}
    sign = lambda v: (v > 0.5) - (v < 0.5)  # noqa: E731
    return {
        "position_bias": fmean(a - b for a, b in pairs),
        "flip_rate": fmean(float(sign(a) != sign(b)) for a, b in pairs),
        "mean_abs_order_diff": fmean(abs(a - b) for a, b in pairs),
    }


def panel_alpha(rows: Sequence[dict[str, Any]], judges: Sequence[str]) -> float | None:
    """Krippendorff's alpha (interval) of the judges' S_final; None for a single judge."""
    if len(judges) < 2:
        return None
    units: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for row in rows:
        for j in row["judgements"]:
            if not j["failed"]:
                units[(row["instance"], j["reference_shown_as"])][j["judge"]] = j["s_final"]
    data = [[units[u].get(judge, np.nan) for u in sorted(units)] for judge in judges]
    pairable = sum(sum(judge in units[u] for judge in judges) >= 2 for u in units)
    if pairable == 0:
        return None
    values = {v for u in units.values() for v in u.values()}
    if len(values) < 2:
        return None  # no variation at all: alpha is undefined
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"))


def _series(package_dir: Path) -> dict[str, tuple[str, str | None]]:
    return {run.info.run_id: (run.info.candidate, run.info.model) for run in list_runs(package_dir)}


def _group_row(
    run: JudgeRun, candidate: str, llm: str | None, rows: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    judges = run.info["settings"]["judges"]
    judged = [r for r in rows if not r["failed"]]
    by_record: dict[str, list[float]] = defaultdict(list)
    by_type: dict[str, list[float]] = defaultdict(list)
    by_dimension: dict[str, list[float]] = defaultdict(list)
    for row in judged:
        by_record[row["record_id"]].append(row["s_final"])
        by_type[row["type"]].append(row["s_final"])
        for dimension, value in (row["dimensions"] or {}).items():
            by_dimension[dimension].append(value)
    low, high = cluster_bootstrap_ci(list(by_record.values()))
    dimension_order = [d.id for d in run_criteria(run).dimensions]
    families = {model_family(j) for j in judges}
    return {
        "judge_run_id": run.run_id,
        "judge": "+".join(judges),
        "candidate": candidate,
        "llm": llm,
        "overall": fmean(r["s_final"] for r in judged) if judged else None,
        "ci_low": low,
        "ci_high": high,
        "n": len(judged),
        "failed": len(rows) - len(judged),
        "empty_generated": sum(r["error"] == EMPTY_GENERATED for r in rows),
        "types": {t: fmean(v) for t, v in sorted(by_type.items())},
        "dimensions": {d: fmean(by_dimension[d]) for d in dimension_order if by_dimension[d]},
        **_order_stats(rows),
        "alpha": panel_alpha(rows, judges),
        "self_preference": bool(llm) and model_family(llm) in families,
        "both_orders": run.info["settings"]["options"]["both_orders"],
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED, "cluster": "record"},
    }


def leaderboard_rows(package_dir: Path, judge_run_id: str | None = None) -> list[dict[str, Any]]:
    """Rows of every judge run in the package (or of one), best ``overall`` first per run."""
    package_dir = Path(package_dir)
    runs = [find_judge_run(package_dir, judge_run_id)] if judge_run_id else list_judge_runs(
        package_dir
    )
    if any(run.is_study for run in runs):
        raise PackageError(
            f"{judge_run_id} judged the metric study's pairs, not outputs of the benchmark",
            hint="its rows are in `dmbench agreement`",
        )
    series = _series(package_dir)
    out: list[dict[str, Any]] = []
    for run in runs:
        groups: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
        for row in run.rows():
            if row["run_id"] is None:
                key = (f"{CONTROL_CANDIDATE}:{run.info['settings']['control']}", None)
            elif row["run_id"] in series:
                key = series[row["run_id"]]
            else:
                raise PackageError(
                    f"{run.judgements_path}: judged run {row['run_id']!r} is not in the package"
                )
            groups[key].append(row)
        made = [_group_row(run, c, llm, rows) for (c, llm), rows in groups.items()]
        made.sort(key=lambda r: (r["overall"] is None, -(r["overall"] or 0), r["candidate"]))
        out.extend(made)
    return out
