"""``dmbench verify``: do the published numbers follow from the published outputs?

Two independent checks per imported run:

1. every published per-record score is re-computed from the stored generated diagram and the
   reference with dmbench's metrik-4 and must agree within ``TOLERANCE`` (errors must be the
   same text);
2. the run's upstream summary (mean, population std, median, mean absolute deviation, n, the
   ten buckets and the failed count, spec F.3) is re-computed from its published per-record
   scores and must agree within ``TOLERANCE``.

A run dmbench generated (or imported from a bundle or an inspect log) has no published values:
its stored recomputed metrik-4 scores are re-computed from its outputs instead and must agree
within ``TOLERANCE``, so a submitted run's scores are checked as the paper's are; one not
scored yet is named.

A disagreement that is understood is listed in ``KNOWN_EXCEPTIONS`` with the reason; it is still
re-scored and reported with both values, never skipped, and it only excuses the fields it names
and only within its own bound. Anything else that disagrees fails the verification.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from dmbench.errors import PackageError
from dmbench.metrics import PUBLISHED_METRIC as METRIC
from dmbench.metrics import SCORE_NAMES
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.rescoring import Rescored, rescore
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import Run

TOLERANCE = 1e-9
ELEMENTS = SCORE_NAMES
SUMMARY_FLOATS = ("mean", "std", "median", "mad")
SUMMARY_COUNTS = ("n", "failed")
BUCKET_EDGES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)


@dataclass(frozen=True, slots=True)
class KnownException:
    """A published value that does not reproduce, for a reason found and written down: verify
    reports it as explained, not as a mismatch."""
    upstream_file: str
    upstream_record: str
    fields: tuple[str, ...]
    bound: float
    reason: str


KNOWN_EXCEPTIONS = (
    KnownException(
        upstream_file="zenodo_zero_shot_kimi-k2.6_cloud_2026-07-02T13-34-44Z.json",
        upstream_record="TSS",
        fields=("class_score", "attribute_score"),
        bound=1e-3,
        reason=(
            "near-tie in metrik-4's greedy class matching: two candidate pairs have similarities "
            "equal to within 1e-12, and numpy's dot product sums in a platform-dependent order, "
            "so a one-ulp difference picks the other pair (running the unmodified upstream code "
            "on Linux x86_64 gives dmbench's value, not the published one)"
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A published value that differs from the recomputed one beyond the tolerance, with what
    explains it if anything."""
    run_id: str
    record_id: str
    field: str
    published: Any
    recomputed: Any
    explained_by: str | None = None


@dataclass(slots=True)
class RunCheck:
    """How one run's published values compared with the recomputed ones: counts, the largest
    difference, the mismatches."""
    run_id: str
    upstream_file: str
    records: int
    values_checked: int = 0
    values_equal: int = 0
    max_abs_diff: float = 0.0
    summary_checked: int = 0
    summary_equal: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def unexplained(self) -> list[Mismatch]:
        return [m for m in self.mismatches if m.explained_by is None]

    @property
    def explained(self) -> list[Mismatch]:
        return [m for m in self.mismatches if m.explained_by is not None]

    @property
    def verdict(self) -> str:
        if self.unexplained:
            return "FAIL"
        return "ok (explained exception)" if self.explained else "ok"


