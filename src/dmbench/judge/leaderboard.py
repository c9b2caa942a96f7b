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

Each board has a stable id (a hash of its protocol: judges, options, criteria, prompt, view)
and a title that says them; the headline board is the one over canonical runs with dmbench's
default judge settings, both orders and the text view. Each ranked row has a rank interval
(``rank_low``-``rank_high``: 2.5th and 97.5th percentile of its rank over record resamples)
and a size-controlled score: S_final at size parity, the row's intercept in a regression of
S_final on log((output classes + 1) / (reference classes + 1)) with one slope shared by the
board (after AlpacaEval's length-controlled win rate), with a record-bootstrap interval. The
controls: the identity control's per-criterion difference between the scores of position A
and B (the same diagram in both), and ``--control detect``'s share of pairs where the judge
names the reference as the diagram a person drew.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import krippendorff
import numpy as np

from dmbench.core.hashing import sha256_text
from dmbench.errors import PackageError
from dmbench.judge.criteria import load_criteria
from dmbench.judge.judging import EMPTY_GENERATED, NOT_SENT, UNREADABLE_GENERATED, model_family
from dmbench.judge.runs import JudgeRun, find_judge_run, list_judge_runs, run_criteria, run_view
from dmbench.judge.spec import JUDGE
from dmbench.judge.tells import class_count, diagram_of, tells_table
from dmbench.judge.views import DEFAULT_VIEW
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
        "view": run_view(run),
    }


def board_id(settings: dict[str, Any]) -> str:
    """The board's id: a hash of its protocol, the same whichever runs are added to it."""
    return "board-" + sha256_text(json.dumps(settings, sort_keys=True, ensure_ascii=False))[:10]


def board_title(settings: dict[str, Any], controls: Sequence[str] = ()) -> str:
    """A board's heading from its settings, so two boards that differ say how."""
    orders = "both orders" if settings["orders"] == 2 else "one order"
    title = (f"judge {' + '.join(settings['judges'])}, criteria {settings['criteria_id']} "
             f"{settings['criteria_version']}, {settings['view']} view, {orders}, "
             f"seed {settings['seed']}")  # fmt: skip
    return title + "".join(f", {control} control" for control in controls)


@dataclass(frozen=True, slots=True)
class Entry:
    """One leaderboard row and the per-record means its paired comparisons are made of."""

    row: dict[str, Any]
    record_means: dict[str, float]
    judged: tuple[dict[str, Any], ...] = ()
    """The stored rows of its judged (not failed) instances."""

    @property
    def control(self) -> bool:
        return self.row["candidate"].startswith(f"{CONTROL_CANDIDATE}:")


def _entry(
    board: str, runs: Sequence[JudgeRun], candidate: str, llm: str | None,
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
        "rank_low": None,
        "rank_high": None,
        "candidate": candidate,
        "llm": llm,
        "judge": " + ".join(judges),
        "overall": fmean(r["s_final"] for r in judged) if judged else None,
        "ci_low": low,
        "ci_high": high,
        "size_controlled": None,
        "size_controlled_ci_low": None,
        "size_controlled_ci_high": None,
        "size_slope": None,
        "n": len(judged),
        "failed": len(rows) - len(judged),
        "failed_share": (len(rows) - len(judged)) / len(rows) if rows else 0.0,
        "empty_generated": sum(r["error"] == EMPTY_GENERATED for r in rows),
        "unreadable_generated": sum(r["error"] == UNREADABLE_GENERATED for r in rows),
        "orders": settings["orders"],
        **_order_stats(rows),
        "alpha": panel_alpha(rows, judges),
        "self_preference": model_family(llm) in families if llm else False,
        "types": {t: fmean(v) for t, v in sorted(by_type.items())},
        "dimensions": {d: fmean(by_dimension[d]) for d in dimension_order if by_dimension[d]},
        "settings": {k: settings[k] for k in (
            "judges", "seed", "orders", "criteria_id", "criteria_version", "prompt_version",
            "view",
        )},  # fmt: skip
        "judge_runs": [run.run_id for run in runs],
        "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED, "cluster": "record"},
    }
    return Entry(row, {record: fmean(values) for record, values in sorted(by_record.items())},
                 tuple(judged))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Board:
    """The judge runs of one protocol: their ranked rows and the identity control's figures."""

    id: str
    title: str
    settings: dict[str, Any]
    runs: tuple[JudgeRun, ...]
    entries: tuple[Entry, ...]
    identity: dict[str, Any] | None
    canonical: frozenset[str] = frozenset()
    """The package's canonical run ids (what a headline board judges)."""

    @property
    def headline_ready(self) -> bool:
        """Canonical runs, dmbench's default judge settings and criteria, both orders, text."""
        judged = {run_id for run in self.runs for run_id in run.info["settings"]["judged_runs"]}
        return (
            bool(judged) and judged <= self.canonical
            and self.settings["options"] == JUDGE.options.to_dict()
            and self.settings["criteria_sha256"] == load_criteria().sha256
            and self.settings["view"] == DEFAULT_VIEW
        )  # fmt: skip


