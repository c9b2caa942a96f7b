"""``dmbench check``: the downloader's one command, on a package folder or its zip.

A zip is first compared with a checksum from outside it, the anchor that a forger who edits
the package and its inner hashes together cannot move: ``SHA256SUMS`` beside the zip (the
deposit ships one) and a ``--sha256`` or ``--md5`` the user copied from the record page.
Then nothing is rebuilt, downloaded or read from beside the package: it is validated as shipped
(frictionless plus dmbench's checks, every listed file's hash), every published output is
re-scored from the package's own files with the NLTK data it carries and compared with the
stored scores (published and recomputed, every metric the package stores), and Tables 1-3 are
recomputed and compared with the shipped ``results/`` cell by cell. PlantUML's verdict
(``results/validity.*``) is the one table not recomputed, since drawing needs Java: it is held
by its hash and schema like every listed file, and redrawn only on request (``--plantuml``).
The verdict names every difference; the check holds only when all of it does. Differences that
can follow from an earlier one (a missing file makes every score read from it differ) are
grouped under it. Every refusal, a zip that cannot be opened included, ends in a verdict line
that names its cause, and every path in it is a path inside the package.

A package that holds together but was compared with no outside checksum (a folder, a zip with
no ``SHA256SUMS`` beside it) is only consistent: a forger who edits files and their hashes
together makes one too. Its verdict says so and has an exit code of its own, unless the user
accepts that (``no_anchor``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from dmbench.core.csvio import read_csv
from dmbench.core.hashing import file_digest
from dmbench.core.paths import shipped_nltk_dir
from dmbench.errors import DmbenchError, MissingPrerequisiteError, PackageError
from dmbench.metrics import PUBLISHED_METRIC, SCORE_NAMES
from dmbench.metrics.nltk_data import require_nltk_data, use_data_dirs
from dmbench.package import load_records, settle_interrupted_swap, validate_package
from dmbench.package.descriptor import DESCRIPTOR, RESULTS_DIR
from dmbench.package.tables import run_tables
from dmbench.package.zipped import SUMS_FILE, opened_package
from dmbench.render import LAYOUT, PLANTUML_VERSION
from dmbench.runs.rescoring import Rescored, rescore, select_runs
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import RUNS_DIR
from dmbench.runs.verify import VerifyReport, verify
from dmbench.sources.records import RECORDS_PATH
from dmbench.tables.published_tables import published_tables, write_published_tables
from dmbench.tables.validity import VALIDITY_FILES, validity_table, write_validity

TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that does not hold, located as precisely as dmbench can."""

    check: str
    where: str
    shipped: str = ""
    recomputed: str = ""
    cause: bool = False
    """An anchor or validation finding, which later differences may follow from."""

    def summary(self) -> str:
        if not self.shipped and not self.recomputed:
            return f"[{self.check}] {self.where}"
        return f"[{self.check}] {self.where}: shipped {self.shipped}, recomputed {self.recomputed}"

    def render(self) -> str:
        return f"  DIFF {self.summary()}"


EXIT_FAILED = 1
EXIT_NOT_ANCHORED = 3
"""``check``'s exit code for a package that holds together but was compared with no outside
checksum (2 is click's usage error)."""
NOT_ANCHORED = (
    "CONSISTENT, NOT ANCHORED: pass --md5 from the record page, or put SHA256SUMS beside the zip"
)


