"""``dmbench check``: the downloader's one command, on a package folder or its zip.

Nothing is rebuilt, downloaded or read from beside the package: it is validated as shipped
(frictionless plus dmbench's checks, every listed file's hash), every published output is
re-scored from the package's own files with the NLTK data it carries and compared with the
stored scores (published and recomputed, every metric the package stores), and Tables 1-3 are
recomputed and compared with the shipped ``results/`` cell by cell. The verdict names every
difference; the check holds only when all of it does.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from dmbench.core.paths import shipped_nltk_dir
from dmbench.errors import DmbenchError, PackageError
from dmbench.metrics import PUBLISHED_METRIC, SCORE_NAMES
from dmbench.metrics.nltk_data import require_nltk_data, use_data_dirs
from dmbench.package import load_records, settle_interrupted_swap, validate_package
from dmbench.package.archive import extract_zip
from dmbench.package.descriptor import DESCRIPTOR, RESULTS_DIR
from dmbench.runs.rescoring import Rescored, rescore, select_runs
from dmbench.runs.scores import ScoreRow
from dmbench.runs.verify import VerifyReport, verify
from dmbench.tables.published_tables import write_published_tables

TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that does not hold, located as precisely as dmbench can."""

    check: str
    where: str
    shipped: str = ""
    recomputed: str = ""

    def render(self) -> str:
        if not self.shipped and not self.recomputed:
            return f"  DIFF [{self.check}] {self.where}"
        return (
            f"  DIFF [{self.check}] {self.where}: shipped {self.shipped}, "
            f"recomputed {self.recomputed}"
        )


@dataclass(slots=True)
class CheckReport:
    package: str
    lines: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    verification: VerifyReport | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.differences and self.verification is not None and self.verification.ok

    def render(self) -> str:
        out = [f"check {self.package}", *self.lines]
        out += [d.render() for d in self.differences]
        out.append(
            f"verdict: {'OK' if self.ok else 'FAILED'}"
            + ("" if self.ok else f" ({len(self.differences)} difference(s))")
        )
        return "\n".join(out)


@contextmanager
def opened(path: Path) -> Iterator[Path]:
    """The package folder ``path`` is, or the zip's contents extracted into a temporary one."""
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise PackageError(f"{path}: no such package folder or zip")
    with tempfile.TemporaryDirectory(prefix="dmbench-check-") as tmp:
        extract_zip(path, Path(tmp))
        yield Path(tmp)


def _validation(package_dir: Path, report: CheckReport) -> None:
    validation = validate_package(package_dir)
    for issue in validation.issues:
        report.differences.append(Difference(f"validate {issue.type}", f"{issue.location}: {issue.message}"))
    report.lines.append(
        f"validate: {'valid' if validation.valid else 'INVALID'} "
        f"({len(validation.checks)} checks, {len(validation.issues)} issue(s))"
    )


def _published_scores(package_dir: Path, report: CheckReport, rescored: Rescored) -> None:
    verification = verify(package_dir, rescored=rescored)
    report.verification = verification
    for run in verification.runs:
        for m in run.unexplained:
            report.differences.append(
                Difference(
                    "published score",
                    f"runs/{m.run_id}/scores.jsonl, record {m.record_id}, {m.field}",
                    repr(m.published),
                    repr(m.recomputed),
                )
            )
    exceptions = verification.explained_records
    report.lines.append(
        f"published scores: {verification.values_equal} of {verification.values_checked} "
        f"values reproduced within {verification.tolerance:g} ({verification.records} outputs, "
        f"{len(verification.runs)} runs), {len(exceptions)} explained exception(s)"
    )
    reasons = {(m.run_id, m.record_id): m.explained_by for r in verification.runs for m in r.explained}
    for run_id, record_id in exceptions:
        report.lines.append(f"  explained: {run_id} {record_id}: {reasons[(run_id, record_id)]}")


def _recomputed_scores(
    package_dir: Path, report: CheckReport, rescorings: dict[str, Rescored]
) -> None:
    """Every stored ``recomputed`` row must be what re-scoring its output gives now."""
    stored: dict[str, dict[tuple[str, str], ScoreRow]] = {}
    for run in select_runs(package_dir):
        for row in run.scores():
            if row.origin == "recomputed":
                stored.setdefault(row.metric, {})[(row.run_id, row.record_id)] = row
    for metric, rows in sorted(stored.items()):
        fresh = {
            (row.run_id, row.record_id): row
            for run_rows in rescorings[metric].rows.values()
            for row in run_rows
        }
        checked = equal = 0
        for key, old in rows.items():
            where = f"runs/{key[0]}/scores.jsonl, record {key[1]}, {metric}"
            new = fresh.get(key)
            if new is None:
                report.differences.append(Difference("recomputed score", f"{where}: no output"))
                continue
            for name in (*SCORE_NAMES, "error"):
                checked += 1
                a, b = getattr(old, name), getattr(new, name)
                if a == b if name == "error" else abs(a - b) <= TOLERANCE:
                    equal += 1
                else:
                    report.differences.append(
                        Difference("recomputed score", f"{where} {name}", repr(a), repr(b))
                    )
        report.lines.append(
            f"recomputed {metric} scores: {equal} of {checked} stored values reproduced"
        )