def _read_runs(package_dir: Path, judge_run_id: str | None) -> list[JudgeRun]:
    runs = [find_judge_run(package_dir, judge_run_id)] if judge_run_id else list_judge_runs(
        package_dir
    )
    if any(run.is_study for run in runs):
        raise PackageError(
            f"{judge_run_id} judged the metric study's pairs, not outputs of the benchmark",
            hint="its rows are in `dmbench agreement`",
        )
    return runs


def _runs_by_protocol(
    package_dir: Path, judge_run_id: str | None, detect: bool
) -> dict[str, list[JudgeRun]]:
    """The detectability runs (``detect``) or all the others, grouped by protocol in run order:
    runs of one protocol make one board (or one detectability entry)."""
    grouped: dict[str, list[JudgeRun]] = defaultdict(list)
    for run in _read_runs(package_dir, judge_run_id):
        if (run.info["settings"]["control"] == "detect") == detect:
            grouped[json.dumps(protocol(run), sort_keys=True)].append(run)
    return grouped


def leaderboard_boards(package: PackageSource, judge_run_id: str | None = None) -> list[Board]:
    """Per board (judge runs of one protocol), a row per (candidate, LLM) it judged, best
    ``overall`` first and ranked, the identity control last and unranked; an instance judged by
    two runs of a board counts once (the first run's, by run id). Detectability runs are not
    boards (see :func:`detectability`)."""
    opened = open_package(package)
    grouped = _runs_by_protocol(opened.path, judge_run_id, detect=False)
    if not grouped:  # no board: spare parsing every output for the class counts
        return []
    series = _series(opened)
    canonical = frozenset(run.info.run_id for run in opened.runs() if run.info.canonical)
    sizes = _class_counts(opened)
    out = []
    for key, board_runs in grouped.items():
        settings = json.loads(key)
        number = board_id(settings)
        groups: dict[tuple[str, str | None], dict[str, dict[str, Any]]] = defaultdict(dict)
        judged_by: dict[tuple[str, str | None], list[JudgeRun]] = defaultdict(list)
        key_of: tuple[str, str | None]
        for run in board_runs:
            for row in run.rows():
                if row["run_id"] is None:
                    key_of = (f"{CONTROL_CANDIDATE}:{run.info['settings']['control']}", None)
                elif row["run_id"] in series:
                    key_of = series[row["run_id"]]
                else:
                    raise PackageError(
                        f"{run.judgements_path}: judged run {row['run_id']!r} is not in the "
                        "package"
                    )
                groups[key_of].setdefault(row["instance"], row)
                if run not in judged_by[key_of]:
                    judged_by[key_of].append(run)
        entries = [_entry(number, judged_by[k], *k, list(rows.values()))
                   for k, rows in groups.items()]  # fmt: skip
        entries.sort(key=lambda e: (e.control, e.row["overall"] is None,
                                    -(e.row["overall"] or 0), e.row["candidate"],
                                    e.row["llm"] or ""))  # fmt: skip
        ranked = [e for e in entries if not e.control and e.row["overall"] is not None]
        for entry in ranked:  # equal means share a rank: 1, 1, 3
            row = entry.row
            row["rank"] = 1 + sum(other.row["overall"] > row["overall"] for other in ranked)
        _rank_intervals(ranked)
        _size_controlled(ranked, sizes)
        controls = sorted({run.info["settings"]["control"] for run in board_runs
                           if run.info["settings"]["control"]})  # fmt: skip
        identity = [e for e in entries if e.row["candidate"] == f"{CONTROL_CANDIDATE}:identity"]
        out.append(Board(
            number, board_title(settings, controls), settings, tuple(board_runs), tuple(entries),
            identity_differences(identity[0].judged, settings["judges"]) if identity else None,
            canonical,
        ))  # fmt: skip
    return out


