"""``export-run`` / ``import-run``: a run travels between packages as a checked bundle,
reproduced byte for byte; a changed, foreign or malformed bundle is refused in one line and
changes nothing."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import copy_package

from dmbench import Package
from dmbench.cli import main
from dmbench.package import validate_package
from dmbench.runs.store import list_runs

SCRIPT = "#!/bin/sh\ncat >/dev/null\nprintf '@startuml\\nclass %s\\n@enduml\\n' \"$DMBENCH_RECORD_ID\" | tr -d -\n"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path, str]:
    """(package with a generated run, its bundle, the run id)."""
    root = tmp_path_factory.mktemp("bundles")
    package = copy_package(root / "source")
    script = root / "ids.sh"
    script.write_text(SCRIPT, "utf-8")
    (run,) = Package(package).generate(command=f"sh {script}", name="ids", dataset="ds2")
    bundle = root / "run.zip"
    result = CliRunner().invoke(main, ["export-run", run.info.run_id, "--out", str(bundle),
                                       "--package", str(package)])  # fmt: skip
    assert result.exit_code == 0, result.output
    return package, bundle, run.info.run_id


def _import(package: Path, bundle: Path):
    return CliRunner().invoke(main, ["import-run", str(bundle), "--package", str(package)])


def test_export_then_import_reproduces_the_run_byte_for_byte_and_scores_it(exported, tmp_path):
    source, bundle, run_id = exported
    target = copy_package(tmp_path / "target")
    result = _import(target, bundle)
    assert result.exit_code == 0, result.output
    assert f"imported {run_id}: 8 records" in result.output
    assert "re-scored with metrik-4:" in result.output
    assert "re-scored with metrik-4-standard:" in result.output
    for name in ("run.json", "outputs.jsonl"):
        assert (target / "runs" / run_id / name).read_bytes() == (
            source / "runs" / run_id / name
        ).read_bytes()
    (run,) = [r for r in list_runs(target) if r.info.run_id == run_id]
    assert {row.metric for row in run.scores()} == {"metrik-4", "metrik-4-standard"}
    assert validate_package(target).valid
    again = _import(target, bundle)
    assert again.exit_code == 1 and "already holds run" in again.output


def test_the_same_run_exports_to_the_same_bytes(exported, tmp_path):
    source, bundle, run_id = exported
    second = Package(source).export_run(run_id, tmp_path / "again.zip")
    assert second.read_bytes() == bundle.read_bytes()


def _tampered(bundle: Path, out: Path, change, fix_hashes: bool) -> Path:
    """A copy of ``bundle`` with ``change(members)`` applied (and its hashes made to match)."""
    with zipfile.ZipFile(bundle) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    manifest = json.loads(members["bundle.json"])
    if fix_hashes:
        for name in ("run.json", "outputs.jsonl"):
            manifest["files_sha256"][name] = hashlib.sha256(members[name]).hexdigest()
        members["bundle.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out


def _changed_output(members):
    members["outputs.jsonl"] = members["outputs.jsonl"].replace(b"class ", b"class Evil", 1)


def _foreign_record(members):
    manifest = json.loads(members["bundle.json"])
    rows = [json.loads(line) for line in members["outputs.jsonl"].splitlines()]
    old = rows[0]["record_id"]
    rows[0]["record_id"] = "ds2-NotHere"
    digests = manifest["records_text_sha256"]
    digests["ds2-NotHere"] = digests.pop(old)
    members["bundle.json"] = json.dumps(manifest).encode()
    members["outputs.jsonl"] = b"".join(json.dumps(r, sort_keys=True).encode() + b"\n" for r in rows)


def _other_text(members):
    manifest = json.loads(members["bundle.json"])
    first = next(iter(manifest["records_text_sha256"]))
    manifest["records_text_sha256"][first] = "0" * 64
    members["bundle.json"] = json.dumps(manifest).encode()


def _bad_schema(members):
    run = json.loads(members["run.json"])
    run["candidate"] = "../../tmp/x"
    members["run.json"] = json.dumps(run).encode()


def _extra_member(members):
    members["../escape.txt"] = b"x"


@pytest.mark.parametrize(
    ("change", "fix_hashes", "message"),
    [
        (_changed_output, False, "outputs.jsonl does not match its sha256 in bundle.json"),
        (_foreign_record, True, "record 'ds2-NotHere' is not a record of this package"),
        (_other_text, False, "has another text in this package"),
        (_bad_schema, True, "run.json: candidate: '../../tmp/x' does not match"),
        (_extra_member, False, "not a run bundle"),
    ],
)
def test_a_changed_foreign_or_malformed_bundle_is_refused_in_one_line(
    exported, tmp_path, change, fix_hashes, message
):
    _source, bundle, run_id = exported
    target = copy_package(tmp_path / "target")
    before = sorted(p.name for p in (target / "runs").iterdir())
    bad = _tampered(bundle, tmp_path / "bad.zip", change, fix_hashes)
    result = _import(target, bad)
    assert result.exit_code == 1 and message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert sorted(p.name for p in (target / "runs").iterdir()) == before


def test_exporting_an_unknown_run_names_where_the_ids_are(exported, tmp_path):
    source, _bundle, _run_id = exported
    result = CliRunner().invoke(main, ["export-run", "nope", "--out", str(tmp_path / "x.zip"),
                                       "--package", str(source)])  # fmt: skip
    assert result.exit_code == 1 and "no run 'nope'" in result.output