ROW_KEYS = ("reading", "dataset", "series", "origin", "metric", "element", "a", "b")


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _compare_csv(name: str, shipped: str, recomputed: str, report: CheckReport) -> int:
    """Cell by cell; returns the number of cells compared."""
    ours, theirs = _rows(recomputed), _rows(shipped)
    if not ours or not theirs or ours[0] != theirs[0]:
        report.differences.append(
            Difference(
                "table",
                f"{name} header",
                ",".join(theirs[0] if theirs else []),
                ",".join(ours[0] if ours else []),
            )
        )
        return 0
    header = ours[0]
    keys = [header.index(k) for k in ROW_KEYS if k in header]
    cells = 0
    for number in range(1, max(len(ours), len(theirs))):
        mine = ours[number] if number < len(ours) else None
        shipped_row = theirs[number] if number < len(theirs) else None
        label_row = mine or shipped_row or []
        label = ", ".join(f"{header[i]}={label_row[i]}" for i in keys if i < len(label_row))
        where = f"{name} row {number} ({label})"
        if mine is None or shipped_row is None:
            report.differences.append(
                Difference("table", f"{where}: {'extra' if mine is None else 'missing'} row")
            )
            continue
        for column, (a, b) in enumerate(zip(shipped_row, mine, strict=False)):
            cells += 1
            if a != b:
                report.differences.append(
                    Difference("table", f"{where}, column {header[column]}", a, b)
                )
        if len(shipped_row) != len(mine):
            report.differences.append(Difference("table", f"{where}: {len(shipped_row)} cells"))
    return cells


def _compare_json(name: str, shipped: str, recomputed: str, report: CheckReport) -> None:
    """Key by key; library ``versions`` that differ are noted, not failed: the numbers they
    produced are compared in the tables themselves."""
    theirs, ours = json.loads(shipped), json.loads(recomputed)
    if theirs.get("versions") != ours.get("versions"):
        report.lines.append(
            f"  note: {name} was written with {theirs.get('versions')}, "
            f"this check runs {ours.get('versions')}"
        )
    for key in sorted(set(theirs) | set(ours) - {"versions"}):
        if key != "versions" and theirs.get(key) != ours.get(key):
            report.differences.append(
                Difference("table", f"{name} key {key}", repr(theirs.get(key)), repr(ours.get(key)))
            )


def _tables(package_dir: Path, report: CheckReport) -> None:
    shipped_dir = package_dir / RESULTS_DIR
    with tempfile.TemporaryDirectory(prefix="dmbench-check-tables-") as tmp:
        written = write_published_tables(package_dir, Path(tmp))
        recomputed = {p.relative_to(tmp).as_posix(): p.read_text("utf-8") for p in written}
    shipped = {
        p.relative_to(shipped_dir).as_posix(): p
        for p in sorted(shipped_dir.rglob("*"))
        if p.is_file()
    } if shipped_dir.is_dir() else {}
    equal = cells = 0
    for rel in sorted(set(recomputed) | set(shipped)):
        name = f"{RESULTS_DIR}/{rel}"
        before = len(report.differences)
        if rel not in shipped:
            report.differences.append(Difference("table", f"{name}: not in the package"))
        elif rel not in recomputed:
            report.differences.append(Difference("table", f"{name}: not a table dmbench writes"))
        elif rel.endswith(".csv"):
            cells += _compare_csv(name, shipped[rel].read_text("utf-8"), recomputed[rel], report)
        elif rel.endswith(".json"):
            _compare_json(name, shipped[rel].read_text("utf-8"), recomputed[rel], report)
        elif shipped[rel].read_text("utf-8") != recomputed[rel]:
            report.differences.append(Difference("table", f"{name}: text differs from the recomputed one"))
        equal += len(report.differences) == before
    report.lines.append(
        f"tables: {equal} of {len(set(recomputed) | set(shipped))} files in {RESULTS_DIR}/ equal "
        f"to the recomputed ones ({cells} CSV cells compared)"
    )


def check(path: Path) -> CheckReport:
    """Check the package folder or zip at ``path``; see the module."""
    started = time.perf_counter()
    report = CheckReport(str(path))
    with opened(Path(path)) as package_dir:
        settle_interrupted_swap(package_dir)
        if not (package_dir / DESCRIPTOR).is_file():
            raise PackageError(
                f"{path}: no {DESCRIPTOR} at its root",
                hint="check takes the package zip of a deposit or a built package folder",
            )
        nltk_dir = shipped_nltk_dir(package_dir)
        use_data_dirs(package_dir)
        require_nltk_data(package_dir)
        report.lines.append(
            f"NLTK data: {nltk_dir.relative_to(package_dir)}/ of the package"
            if nltk_dir
            else "NLTK data: the machine's (the package carries none)"
        )
        _validation(package_dir, report)
        try:
            runs, records = select_runs(package_dir), load_records(package_dir)
            stored = {r.metric for run in runs for r in run.scores() if r.origin != "published"}
            rescorings = {m: rescore(records, runs, m) for m in sorted(stored | {PUBLISHED_METRIC})}
            _published_scores(package_dir, report, rescorings[PUBLISHED_METRIC])
            _recomputed_scores(package_dir, report, rescorings)
        except DmbenchError as exc:
            report.differences.append(Difference("scores", exc.one_line()))
        try:
            _tables(package_dir, report)
        except DmbenchError as exc:
            report.differences.append(Difference("tables", exc.one_line()))
    report.seconds = time.perf_counter() - started
    return report