def headline(boards: Sequence[Board]) -> str | None:
    """The headline board: of those over canonical runs with default settings, the one that
    judged the most outputs (then the smallest id)."""
    ready = [b for b in boards if b.headline_ready]
    if not ready:
        return None
    judged = lambda b: sum(e.row["n"] + e.row["failed"] for e in b.entries if not e.control)  # noqa: E731
    return min(ready, key=lambda b: (-judged(b), b.id)).id


def identity_differences(rows: Sequence[dict[str, Any]], judges: Sequence[str]) -> dict[str, Any]:
    """Per criterion, the mean over identity judgements of score(A) − score(B) (both places
    hold the same diagram, so a fair judge's is 0), with a 95% bootstrap interval over records."""
    by_criterion: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    n = 0
    for row in rows:
        for judgement in row["judgements"]:
            if judgement["failed"] or not judgement.get("scores"):
                continue
            n += 1
            for cid, given in judgement["scores"].items():
                by_criterion[cid][row["record_id"]].append(float(given["A"] - given["B"]))
    criteria = {}
    for cid, clusters in by_criterion.items():
        low, high = cluster_bootstrap_ci(list(clusters.values()))
        values = [v for c in clusters.values() for v in c]
        criteria[cid] = {"diff": fmean(values), "ci_low": low, "ci_high": high}
    return {"judge": " + ".join(judges), "n": n, "criteria": criteria}


def _rank_intervals(ranked: Sequence[Entry], resamples: int = BOOTSTRAP_RESAMPLES) -> None:
    """``rank_low``/``rank_high``: the 95% interval of each row's rank when the records are
    resampled (each row's mean over its resampled records, ranked as the board ranks)."""
    if not ranked:
        return
    records = sorted({r for e in ranked for r in e.record_means})
    index = {r: i for i, r in enumerate(records)}
    values = np.zeros((len(ranked), len(records)))
    present = np.zeros_like(values)
    for k, entry in enumerate(ranked):
        for record, mean in entry.record_means.items():
            values[k, index[record]] = mean
            present[k, index[record]] = 1.0
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(records), size=(resamples, len(records)))
    counts = np.zeros((resamples, len(records)))
    np.add.at(counts, (np.arange(resamples)[:, None], picks), 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (counts @ (values * present).T) / (counts @ present.T)  # resamples × rows
    means = np.where(np.isnan(means), -np.inf, means)
    ranks = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=2)
    for k, entry in enumerate(ranked):
        low, high = np.percentile(ranks[:, k], [2.5, 97.5])
        entry.row["rank_low"] = int(np.floor(low))
        entry.row["rank_high"] = int(np.ceil(high))


