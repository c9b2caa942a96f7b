"""``dmbench validate``: frictionless over the package, then the checks frictionless skips.

frictionless 5 does not enforce ``unique`` across composite keys in every case, never reads
non-tabular files, and knows nothing of dmbench's own invariants, so this adds: every listed
file's size and sha256, the text/reference/generated hashes inside the tables, the record
counts, every ``run.json`` against its JSON Schema, the reference diagrams parsing, and the
cross-resource keys (checked here too, so a report names the row).
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any

import jsonschema

from dmbench.core.csvio import read_csv
from dmbench.core.hashing import file_sha256, sha256_text
from dmbench.core.inputs import BOM
from dmbench.errors import PackageError
from dmbench.judge.runs import CRITERIA_FILE
from dmbench.package.descriptor import (
    DEPOSIT_FOLDER_NAMES,
    DESCRIPTOR,
    FILES_PATH,
    RESOURCES,
    SCHEMAS_DIR,
)
from dmbench.package.folder import settle_interrupted_swap
from dmbench.package.lock import LOCK_FILE
from dmbench.package.swap import PACKAGE_FOLDERS
from dmbench.package.tables import run_tables
from dmbench.package.zipped import opened_package
from dmbench.plantuml import READINGS, ParseError, parse
from dmbench.runs.opened import OpenedPackage, PackageSource
from dmbench.runs.store import JUDGE_RUN_PREFIX, RUN_FILE, RUNS_DIR
from dmbench.sources.records import DATASETS, RECORDS_PATH

RUN_JSON_SCHEMA = f"{SCHEMAS_DIR}/run.json-schema.json"
JUDGE_RUN_JSON_SCHEMA = f"{SCHEMAS_DIR}/judge-run.json-schema.json"


def run_json_validator(package_dir: Path | None = None) -> jsonschema.Draft202012Validator:
    """``run.json``'s schema: the copy a package carries, or dmbench's own for a run just made.

    ``validate`` holds a package to the schema it ships; ``generate`` checks a new run against
    the schema ``validate`` will later find in the package, before the package is refreshed.
    """
    if package_dir is None:
        text = resources.files("dmbench.package").joinpath(RUN_JSON_SCHEMA).read_text("utf-8")
    else:
        text = (package_dir / RUN_JSON_SCHEMA).read_text("utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


@dataclass(frozen=True, slots=True)
class Issue:
    """One thing wrong with a package: its kind, the message and where."""
    type: str
    message: str
    location: str


@dataclass(slots=True)
class Report:
    """Validation as data: every issue found and every check run, ``valid`` when none failed."""
    package: str
    issues: list[Issue] = field(default_factory=list)
    checks: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.issues

    def add(self, type_: str, message: str, location: str) -> None:
        self.issues.append(Issue(type_, message, location))

    def to_dict(self) -> dict[str, Any]:
        return {
            "package": self.package,
            "valid": self.valid,
            "checks": self.checks,
            "issues": [asdict(i) for i in self.issues],
        }

    def render(self) -> str:
        lines = [f"{self.package}: {'valid' if self.valid else 'INVALID'}"]
        lines += [f"  ok    {check}" for check in self.checks]
        lines += [f"  ERROR [{i.type}] {i.location}: {i.message}" for i in self.issues]
        return "\n".join(lines)


def _descriptor_resources(package_dir: Path, report: Report) -> list | None:
    """The descriptor's resources, read once for every check; None (reported) when the
    descriptor is not a JSON object with a list of resources."""
    try:
        raw = (package_dir / DESCRIPTOR).read_bytes()
        if raw.startswith(BOM):
            report.add("descriptor", "the file starts with a byte-order mark (BOM)", DESCRIPTOR)
            return None
        descriptor = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        report.add("descriptor", f"not a readable JSON document ({exc})", DESCRIPTOR)
        return None
    resources = descriptor.get("resources") if isinstance(descriptor, dict) else None
    if not isinstance(resources, list):
        report.add("descriptor", "not a data package: no list of resources", DESCRIPTOR)
        return None
    return resources


def _local_descriptor(package_dir: Path, descriptor_resources: list, report: Report) -> bool:
    """Whether every file the descriptor's resources name is a file inside the package.

    frictionless would fetch a resource ``path``, ``schema`` or ``dialect`` given as a URL, so
    a hostile descriptor could make validation reach any server or read any local file; such a
    package is reported invalid and frictionless not run. dmbench gives each resource one file,
    so a ``path`` that is a list is refused too.
    """
    local = True
    for index, resource in enumerate(descriptor_resources):
        where = f"{DESCRIPTOR}, resource {index}"
        if not isinstance(resource, dict):
            report.add("descriptor", "a resource is not a JSON object", where)
            local = False
            continue
        if isinstance(resource.get("path"), list):
            report.add("descriptor", "path is a list; each dmbench resource is one file", where)
            local = False
            continue
        for key in ("path", "schema", "dialect"):
            value = resource.get(key)
            if key != "path" and (value is None or isinstance(value, dict)):
                continue  # absent, or given inline
            if not _inside(package_dir, value):
                report.add("descriptor", f"{key} {value!r} is not a file inside the package", where)
                local = False
    return local


def _inside(package_dir: Path, path: object) -> bool:
    if not isinstance(path, str) or not path or "://" in path or path.startswith(("/", "\\")):
        return False
    parts = PurePosixPath(path).parts
    inside = (package_dir / path).resolve().is_relative_to(package_dir.resolve())
    return ".." not in parts and inside


def _frictionless(package_dir: Path, report: Report) -> None:
    from frictionless import FrictionlessException, Package, system

    # frictionless joins basepath and a relative descriptor path, so it is given absolute paths.
    base = package_dir.resolve()
    with system.use_context(trusted=False):
        try:
            result = Package(str(base / DESCRIPTOR), basepath=str(base)).validate()
        except FrictionlessException as exc:  # e.g. a schema file the descriptor names is gone
            report.add(f"frictionless:{exc.error.type}", exc.error.message, DESCRIPTOR)
            return
    for error in result.errors:
        report.add(f"frictionless:{error.type}", error.message, DESCRIPTOR)
    for task in result.tasks:
        for error in task.errors:
            location = f"{task.place} (resource {task.name})"
            row = getattr(error, "row_number", None)
            field = getattr(error, "field_name", None)
            location += f", row {row}" if row else ""
            location += f", field {field}" if field else ""
            report.add(f"frictionless:{error.type}", error.message, location)
    report.checks.append("frictionless validation (schemas, types, constraints, keys, hashes)")


#: What dmbench itself leaves at a package's root while working (its lock, its caches).
WORKING_FILES = (LOCK_FILE, ".dmbench-cache")
UNLISTED_SHOWN = 20
"""At most this many unlisted files are named one by one; the rest are counted."""


def is_deposit(listed: set[str]) -> bool:
    """A deposit's package (its files table lists the files beside the descriptor) stands
    alone, so every file in it must be listed; a working package shares its folder with the
    code of a checkout, so only its own folders are held to that."""
    return any("/" not in path for path in listed)


def _walk(root: Path, report: Report, package_dir: Path) -> Iterator[str]:
    """Every file under ``root`` (dot-files included) relative to the package; links are
    reported, never followed."""
    for folder, dirs, names in os.walk(root):
        base = Path(folder)
        for name in sorted(dirs):
            if (base / name).is_symlink():
                rel = (base / name).relative_to(package_dir).as_posix()
                report.add("symlink", "a link in a package is refused; replace it by the files", rel)
        dirs[:] = sorted(d for d in dirs if not (base / d).is_symlink())
        for name in sorted(names):
            rel = (base / name).relative_to(package_dir).as_posix()
            if (base / name).is_symlink():
                report.add("symlink", "a link in a package is refused; replace it by the file", rel)
            else:
                yield rel


def _present_files(package_dir: Path, listed: set[str], report: Report) -> Iterator[str]:
    """The files the package is answerable for: all of a deposit's, a working package's own
    folders (and the links at its root that stand for them)."""
    if is_deposit(listed):
        for rel in _walk(package_dir, report, package_dir):
            if rel.split("/", 1)[0] not in WORKING_FILES:
                yield rel
        return
    for folder in (*PACKAGE_FOLDERS, *DEPOSIT_FOLDER_NAMES):
        root = package_dir / folder
        if root.is_symlink():
            report.add("symlink", "a link in a package is refused; replace it by the folder", folder)
        elif root.is_dir() and (
            folder not in DEPOSIT_FOLDER_NAMES or any(p.startswith(f"{folder}/") for p in listed)
        ):
            for rel in _walk(root, report, package_dir):
                if not PurePosixPath(rel).name.startswith(".") or folder == "data":
                    yield rel


def _files(package_dir: Path, descriptor_resources: list, report: Report) -> None:
    rows = read_csv(package_dir / FILES_PATH)
    listed = {row["path"] for _, row in rows}
    tabular = {
        r["path"] for r in descriptor_resources if isinstance(r, dict) and isinstance(r.get("path"), str)
    }
    unlisted = [
        rel for rel in _present_files(package_dir, listed, report)
        if rel not in listed and rel not in tabular and rel != DESCRIPTOR
    ]
    for rel in unlisted[:UNLISTED_SHOWN]:
        report.add("file-unlisted", f"not listed in {FILES_PATH} nor a resource of {DESCRIPTOR}", rel)
    if len(unlisted) > UNLISTED_SHOWN:
        report.add(
            "file-unlisted", f"and {len(unlisted) - UNLISTED_SHOWN} more unlisted files", "(package)"
        )
    for line, row in rows:
        path = package_dir / row["path"]
        where = f"{FILES_PATH}, line {line}: {row['path']}"
        if not _inside(package_dir, row["path"]) or path.is_symlink():
            report.add("file-outside", "listed file is not a plain file inside the package", where)
            continue
        if not path.is_file():
            report.add("file-missing", "listed file is missing", where)
            continue
        if str(path.stat().st_size) != row["bytes"]:
            report.add(
                "file-bytes", f"expected {row['bytes']} bytes, found {path.stat().st_size}", where
            )
        actual = file_sha256(path)
        if actual != row["sha256"]:
            report.add("file-hash", f"expected sha256 {row['sha256']}, found {actual}", where)
    report.checks.append("size and sha256 of every listed file; no unlisted file, no link")


def _unique(rows, key: tuple[str, ...], path: str, report: Report) -> None:
    seen: dict[tuple[str, ...], int] = {}
    for line, row in rows:
        value = tuple(row[k] for k in key)
        if value in seen:
            report.add(
                "duplicate-key",
                f"{'/'.join(key)} {value} repeats line {seen[value]}",
                f"{path}, line {line}",
            )
        seen.setdefault(value, line)


def _tables(package_dir: Path, report: Report) -> None:
    tables = {spec.name: read_csv(package_dir / spec.path) for spec in RESOURCES}
    paths = {spec.name: spec.path for spec in RESOURCES}
    keys = {
        "records": ("record_id",),
        "prompts": ("name",),
        "runs": ("run_id",),
        "outputs": ("run_id", "record_id"),
        "scores": ("run_id", "record_id", "metric", "origin"),
        "judgements": ("judge_run_id", "instance", "judgement"),
        "judge_controls": ("judge_run_id", "instance", "judgement"),
        "judge_study": ("judge_run_id", "pair_id"),
        "files": ("path",),
    }
    for name, key in keys.items():
        _unique(tables[name], key, paths[name], report)

    counts = Counter(row["dataset"] for _, row in tables["records"])
    for dataset in DATASETS.values():
        if counts[dataset.name] != dataset.expected_records:
            report.add(
                "record-count",
                f"{dataset.name}: expected {dataset.expected_records} records, "
                f"found {counts[dataset.name]}",
                paths["records"],
            )
    for line, row in tables["records"]:
        for column in ("text", "reference"):
            if sha256_text(row[column]) != row[f"{column}_sha256"]:
                report.add(
                    "content-hash",
                    f"{column} does not match {column}_sha256",
                    f"{paths['records']}, line {line}, record {row['record_id']}",
                )
    for line, row in tables["outputs"]:
        if sha256_text(row["generated"]) != row["generated_sha256"]:
            report.add(
                "content-hash",
                "generated does not match generated_sha256",
                f"{paths['outputs']}, line {line}, run {row['run_id']}, record {row['record_id']}",
            )

    def foreign(child: str, fields: tuple[str, ...], parent: str, parent_fields: tuple[str, ...]):
        known = {tuple(r[f] for f in parent_fields) for _, r in tables[parent]}
        for line, row in tables[child]:
            value = tuple(row[f] for f in fields)
            if value not in known:
                report.add(
                    "foreign-key",
                    f"{'/'.join(fields)} {value} has no row in {parent}",
                    f"{paths[child]}, line {line}",
                )

    foreign("outputs", ("run_id",), "runs", ("run_id",))
    foreign("outputs", ("record_id",), "records", ("record_id",))
    foreign("scores", ("run_id", "record_id"), "outputs", ("run_id", "record_id"))
    foreign("judgements", ("run_id", "record_id"), "outputs", ("run_id", "record_id"))
    foreign("judgements", ("record_id",), "records", ("record_id",))
    foreign("judge_controls", ("record_id",), "records", ("record_id",))
    foreign("judge_study", ("record_id",), "records", ("record_id",))
    report.checks.append("unique keys, record counts, content hashes, foreign keys")

    for line, row in tables["records"]:
        for reading in READINGS:
            try:
                parse(row["reference"], reading)
            except ParseError as exc:
                report.add(
                    "reference-parse",
                    f"{reading} reading fails: {exc}",
                    f"{paths['records']}, line {line}, record {row['record_id']}",
                )
    report.checks.append("every reference diagram parses under both readings")


def _derived_tables(
    package_dir: Path, report: Report, opened: OpenedPackage | None = None
) -> None:
    """runs.csv, outputs.csv and scores.csv must say exactly what the run store says (as read
    into ``opened``, when the caller has read it since it last changed)."""
    records = read_csv(package_dir / RECORDS_PATH)
    order = {row["record_id"]: i for i, (_, row) in enumerate(records)}
    for path, text in run_tables(opened or package_dir, order).items():
        if (package_dir / path).read_bytes() != text.encode("utf-8"):
            report.add(
                "derived-table",
                f"differs from what {RUNS_DIR}/ holds; rerun the command that changed it, "
                "or `dmbench build`",
                path,
            )
    report.checks.append(f"runs, outputs, scores and judgements tables agree with {RUNS_DIR}/")


def _run_files(package_dir: Path, report: Report) -> None:
    validator = run_json_validator(package_dir)
    judge_validator = jsonschema.Draft202012Validator(
        json.loads((package_dir / JUDGE_RUN_JSON_SCHEMA).read_text("utf-8"))
    )
    for run_file in sorted((package_dir / RUNS_DIR).glob(f"*/{RUN_FILE}")):
        where = run_file.relative_to(package_dir).as_posix()
        judge_run = run_file.parent.name.startswith(JUDGE_RUN_PREFIX)
        raw = run_file.read_bytes()
        if raw.startswith(BOM):
            report.add("json", "the file starts with a byte-order mark (BOM)", where)
            continue
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            report.add("json", str(exc), where)
            continue
        for error in (judge_validator if judge_run else validator).iter_errors(data):
            path = "/".join(str(p) for p in error.absolute_path) or "(top)"
            report.add("json-schema", f"{path}: {error.message}", where)
        criteria = run_file.parent / CRITERIA_FILE
        if judge_run and criteria.is_file():
            expected = (data.get("settings") or {}).get("criteria_sha256")
            if file_sha256(criteria) != expected:
                report.add(
                    "criteria-hash",
                    f"{CRITERIA_FILE} does not have the criteria_sha256 {expected} of its run",
                    where,
                )
    report.checks.append(
        f"every {RUNS_DIR}/*/{RUN_FILE} against {RUN_JSON_SCHEMA} (judge runs: "
        f"{JUDGE_RUN_JSON_SCHEMA})"
    )


def validate_package(package: PackageSource) -> Report:
    """Validate the package folder, or a package zip as ``check`` reads it (only its declared
    files, at their declared sizes); an opened package's runs are not read again."""
    if isinstance(package, OpenedPackage):
        opened, package_dir = package, package.path
    else:
        opened, package_dir = None, Path(package)
    if package_dir.is_file():
        with opened_package(package_dir) as folder:
            return _validate(folder, str(package_dir), extracted=True)
    return _validate(package_dir, str(package_dir / DESCRIPTOR), opened=opened)


def _validate(
    package_dir: Path, label: str, extracted: bool = False, opened: OpenedPackage | None = None
) -> Report:
    """``extracted``: the folder is a zip's temporary extraction, never named in a message."""
    settle_interrupted_swap(package_dir)
    report = Report(label)
    if not (package_dir / DESCRIPTOR).is_file():
        report.add(
            "missing",
            f"no {DESCRIPTOR}; run `dmbench build` first, or give the package zip of a deposit",
            label,
        )
        return report
    listed = _descriptor_resources(package_dir, report)
    if listed is not None and _local_descriptor(package_dir, listed, report):
        _frictionless(package_dir, report)
    files = partial(_files, descriptor_resources=listed or [])
    derived = partial(_derived_tables, opened=opened)
    for check in (files, _tables, derived, _run_files):
        try:
            check(package_dir, report=report)
        except (OSError, KeyError, ValueError, csv.Error, PackageError) as exc:
            said = exc.one_line() if isinstance(exc, PackageError) else f"{type(exc).__name__}: {exc}"
            report.add("unreadable", said.replace(f"{package_dir}/", "") if extracted else said, label)
    return report