@dataclass(slots=True)
class CheckReport:
    """The downloader's check as data: what was found, how it differs from the published
    files, and whether it holds and is anchored."""
    package: str
    lines: list[str] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    verification: VerifyReport | None = None
    seconds: float = 0.0
    anchored: bool = False
    """A checksum from outside the package (SHA256SUMS, --sha256, --md5) matched the zip."""
    accept_unanchored: bool = False
    """The user accepts a check with no outside anchor (``--no-anchor``)."""
    hint: str = ""
    """What the person holding the package can do about a failure."""

    @property
    def consistent(self) -> bool:
        """Everything in the package holds together (anchored or not)."""
        return not self.differences and self.verification is not None and self.verification.ok

    @property
    def ok(self) -> bool:
        return self.consistent and (self.anchored or self.accept_unanchored)

    @property
    def exit_code(self) -> int:
        if self.ok:
            return 0
        return EXIT_NOT_ANCHORED if self.consistent else EXIT_FAILED

    @property
    def verdict(self) -> str:
        if self.ok:
            return "OK" if self.anchored else "OK (not anchored, as --no-anchor accepts)"
        if self.consistent:
            return NOT_ANCHORED
        causes = [d for d in self.differences if d.cause]
        cells = [d for d in self.differences if not d.cause and (d.shipped or d.recomputed)]
        named = [d.summary() for d in [*causes[:1], *cells[:1]]] or [
            d.summary() for d in self.differences[:1]
        ]
        cause = "; first of what follows: ".join(named) or "the published scores were not re-scored"
        return f"FAILED ({len(self.differences)} difference(s)): {cause}"

    def render(self) -> str:
        out = [f"check {self.package}", *self.lines]
        causes = [d for d in self.differences if d.cause]
        following = [d for d in self.differences if not d.cause]
        out += [d.render() for d in causes]
        if causes and following:
            out.append(f"  which the following {len(following)} difference(s) may result from:")
            out += ["  " + d.render() for d in following]
        else:
            out += [d.render() for d in following]
        out.append(f"verdict: {self.verdict}")
        if not self.ok and self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)


HEX = {"sha256": re.compile(r"^[0-9a-f]{64}$"), "md5": re.compile(r"^[0-9a-f]{32}$")}


_GNU_LINE = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")
_BSD_LINE = re.compile(r"^SHA256 \((.+)\) = ([0-9a-fA-F]{64})$")


def _unescape(name: str) -> str:
    """A name as ``sha256sum`` escapes it on a line starting with a backslash."""
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "r": "\r"}.get(m.group(1), m.group(1)), name)


def listed_sums(sums: Path, target: Path) -> list[str]:
    """Every sha256 the list ``sums`` gives for the file ``target``, read as ``sha256sum -c``
    reads it: GNU lines (``HEX  name``, ``HEX *name`` for binary mode) and BSD tags, names
    escaped after a leading backslash, a line naming ``target`` when its name, taken relative
    to the list's folder, opens that file (so ``./name`` is ``name``). Improperly formatted lines are skipped, as ``sha256sum -c`` does
    without ``--strict``; a file listed twice is checked against each line."""
    found = []
    for line in sums.read_text("utf-8", errors="replace").splitlines():
        line = line.rstrip("\r")
        escaped = line.startswith("\\")
        body = line[1:] if escaped else line
        if (gnu := _GNU_LINE.match(body)) is not None:
            digest, name = gnu.groups()
        elif (bsd := _BSD_LINE.match(body)) is not None:
            name, digest = bsd.groups()
        else:
            continue
        name = _unescape(name) if escaped else name
        if _same_file(sums.parent / name, target):
            found.append(digest.lower())
    return found


def _same_file(listed: Path, target: Path) -> bool:
    """Whether the name a line gives opens ``target``, as it does for ``sha256sum -c``."""
    try:
        return listed.exists() and os.path.samefile(listed, target)
    except OSError:
        return False


def _anchors(path: Path, sha256: str | None, md5: str | None) -> list[tuple[str, str, str]]:
    """(where it comes from, algorithm, expected hex) for each outside checksum of ``path``;
    an empty expected value when ``SHA256SUMS`` beside it does not list it."""
    given = [("--sha256", "sha256", sha256), ("--md5", "md5", md5)]
    found = []
    for option, algorithm, value in given:
        if value is None:
            continue
        value = value.strip().lower().removeprefix(f"{algorithm}:")
        if not HEX[algorithm].match(value):
            raise PackageError(f"{option} {value!r} is not a {algorithm} in hex")
        if path.is_dir():
            raise PackageError(f"{option} compares a zip's checksum; {path} is a folder")
        found.append((option, algorithm, value))
    sums = path.parent / SUMS_FILE
    if path.is_file() and sums.is_file():
        listed = listed_sums(sums, path)
        source = f"{SUMS_FILE} beside the zip"
        found += [(source, "sha256", value) for value in listed] or [(source, "sha256", "")]
    return found