@dataclass(slots=True)
class VerifyReport:
    """Every run's check and the tolerance used: what ``verify`` prints and the main job judges by."""
    runs: list[RunCheck]
    tolerance: float
    seconds: float = 0.0
    generated: list[RunCheck] = field(default_factory=list)
    """The runs without published values, their stored recomputed scores re-computed."""
    unscored: list[str] = field(default_factory=list)
    """Runs without published values nor stored metrik-4 scores: nothing to verify yet."""

    @property
    def ok(self) -> bool:
        checks = [*self.runs, *self.generated]
        return bool(self.runs) and not any(run.unexplained for run in checks)

    @property
    def values_checked(self) -> int:
        return sum(run.values_checked for run in self.runs)

    @property
    def values_equal(self) -> int:
        return sum(run.values_equal for run in self.runs)

    @property
    def records(self) -> int:
        return sum(run.records for run in self.runs)

    @property
    def explained_records(self) -> list[tuple[str, str]]:
        """The (run, record) pairs that disagree for a known, explained reason."""
        found = {(m.run_id, m.record_id) for run in self.runs for m in run.explained}
        return sorted(found)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "tolerance": self.tolerance,
            "runs": len(self.runs),
            "records": self.records,
            "values_checked": self.values_checked,
            "values_equal": self.values_equal,
            "explained_exceptions": [
                {
                    "run_id": run_id,
                    "record_id": record_id,
                    "reason": _reason(run_id, record_id, self),
                }
                for run_id, record_id in self.explained_records
            ],
            "per_run": [_run_json(run) for run in self.runs],
            "generated": [
                {key: value for key, value in _run_json(run).items() if key not in PUBLISHED_ONLY}
                for run in self.generated
            ],
            "unscored": list(self.unscored),
        }

    def render(self) -> str:
        header = (
            f"{'run':<38} {'records':>7} {'values ok':>11} {'max |diff|':>10} "
            f"{'summary ok':>11}  verdict"
        )
        lines = [header, "-" * len(header)]
        for run in self.runs:
            lines.append(
                f"{run.run_id:<38} {run.records:>7} "
                f"{f'{run.values_equal}/{run.values_checked}':>11} {run.max_abs_diff:>10.1e} "
                f"{f'{run.summary_equal}/{run.summary_checked}':>11}  {run.verdict}"
            )
        lines.append("")
        lines.append(
            f"{self.values_equal} of {self.values_checked} published score values "
            f"({self.records} records, {len(self.runs)} runs) reproduced within {self.tolerance:g}."
        )
        for run in self.runs:
            for m in run.mismatches:
                label = "explained" if m.explained_by else "MISMATCH"
                lines.append(
                    f"  {label}: {m.run_id} {m.record_id} {m.field}: "
                    f"published {m.published!r}, recomputed {m.recomputed!r}"
                )
        files = {run.run_id: run.upstream_file for run in self.runs}
        for run_id, record_id in self.explained_records:
            lines.append(
                f"  why {run_id} {record_id} (upstream {files[run_id]}): "
                f"{_reason(run_id, record_id, self)}"
            )
        lines.extend(self._render_generated())
        exceptions = len(self.explained_records)
        lines.append(
            f"verdict: {'OK' if self.ok else 'FAILED'}"
            f" ({exceptions} explained exception{'s' if exceptions != 1 else ''})"
        )
        return "\n".join(lines)


    def _render_generated(self) -> list[str]:
        """The runs without published values: their stored scores re-computed, or unscored."""
        lines = []
        if self.generated:
            checked = sum(run.values_checked for run in self.generated)
            equal = sum(run.values_equal for run in self.generated)
            lines.append(
                f"{equal} of {checked} stored recomputed score values of "
                f"{len(self.generated)} generated runs reproduced within {self.tolerance:g}:"
            )
            lines.extend(f"  {run.run_id}: {run.records} records, {run.verdict}"
                         for run in self.generated)  # fmt: skip
            lines.extend(
                f"  MISMATCH: {m.run_id} {m.record_id} {m.field}: "
                f"stored {m.published!r}, recomputed {m.recomputed!r}"
                for run in self.generated
                for m in run.mismatches
            )
        if self.unscored:
            lines.append(
                f"not verified, no {METRIC} scores yet (run `dmbench score --runs ...`): "
                + ", ".join(self.unscored)
            )
        return lines


def _reason(run_id: str, record_id: str, report: VerifyReport) -> str:
    for run in report.runs:
        for m in run.explained:
            if m.run_id == run_id and m.record_id == record_id:
                return m.explained_by or ""
    return ""


def summarise(values: Sequence[float], errors: int) -> dict[str, Any]:
    """Upstream's per-element run summary (spec F.3) of one score column."""
    n = len(values)
    if n == 0:
        return {
            "mean": None,
            "std": None,
            "median": None,
            "mad": None,
            "n": 0,
            "buckets": [0] * 10,
            "failed": errors,
        }
    mean = sum(values) / n
    buckets = [0] * 10
    for value in values:
        index = next((i for i in range(10) if BUCKET_EDGES[i] <= value < BUCKET_EDGES[i + 1]), 9)
        buckets[index] += 1
    return {
        "mean": mean,
        "std": statistics.pstdev(values) if n > 1 else 0.0,
        "median": statistics.median(values),
        "mad": sum(abs(v - mean) for v in values) / n,
        "n": n,
        "buckets": buckets,
        "failed": errors,
    }


def _known(run: Run, record_id: str, score_field: str, diff: float) -> str | None:
    upstream_file = Path((run.info.upstream or {}).get("path", "")).name
    upstream_record = record_id.split("-", 1)[1]
    for known in KNOWN_EXCEPTIONS:
        if (
            known.upstream_file == upstream_file
            and known.upstream_record == upstream_record
            and score_field in known.fields
            and diff <= known.bound
        ):
            return known.reason
    return None


def _close(first: float | None, second: float | None, tolerance: float) -> bool:
    if first is None or second is None:
        return first is second
    return abs(first - second) <= tolerance