def _size_controlled(
    ranked: Sequence[Entry], sizes: dict[tuple[str, str], tuple[int, int]],
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> None:
    """S_final at size parity per row (AlpacaEval-LC style): S_final = a_row + b·x with
    x = log((output classes + 1) / (reference classes + 1)) and one slope b for the board;
    a_row is the score at x = 0. Its interval resamples records (refitting the slope)."""
    stats = []  # per row: record -> [n, Σx, Σy, Σxx, Σxy]
    for entry in ranked:
        per_record: dict[str, np.ndarray] = {}
        for row in entry.judged:
            size = sizes.get((row["run_id"], row["record_id"]))
            if size is None:
                continue
            x = math.log((size[0] + 1) / (size[1] + 1))
            y = row["s_final"]
            per_record.setdefault(row["record_id"], np.zeros(5))
            per_record[row["record_id"]] += (1.0, x, y, x * x, x * y)
        stats.append(per_record)
    records = sorted({r for per in stats for r in per})
    if not records:
        return
    index = {r: i for i, r in enumerate(records)}
    table = np.zeros((len(ranked), len(records), 5))
    for k, per in enumerate(stats):
        for record, sums in per.items():
            table[k, index[record]] = sums
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(records), size=(resamples, len(records)))
    counts = np.ones((resamples + 1, len(records)))  # row 0: the sample itself
    counts[1:] = 0.0
    np.add.at(counts, (np.arange(1, resamples + 1)[:, None], picks), 1.0)
    sums = np.einsum("sr,krf->skf", counts, table)  # resamples × rows × 5
    n, sx, sy, sxx, sxy = (sums[..., f] for f in range(5))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x, mean_y = sx / n, sy / n
        within_xx = np.nansum(np.where(n > 0, sxx - sx * mean_x, np.nan), axis=1)
        within_xy = np.nansum(np.where(n > 0, sxy - sx * mean_y, np.nan), axis=1)
        slope = np.where(within_xx > 1e-12, within_xy / within_xx, 0.0)
        intercept = mean_y - slope[:, None] * mean_x
    for k, entry in enumerate(ranked):
        if not stats[k]:
            continue
        low, high = np.nanpercentile(intercept[1:, k], [2.5, 97.5])
        entry.row["size_controlled"] = float(intercept[0, k])
        entry.row["size_controlled_ci_low"] = float(low)
        entry.row["size_controlled_ci_high"] = float(high)
        entry.row["size_slope"] = float(slope[0])


def _class_counts(package: OpenedPackage) -> dict[tuple[str, str], tuple[int, int]]:
    """(output classes, reference classes) per (run id, record id) of the package."""
    references = {r.record_id: r.reference for r in package.records()}
    counts = {}
    for run in package.runs():
        for output in run.outputs():
            reference = references.get(output.record_id)
            if reference is not None:
                counts[(run.info.run_id, output.record_id)] = (
                    class_count(diagram_of(output.generated)),
                    class_count(diagram_of(reference, reference=True)),
                )
    return counts


def detectability(package: PackageSource, judge_run_id: str | None = None) -> list[dict[str, Any]]:
    """Per detect protocol (judges, view, options): the share of judgements that name the
    reference as the diagram a person drew, with a 95% bootstrap interval over records, and
    the same share per candidate. Above 0.5 the judge can tell the reference apart."""
    opened = open_package(package)
    grouped = _runs_by_protocol(opened.path, judge_run_id, detect=True)
    series = _series(opened)
    out = []
    for key, group in grouped.items():
        settings = json.loads(key)
        by_record: dict[str, list[float]] = defaultdict(list)
        by_series: dict[tuple[str, str | None], list[float]] = defaultdict(list)
        seen: set[str] = set()
        failed = 0
        for run in group:
            for row in run.rows():
                if row["instance"] in seen:
                    continue
                seen.add(row["instance"])
                judged_run = row["instance"].split("/")[1]
                for judgement in row["judgements"]:
                    if judgement["failed"] or "correct" not in judgement:
                        failed += judgement["failed"]
                        continue
                    value = float(judgement["correct"])
                    by_record[row["record_id"]].append(value)
                    by_series[series.get(judged_run, (judged_run, None))].append(value)
        values = [v for c in by_record.values() for v in c]
        low, high = cluster_bootstrap_ci(list(by_record.values()))
        out.append({
            "id": board_id(settings),
            "judge": " + ".join(settings["judges"]),
            "view": settings["view"],
            "orders": settings["orders"],
            "n": len(values),
            "failed": failed,
            "share_correct": fmean(values) if values else None,
            "ci_low": low,
            "ci_high": high,
            "by_candidate": [
                {"candidate": c, "llm": llm, "n": len(v), "share_correct": fmean(v)}
                for (c, llm), v in sorted(by_series.items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))
            ],
            "judge_runs": [run.run_id for run in group],
        })  # fmt: skip
    return out


