"""Runs that travel: a run as a checked zip bundle, how a third party submits a result.

A bundle holds the run's ``run.json`` and ``outputs.jsonl`` byte for byte, and ``bundle.json``:
the sha256 of both files and, for every record the run covers, the sha256 of the record's text
in the package it came from. Reading one back checks all of it (the exact members, the hashes,
the run schema, every row) and that the records are the receiving package's, so a changed
output, a record of another corpus or a damaged file is refused in one line. Scores are not
carried: the receiving package computes its own.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench._version import __version__
from dmbench.core import atomic
from dmbench.core.hashing import sha256_bytes
from dmbench.errors import InputError
from dmbench.runs.jsonl import rows_of_bytes
from dmbench.runs.store import OUTPUTS_FILE, RUN_FILE, OutputRow, Run, RunInfo

BUNDLE_FILE = "bundle.json"
BUNDLE_FORMAT = "dmbench-run-bundle/1"
MEMBERS = (BUNDLE_FILE, RUN_FILE, OUTPUTS_FILE)
_EPOCH = (1980, 1, 1, 0, 0, 0)
"""Every member's timestamp: the same run exports to the same bytes."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """A bundle read and checked: the run's two files as they were exported."""

    run_id: str
    info: RunInfo
    run_json: bytes
    outputs_jsonl: bytes
    records: dict[str, str]


def export_run(run: Run, text_sha256: Mapping[str, str], out: Path) -> Path:
    """Write ``run`` as a bundle at ``out`` (atomically); ``text_sha256`` maps record ids to
    the package's text hashes."""
    run_json = (run.path / RUN_FILE).read_bytes()
    outputs = (run.path / OUTPUTS_FILE).read_bytes() if (run.path / OUTPUTS_FILE).exists() else b""
    covered = [row.record_id for row in run.outputs()]
    manifest = {
        "format": BUNDLE_FORMAT,
        "run_id": run.info.run_id,
        "exported_by": f"dmbench {__version__}",
        "files_sha256": {RUN_FILE: sha256_bytes(run_json), OUTPUTS_FILE: sha256_bytes(outputs)},
        "records_text_sha256": {record_id: text_sha256[record_id] for record_id in covered},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in (
            (BUNDLE_FILE, atomic.json_text(manifest).encode("utf-8")),
            (RUN_FILE, run_json),
            (OUTPUTS_FILE, outputs),
        ):
            member = zipfile.ZipInfo(name, _EPOCH)
            member.external_attr = 0o644 << 16
            member.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(member, data)
    atomic.write_bytes(Path(out), buffer.getvalue())
    return Path(out)


def read_bundle(
    path: Path,
    text_sha256: Mapping[str, str],
    check_run_json: Callable[[Any], str | None],
) -> Bundle:
    """The bundle at ``path``, checked against the receiving package's records (id -> text
    sha256) and its run schema (``check_run_json`` returns the first error or None)."""
    label = str(path)
    try:
        with zipfile.ZipFile(path) as archive:
            names = sorted(archive.namelist())
            if names != sorted(MEMBERS):
                raise InputError(f"{label}: not a run bundle (members {names}, expected "
                                 f"{sorted(MEMBERS)})")  # fmt: skip
            files = {name: archive.read(name) for name in MEMBERS}
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"{label}: not a readable zip ({exc})") from None
    manifest = _json(files[BUNDLE_FILE], f"{label}: {BUNDLE_FILE}")
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise InputError(f"{label}: {BUNDLE_FILE} is not a {BUNDLE_FORMAT} manifest")
    hashes = manifest.get("files_sha256") or {}
    for name in (RUN_FILE, OUTPUTS_FILE):
        if hashes.get(name) != sha256_bytes(files[name]):
            raise InputError(f"{label}: {name} does not match its sha256 in {BUNDLE_FILE}")
    data = _json(files[RUN_FILE], f"{label}: {RUN_FILE}")
    problem = check_run_json(data)
    if problem is not None:
        raise InputError(f"{label}: {RUN_FILE}: {problem}")
    info = RunInfo.from_dict(data)
    if info.run_id != manifest.get("run_id"):
        raise InputError(f"{label}: {RUN_FILE} is run {info.run_id!r}, the manifest names "
                         f"{manifest.get('run_id')!r}")  # fmt: skip
    records = manifest.get("records_text_sha256")
    if not isinstance(records, dict):
        raise InputError(f"{label}: {BUNDLE_FILE} lists no records_text_sha256")
    for record_id, digest in records.items():
        if record_id not in text_sha256:
            raise InputError(f"{label}: record {record_id!r} is not a record of this package")
        if text_sha256[record_id] != digest:
            raise InputError(f"{label}: record {record_id!r} has another text in this package")
    rows = _rows(files[OUTPUTS_FILE], f"{label}: {OUTPUTS_FILE}")
    covered = [row.record_id for row in rows]
    if sorted(covered) != sorted(records):
        raise InputError(f"{label}: {OUTPUTS_FILE} covers other records than {BUNDLE_FILE} lists")
    return Bundle(info.run_id, info, files[RUN_FILE], files[OUTPUTS_FILE], dict(records))


def _json(data: bytes, label: str) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{label}: not UTF-8 JSON ({exc})") from None


def _rows(data: bytes, label: str) -> list[OutputRow]:
    """Every output row, each record once; a bad line named by its number."""
    return rows_of_bytes(Path(label), data, OutputRow.from_dict, "output", key=_record_id)


def _record_id(row: OutputRow) -> str:
    return row.record_id