def _anchor(path: Path, report: CheckReport, sha256: str | None, md5: str | None) -> None:
    anchors = _anchors(path, sha256, md5)
    if not anchors:
        report.lines.append(
            "anchor: none (no SHA256SUMS beside it, no --sha256/--md5): the package is checked "
            "against its own hashes only"
            if path.is_file()
            else "anchor: none (a folder; anchors are the checksums of a zip)"
        )
        return
    digests: dict[str, str] = {}
    for source, algorithm, expected in anchors:
        if not expected:
            report.differences.append(
                Difference("anchor", f"{source} does not list {path.name}", cause=True)
            )
            continue
        actual = digests.get(algorithm) or digests.setdefault(algorithm, file_digest(path, algorithm))
        if actual == expected:
            report.lines.append(f"anchor: {path.name} has the {algorithm} {source} gives")
        else:
            report.differences.append(
                Difference(
                    "anchor",
                    f"{path.name}: its {algorithm} is {actual}, {source} gives {expected}; "
                    "this is not the file the record lists",
                    cause=True,
                )
            )
    report.anchored = not any(d.check == "anchor" for d in report.differences)


def _validation(package_dir: Path, report: CheckReport) -> None:
    validation = validate_package(package_dir)
    derived = []
    for issue in validation.issues:
        if issue.type == "derived-table":  # validate's hint is a maintainer's: rebuild it
            derived.append(issue.location)
            report.differences.append(
                Difference(
                    f"validate {issue.type}",
                    f"{issue.location}: differs from what {RUNS_DIR}/ holds, from which it is "
                    "derived",
                    cause=True,
                )
            )
            continue
        report.differences.append(
            Difference(f"validate {issue.type}", f"{issue.location}: {issue.message}", cause=True)
        )
    report.lines.append(
        f"validate: {'valid' if validation.valid else 'INVALID'} "
        f"({len(validation.checks)} checks, {len(validation.issues)} issue(s))"
    )
    if derived:
        _derived_cells(package_dir, derived, report)


def _derived_cells(package_dir: Path, names: list[str], report: CheckReport) -> None:
    """The cells of the derived tables ``names`` that differ from what ``runs/`` holds."""
    order = {row["record_id"]: i for i, (_, row) in enumerate(read_csv(package_dir / RECORDS_PATH))}
    derived = run_tables(package_dir, order)
    for name in names:
        if name in derived and (package_dir / name).is_file():
            shipped = (package_dir / name).read_text("utf-8")
            _compare_csv(name, shipped, derived[name], report, "derived table")


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
    scores: list[ScoreRow], report: CheckReport, rescorings: dict[str, Rescored]
) -> None:
    """Every stored ``recomputed`` row must be what re-scoring its output gives now."""
    stored: dict[str, dict[tuple[str, str], ScoreRow]] = {}
    for row in scores:
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