def check_records(
    check: RunCheck,
    run: Run,
    published: list[ScoreRow],
    recomputed: Sequence[ScoreRow],
    tolerance: float,
) -> None:
    """Compare one run's published per-record scores with the recomputed ones, within
    ``tolerance``; each difference is a mismatch unless a known exception explains it."""
    ours = {r.record_id: r for r in recomputed}
    for row in published:
        mine = ours[row.record_id]
        for score_field in ELEMENTS:
            theirs, value = getattr(row, score_field), getattr(mine, score_field)
            diff = abs(theirs - value)
            check.values_checked += 1
            check.max_abs_diff = max(check.max_abs_diff, diff)
            if diff <= tolerance:
                check.values_equal += 1
            else:
                check.mismatches.append(
                    Mismatch(
                        run.info.run_id,
                        row.record_id,
                        score_field,
                        theirs,
                        value,
                        _known(run, row.record_id, score_field, diff),
                    )
                )
        if row.error != mine.error:
            check.mismatches.append(
                Mismatch(run.info.run_id, row.record_id, "error", row.error, mine.error)
            )


def check_summary(check: RunCheck, run: Run, published: list[ScoreRow], tolerance: float) -> None:
    """Re-derive the run's published summary (means, counts, buckets) from its published rows:
    the upstream artifacts must agree with themselves before dmbench trusts them."""
    upstream = (run.info.upstream or {}).get("summary") or {}
    errors = sum(r.error is not None for r in published)
    for element in ELEMENTS:
        ours = summarise([getattr(r, element) for r in published], errors)
        theirs = upstream.get(element, {})
        for key in (*SUMMARY_FLOATS, *SUMMARY_COUNTS, "buckets"):
            check.summary_checked += 1
            if key in SUMMARY_FLOATS:
                same = _close(theirs.get(key), ours[key], tolerance)
            else:
                same = theirs.get(key) == ours[key]
            if same:
                check.summary_equal += 1
            else:
                check.mismatches.append(
                    Mismatch(
                        run.info.run_id, "(summary)", f"{element}.{key}", theirs.get(key), ours[key]
                    )
                )


def verify(
    package: PackageSource,
    run_ids: Sequence[str] | None = None,
    workers: int | None = None,
    tolerance: float = TOLERANCE,
    rescored: Rescored | None = None,
) -> VerifyReport:
    """Re-score every published record and re-derive every published summary; see the module.

    ``rescored`` (``metrik-4`` rows of at least the published runs) is used instead of scoring
    again, so that the main job computes each pair once for verification and storage.
    """
    started = time.perf_counter()
    opened = open_package(package)
    selected = opened.select_runs(run_ids)
    runs = [r for r in selected if r.info.origin == "published"]
    if not runs:
        raise PackageError("no published runs to verify; run `dmbench build` first")
    stored = {r.info.run_id: _stored_scores(r) for r in selected if r.info.origin != "published"}
    generated = [r for r in selected if stored.get(r.info.run_id)]
    if rescored is None:
        rescored = rescore(opened.records(), [*runs, *generated], METRIC, workers)
    elif missing := [r for r in generated if r.info.run_id not in rescored.rows]:
        extra = rescore(opened.records(), missing, METRIC, workers)
        rescored = replace(rescored, rows={**rescored.rows, **extra.rows})
    checks = []
    for run in runs:
        published = [
            r for r in run.scores() if r.metric == METRIC and r.origin == "published"
        ]
        check = RunCheck(
            run_id=run.info.run_id,
            upstream_file=Path((run.info.upstream or {}).get("path", "")).name,
            records=len(published),
        )
        check_records(check, run, published, rescored.rows[run.info.run_id], tolerance)
        check_summary(check, run, published, tolerance)
        checks.append(check)
    generated_checks = []
    for run in generated:
        check = RunCheck(run.info.run_id, "", len(stored[run.info.run_id]))
        check_records(check, run, stored[run.info.run_id], rescored.rows[run.info.run_id],
                      tolerance)  # fmt: skip
        generated_checks.append(check)
    unscored = [run_id for run_id, rows in stored.items() if not rows]
    return VerifyReport(
        checks, tolerance, time.perf_counter() - started, generated_checks, unscored
    )


def _stored_scores(run: Run) -> list[ScoreRow]:
    """A run's stored recomputed metrik-4 rows (a run without published values has only these)."""
    return [r for r in run.scores() if r.metric == METRIC and r.origin == "recomputed"]


PUBLISHED_ONLY = ("upstream_file", "summary_checked", "summary_equal")
"""What a run check says only of a published run: a generated run has no upstream file and no
published summary."""


def _run_json(run: RunCheck) -> dict[str, Any]:
    """One run's check as ``verify --format json`` prints it."""
    return {
        "run_id": run.run_id,
        "upstream_file": run.upstream_file,
        "records": run.records,
        "values_checked": run.values_checked,
        "values_equal": run.values_equal,
        "max_abs_diff": run.max_abs_diff,
        "summary_checked": run.summary_checked,
        "summary_equal": run.summary_equal,
        "verdict": run.verdict,
        "mismatches": [asdict(m) for m in run.mismatches],
    }
