"""The judge leaderboard's rows: per board and (candidate, LLM), from stored judgements.

A board is the judge runs of one protocol (judges, options, criteria, prompt): their scores
are comparable, so their rows are ranked together, whichever run judged which outputs.
``overall`` is the mean S_final over the judged instances (failed ones are counted in
``failed``, never in a mean; an empty or unreadable generated diagram is judged 0). Its 95% interval is a
percentile bootstrap clustered by record: a record's outputs from several runs are resampled
together, since they share one text and one reference. With both orders, ``position_bias`` is
the mean of [S_final with D̂ shown as A − S_final with D̂ shown as B], ``flip_rate`` the share of
instances whose preferred diagram changes with the order, and ``mean_abs_order_diff`` the mean
of |S_AB − S_BA|. A panel of judges gets Krippendorff's alpha (interval) between the judges'
S_final over all judged (instance, order) units.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import krippendorff
import numpy as np

from dmbench.errors import PackageError
from dmbench.judge.judging import EMPTY_GENERATED, NOT_SENT, UNREADABLE_GENERATED, model_family
from dmbench.judge.runs import JudgeRun, find_judge_run, list_judge_runs, run_criteria
from dmbench.runs.opened import OpenedPackage, PackageSource, open_package

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
        if row["failed"] or row["error"] in NOT_SENT:
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


def _series(package: OpenedPackage) -> dict[str, tuple[str, str | None]]:
    return {run.info.run_id: (run.info.candidate, run.info.model) for run in package.runs()}


def protocol(run: JudgeRun) -> dict[str, Any]:
    """What makes two judge runs' scores comparable: the same judges asking the same way.
    Runs that share it are one board, whatever outputs each of them judged."""
    settings = run.info["settings"]
    return {
        "judges": settings["judges"],
        "seed": settings["options"]["seed"],
        "orders": 2 if settings["options"]["both_orders"] else 1,
        "options": settings["options"],
        "criteria_id": settings["criteria_id"],
        "criteria_version": settings["criteria_version"],
        "criteria_sha256": settings["criteria_sha256"],
        "prompt_version": settings["prompt_version"],
        "prompt_sha256": settings["prompt_sha256"],
    }


@dataclass(frozen=True, slots=True)
class Entry:
    """One leaderboard row and the per-record means its paired comparisons are made of."""

    row: dict[str, Any]
    record_means: dict[str, float]

    @property
    def control(self) -> bool:
        return self.row["candidate"].startswith(f"{CONTROL_CANDIDATE}:")


def _entry(
    board: int, runs: Sequence[JudgeRun], candidate: str, llm: str | None,
    rows: Sequence[dict[str, Any]],
) -> Entry:
    settings = protocol(runs[0])
    judges = settings["judges"]
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
    dimension_order = [d.id for d in run_criteria(runs[0]).dimensions]
    families = {model_family(j) for j in judges}
    row = {
        "board": board,
        "rank": None,
        "candidate": candidate,
        "llm": llm,
        "judge": " + ".join(judges),
        "overall": fmean(r["s_final"] for r in judged) if judged else None,
        "ci_low": low,
        "ci_high": high,
        "n": len(judged),
        "failed": len(rows) - len(judged),
        "failed_share": (len(rows) - len(judged)) / len(rows) if rows else 0.0,
        "empty_generated": sum(r["error"] == EMPTY_GENERATED for r in rows),
        "unreadable_generated": sum(r["error"] == UNREADABLE_GENERATED for r in rows),
        "orders": settings["orders"],
        **_order_stats(rows),
        "alpha": panel_alpha(rows, judges),
        "self_preference": bool(llm) and model_family(llm) in families,
        "types": {t: fmean(v) for t, v in sorted(by_type.items())},
        "dimensions": {d: fmean(by_dimension[d]) for d in dimension_order if by_dimension[d]},
        "settings": {k: settings[k] for k in (
            "judges", "seed", "orders", "criteria_id", "criteria_version", "prompt_version"
        )},  # fmt: skip
        "judge_runs": [run.run_id for run in runs],
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED, "cluster": "record"},
    }
    return Entry(row, {record: fmean(values) for record, values in sorted(by_record.items())})


def leaderboard_entries(
    package: PackageSource, judge_run_id: str | None = None
) -> list[list[Entry]]:
    """Per board (judge runs of one protocol), a row per (candidate, LLM) it judged, best
    ``overall`` first and ranked, the identity control last and unranked; an instance judged by two runs of a board
    counts once (the first run's, by run id)."""
    opened = open_package(package)
    package_dir = opened.path
    runs = [find_judge_run(package_dir, judge_run_id)] if judge_run_id else list_judge_runs(
        package_dir
    )
    if any(run.is_study for run in runs):
        raise PackageError(
            f"{judge_run_id} judged the metric study's pairs, not outputs of the benchmark",
            hint="its rows are in `dmbench agreement`",
        )
    series = _series(opened)
    boards: dict[str, list[JudgeRun]] = defaultdict(list)
    for run in runs:
        boards[json.dumps(protocol(run), sort_keys=True)].append(run)
    out = []
    for number, board_runs in enumerate(boards.values(), start=1):
        groups: dict[tuple[str, str | None], dict[str, dict[str, Any]]] = defaultdict(dict)
        judged_by: dict[tuple[str, str | None], list[JudgeRun]] = defaultdict(list)
        for run in board_runs:
            for row in run.rows():
                if row["run_id"] is None:
                    key = (f"{CONTROL_CANDIDATE}:{run.info['settings']['control']}", None)
                elif row["run_id"] in series:
                    key = series[row["run_id"]]
                else:
                    raise PackageError(
                        f"{run.judgements_path}: judged run {row['run_id']!r} is not in the "
                        "package"
                    )
                groups[key].setdefault(row["instance"], row)
                if run not in judged_by[key]:
                    judged_by[key].append(run)
        entries = [_entry(number, judged_by[key], *key, list(rows.values()))
                   for key, rows in groups.items()]  # fmt: skip
        entries.sort(key=lambda e: (e.control, e.row["overall"] is None,
                                    -(e.row["overall"] or 0), e.row["candidate"],
                                    e.row["llm"] or ""))  # fmt: skip
        ranked = [e.row for e in entries if not e.control and e.row["overall"] is not None]
        for row in ranked:  # equal means share a rank: 1, 1, 3
            row["rank"] = 1 + sum(other["overall"] > row["overall"] for other in ranked)
        out.append(entries)
    return out