ROW_KEYS = (
    "run_id", "record_id", "reading", "dataset", "series", "origin", "metric", "element", "a", "b"
)


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def _compare_csv(
    name: str, shipped: str, recomputed: str, report: CheckReport, check: str = "table"
) -> int:
    """Cell by cell; returns the number of cells compared."""
    ours, theirs = _rows(recomputed), _rows(shipped)
    if not ours or not theirs or ours[0] != theirs[0]:
        report.differences.append(
            Difference(
                check,
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
                Difference(check, f"{where}: {'extra' if mine is None else 'missing'} row")
            )
            continue
        for column, (a, b) in enumerate(zip(shipped_row, mine, strict=False)):
            cells += 1
            if a != b:
                report.differences.append(
                    Difference(check, f"{where}, column {header[column]}", a, b)
                )
        if len(shipped_row) != len(mine):
            report.differences.append(Difference(check, f"{where}: {len(shipped_row)} cells"))
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
    for key in sorted((set(theirs) | set(ours)) - {"versions"}):
        if theirs.get(key) != ours.get(key):
            report.differences.append(
                Difference("table", f"{name} key {key}", repr(theirs.get(key)), repr(ours.get(key)))
            )


def _compare_files(
    shipped: dict[str, Path], recomputed: dict[str, str], names: set[str], report: CheckReport
) -> tuple[int, int]:
    """Compare the ``names`` (paths under ``results/``); the files equal and CSV cells compared."""
    equal = cells = 0
    for rel in sorted(names):
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
    return equal, cells


def _tables(package_dir: Path, report: CheckReport, plantuml: bool) -> None:
    shipped_dir = package_dir / RESULTS_DIR
    with tempfile.TemporaryDirectory(prefix="dmbench-check-tables-") as tmp:
        written = write_published_tables(published_tables(package_dir), Path(tmp))
        recomputed = {p.relative_to(tmp).as_posix(): p.read_text("utf-8") for p in written}
    shipped = {
        p.relative_to(shipped_dir).as_posix(): p
        for p in sorted(shipped_dir.rglob("*"))
        if p.is_file()
    } if shipped_dir.is_dir() else {}
    verdict = set(shipped) & set(VALIDITY_FILES)
    compared = set(recomputed) | set(shipped) - verdict
    equal, cells = _compare_files(shipped, recomputed, compared, report)
    report.lines.append(
        f"tables: {equal} of {len(compared)} files in {RESULTS_DIR}/ equal "
        f"to the recomputed ones ({cells} CSV cells compared)"
    )
    if verdict:
        _plantuml_verdict(package_dir, shipped, verdict, report, plantuml)


def _plantuml_verdict(
    package_dir: Path, shipped: dict[str, Path], verdict: set[str], report: CheckReport,
    plantuml: bool,
) -> None:
    """Redrawn only when asked: it needs Java and Graphviz, which the offline check does not."""
    names = ", ".join(f"{RESULTS_DIR}/{n}" for n in sorted(verdict))
    if not plantuml:
        report.lines.append(
            f"tables: PlantUML's verdict ({names}) is not recomputed offline (drawing needs Java "
            "and Graphviz; --plantuml redraws it); only its hash, its schema and the anchors "
            "hold it"
        )
        return
    with tempfile.TemporaryDirectory(prefix="dmbench-check-validity-") as tmp:
        written = write_validity(validity_table(package_dir), Path(tmp))
        recomputed = {p.name: p.read_text("utf-8") for p in written}
    wanted = verdict | set(recomputed)
    equal, cells = _compare_files(shipped, recomputed, wanted, report)
    report.lines.append(
        f"tables: PlantUML's verdict redrawn (PlantUML {PLANTUML_VERSION}, {LAYOUT} layout): "
        f"{equal} of {len(wanted)} files equal ({cells} CSV cells compared)"
    )


def check(
    path: Path,
    sha256: str | None = None,
    md5: str | None = None,
    plantuml: bool = False,
    no_anchor: bool = False,
) -> CheckReport:
    """Check the package folder or zip at ``path`` (anchored on ``sha256``/``md5`` and a
    ``SHA256SUMS`` beside a zip); see the module. ``plantuml`` also redraws PlantUML's verdict
    (Java and Graphviz needed); ``no_anchor`` accepts a check that no outside checksum anchors.
    Nothing is raised: every refusal is a difference of the report, which names its cause."""
    started = time.perf_counter()
    path = Path(path)
    report = CheckReport(str(path), accept_unanchored=no_anchor)
    try:
        if not path.exists():
            raise PackageError(f"{path}: no such package folder or zip")
        _anchor(path, report, sha256, md5)
        _check_opened(path, report, plantuml)
    except DmbenchError as exc:
        report.differences.append(Difference("refused", exc.one_line(), cause=True))
    report.hint = _hint(path, report)
    report.seconds = time.perf_counter() - started
    return report


def _hint(path: Path, report: CheckReport) -> str:
    """What the person holding the package can do, offline, about the verdict."""
    if report.consistent:
        return (
            "compare the zip's md5 with the one the record page lists: "
            f"`dmbench check {path.name} --md5 HEX`, or run check beside the record's "
            f"{SUMS_FILE}"
            if path.is_file()
            else "a folder is only as good as the zip it came from: check that zip with the md5 "
            "the record page lists (`dmbench check ZIP --md5 HEX`), or pass --no-anchor"
        )
    if any(d.check == "anchor" for d in report.differences):
        return (
            "this zip is not the file the record lists: download it again from the record page "
            "and check it with the md5 the page lists (--md5)"
        )
    if report.anchored:
        return (
            "the zip is the one its checksum lists, so either that checksum was replaced with "
            "the zip or the deposit itself is at fault: compare the zip's md5 with the one the "
            "record page lists (--md5); if they agree, tell the record's authors"
        )
    return (
        "download the zip again from the record page and check it with the md5 the page lists "
        "(--md5), or beside the record's SHA256SUMS"
    )


def _check_opened(path: Path, report: CheckReport, plantuml: bool) -> None:
    with opened_package(path) as package_dir:
        try:
            _check_package(path, package_dir, report, plantuml)
        except DmbenchError as exc:
            report.differences.append(Difference("refused", exc.one_line(), cause=True))
        if not path.is_dir():  # name paths inside the package, not the extraction folder
            inside = f"{package_dir}/"
            report.differences = [
                Difference(
                    d.check,
                    d.where.replace(inside, ""),
                    d.shipped.replace(inside, ""),
                    d.recomputed.replace(inside, ""),
                    d.cause,
                )
                for d in report.differences
            ]
            report.lines = [line.replace(inside, "") for line in report.lines]


def _check_package(path: Path, package_dir: Path, report: CheckReport, plantuml: bool) -> None:
    settle_interrupted_swap(package_dir)
    if not (package_dir / DESCRIPTOR).is_file():
        raise PackageError(
            f"{path}: no {DESCRIPTOR} at its root",
            hint="check takes the package zip of a deposit or a built package folder",
        )
    nltk_dir = shipped_nltk_dir(package_dir)
    use_data_dirs(package_dir)
    nltk_usable = _nltk_data(package_dir, report)
    report.lines.append(
        f"NLTK data: {nltk_dir.relative_to(package_dir)}/ of the package"
        if nltk_dir
        else "NLTK data: the machine's (the package carries none)"
    )
    _validation(package_dir, report)
    if nltk_usable:
        try:
            runs, records = select_runs(package_dir), load_records(package_dir)
            scores = [row for run in runs for row in run.scores()]
            stored = {r.metric for r in scores if r.origin != "published"}
            rescorings = {m: rescore(records, runs, m) for m in sorted(stored | {PUBLISHED_METRIC})}
            _published_scores(package_dir, report, rescorings[PUBLISHED_METRIC])
            _recomputed_scores(scores, report, rescorings)
        except DmbenchError as exc:
            report.differences.append(Difference("scores", exc.one_line()))
    try:
        _tables(package_dir, report, plantuml)
    except DmbenchError as exc:
        report.differences.append(Difference("tables", exc.one_line()))


def _nltk_data(package_dir: Path, report: CheckReport) -> bool:
    """Whether metrik-4 can re-score with the NLTK data found: a file that differs from its pin
    is a cause (named inside the package) and nothing is re-scored with it."""
    try:
        require_nltk_data(package_dir)
    except MissingPrerequisiteError as exc:
        report.differences.append(Difference("NLTK data", str(exc), cause=True))
        report.lines.append("published scores: not re-scored (the NLTK data is not usable)")
        return False
    return True