def view_agreement(boards: Sequence[Board]) -> list[dict[str, Any]]:
    """For boards that differ only in the view: Krippendorff's alpha (interval) of the two
    views' S_final over the instances both judged, and Spearman's rank correlation of their
    candidates' overall scores."""
    by_rest: dict[str, dict[str, Board]] = defaultdict(dict)
    for board in boards:
        rest = {k: v for k, v in board.settings.items() if k not in ("view", "prompt_sha256")}
        by_rest[json.dumps(rest, sort_keys=True)][board.settings["view"]] = board
    out = []
    for views in by_rest.values():
        if set(views) != {"text", "image"}:
            continue
        text, image = views["text"], views["image"]
        scores = [{row["instance"]: row["s_final"] for e in b.entries if not e.control
                   for row in e.judged} for b in (text, image)]  # fmt: skip
        shared = sorted(set(scores[0]) & set(scores[1]))
        alpha = None
        if shared and len({scores[0][i] for i in shared} | {scores[1][i] for i in shared}) > 1:
            data = [[s[i] for i in shared] for s in scores]
            alpha = float(krippendorff.alpha(reliability_data=data,
                                             level_of_measurement="interval"))  # fmt: skip
        overall = [{(e.row["candidate"], e.row["llm"]): e.row["overall"] for e in b.entries
                    if e.row["rank"] is not None} for b in (text, image)]  # fmt: skip
        both = sorted(set(overall[0]) & set(overall[1]), key=lambda k: (k[0], k[1] or ""))
        rho = None
        if len(both) >= 2:
            from scipy.stats import spearmanr  # here: at module level every command paid for it

            result = spearmanr([overall[0][k] for k in both], [overall[1][k] for k in both])
            rho = None if math.isnan(result.statistic) else float(result.statistic)
        out.append({"text_board": text.id, "image_board": image.id, "n": len(shared),
                    "alpha": alpha, "candidates": len(both), "rank_correlation": rho})  # fmt: skip
    return out


def judged_tells(package: PackageSource, boards: Sequence[Board],
                 detect: Sequence[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """The tells (:mod:`dmbench.judge.tells`) of every pair an output board or a detect run
    judged."""
    opened = open_package(package)
    package_dir = opened.path
    references = {r.record_id: r.reference for r in opened.records()}
    outputs = {(run.info.run_id, o.record_id): o.generated
               for run in opened.runs() for o in run.outputs()}  # fmt: skip
    judged = {(row["run_id"], row["record_id"]) for b in boards for e in b.entries
              if not e.control for row in e.judged}  # fmt: skip
    for entry in detect:
        for run_id in entry["judge_runs"]:
            judged |= {(row["instance"].split("/")[1], row["record_id"])
                       for row in find_judge_run(package_dir, run_id).rows()}  # fmt: skip
    pairs = [(run_id, record_id, references[record_id], outputs[(run_id, record_id)])
             for run_id, record_id in sorted(judged) if (run_id, record_id) in outputs]  # fmt: skip
    return tells_table(pairs)
