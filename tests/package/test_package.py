"""The built data package: 53 byte-exact records, all-or-nothing builds, and validation."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.core.csvio import read_csv, write_csv
from dmbench.errors import PackageError, SourceError
from dmbench.metrics import METRICS
from dmbench.package import build, load_records, validate_package
from dmbench.package.lock import package_lock
from dmbench.sources import BENCHMARK_REPO, pinned, read_verified

CORPORA = {
    "ds1": "Data/data-source-1/kaiser_clean.json",
    "ds2": "Data/data-source-2/reference_clean.json",
}


@pytest.fixture(scope="session")
def built(built_package: Path) -> Path:
    return built_package


@pytest.fixture()
def package_copy(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "package"
    shutil.copytree(built, copy)
    return copy


def _tree_digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


class TestRecords:
    def test_53_records_45_ds1_8_ds2(self, built: Path) -> None:
        records = load_records(built)
        assert len(records) == 53
        assert [r.dataset for r in records].count("ds1") == 45
        assert [r.dataset for r in records].count("ds2") == 8
        assert records[0].record_id == "ds1-AirTravel"

    def test_every_text_and_reference_is_byte_identical_to_the_pinned_corpus(
        self, built: Path, upstream_dir: Path
    ) -> None:
        """Each text and reference hashes like the string in the sha256-pinned upstream file."""
        stored = {r.record_id: r for r in load_records(built)}
        for dataset, path in CORPORA.items():
            pin = pinned(f"{BENCHMARK_REPO}/{path}")
            items = json.loads(read_verified(upstream_dir, pin))
            for item in items:
                record = stored[f"{dataset}-{item['id']}"]
                for ours, theirs in ((record.text, item["nlt"]), (record.reference, item["puml"])):
                    assert hashlib.sha256(ours.encode()).digest() == hashlib.sha256(
                        theirs.encode()
                    ).digest()
                assert record.source_sha256 == pin.sha256

    def test_frictionless_reads_the_same_bytes(self, built: Path) -> None:
        """What frictionless reads from the CSV is what dmbench wrote, newlines included."""
        from frictionless import Package

        rows = Package(str(built / "datapackage.json")).get_resource("records").read_rows()
        for row, record in zip(rows, load_records(built), strict=True):
            assert row["text"] == record.text
            assert row["reference"] == record.reference


class TestBuild:
    def test_frictionless_cli_accepts_the_package(self, built: Path) -> None:
        frictionless = Path(sys.executable).with_name("frictionless")
        result = subprocess.run(
            [str(frictionless), "validate", "datapackage.json"],
            cwd=built,
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout[-3000:]

    def test_descriptor_declares_v2_and_sha256_hashes(self, built: Path) -> None:
        descriptor = json.loads((built / "datapackage.json").read_text())
        assert descriptor["$schema"] == "https://datapackage.org/profiles/2.0/datapackage.json"
        names = [r["name"] for r in descriptor["resources"]]
        assert names == [
            "records", "prompts", "runs", "outputs", "scores", "judgements", "judge_controls",
            "judge_study", "files",
        ]  # fmt: skip
        for resource in descriptor["resources"]:
            data = (built / resource["path"]).read_bytes()
            assert resource["bytes"] == len(data)
            assert resource["hash"] == "sha256:" + hashlib.sha256(data).hexdigest()

    def test_altered_source_byte_fails_build_and_keeps_previous_package(
        self, package_copy: Path, upstream_dir: Path, tmp_path: Path
    ) -> None:
        """One altered byte in a mirrored file stops the build, naming it; nothing changes."""
        sources = tmp_path / "sources"
        shutil.copytree(upstream_dir, sources)
        target = sources / BENCHMARK_REPO / "Candidates/text2uml-kaiser/zero_shot/prompt.txt"
        data = bytearray(target.read_bytes())
        data[0] ^= 0x20
        target.write_bytes(bytes(data))
        before = _tree_digest(package_copy)
        result = CliRunner().invoke(
            main, ["build", "--sources", str(sources), "--package", str(package_copy)]
        )
        assert result.exit_code == 1
        assert "prompt.txt: sha256 mismatch" in result.output
        assert _tree_digest(package_copy) == before
        assert not list(package_copy.glob(".dmbench-build-*"))

    def test_build_api_raises_source_error(self, tmp_path: Path) -> None:
        with pytest.raises(SourceError, match="missing"):
            build(tmp_path / "pkg", tmp_path / "no-sources")


def _rewrite_csv_cell(path: Path, row_index: int, column: str, value: str) -> None:
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    rows[row_index + 1][rows[0].index(column)] = value
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def _messages(package: Path) -> str:
    report = validate_package(package)
    assert not report.valid
    return report.render()


class TestValidate:
    def test_built_package_is_valid_and_json_matches_library(self, built: Path) -> None:
        """`dmbench validate --json` prints exactly the library's report."""
        result = CliRunner().invoke(main, ["validate", str(built), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == validate_package(built).to_dict()

    def test_corrupt_row_is_reported_with_its_location(self, package_copy: Path) -> None:
        _rewrite_csv_cell(package_copy / "data/runs.csv", 3, "dataset", "ds9")
        message = _messages(package_copy)
        assert 'constraint "enum"' in message
        assert "data/runs.csv (resource runs), row 5, field dataset" in message

    def test_altered_text_fails_its_content_hash(self, package_copy: Path) -> None:
        _rewrite_csv_cell(package_copy / "data/records.csv", 0, "text", "changed")
        message = _messages(package_copy)
        assert "record ds1-AirTravel" in message
        assert "text does not match text_sha256" in message

    def test_wrong_resource_hash_is_reported(self, package_copy: Path) -> None:
        descriptor_path = package_copy / "datapackage.json"
        descriptor = json.loads(descriptor_path.read_text())
        descriptor["resources"][0]["hash"] = "sha256:" + "0" * 64
        descriptor_path.write_text(json.dumps(descriptor))
        assert "hash-count" in _messages(package_copy)

    def test_wrong_byte_count_is_reported(self, package_copy: Path) -> None:
        descriptor_path = package_copy / "datapackage.json"
        descriptor = json.loads(descriptor_path.read_text())
        descriptor["resources"][2]["bytes"] += 1
        descriptor_path.write_text(json.dumps(descriptor))
        assert "byte-count" in _messages(package_copy)

    def test_altered_run_file_fails_its_listed_hash(self, package_copy: Path) -> None:
        run_file = sorted((package_copy / "runs").glob("*/outputs.jsonl"))[0]
        run_file.write_bytes(run_file.read_bytes() + b"\n")
        message = _messages(package_copy)
        assert run_file.relative_to(package_copy).as_posix() in message
        assert "expected sha256" in message

    def test_unlisted_file_in_the_run_store_is_reported(self, package_copy: Path) -> None:
        stray = sorted((package_copy / "runs").iterdir())[0] / "notes.txt"
        stray.write_text("added by hand")
        message = _messages(package_copy)
        assert f"[file-unlisted] {stray.relative_to(package_copy).as_posix()}" in message

    def test_upstream_license_notices_travel_with_the_package(self, built: Path) -> None:
        descriptor = json.loads((built / "datapackage.json").read_text())
        paths = [lic["path"] for lic in descriptor["licenses"]]
        assert "licenses/Automated-DomainModel-Benchmark.LICENSE" in paths
        for path in paths[1:]:
            assert (built / path).read_text().startswith("MIT License")

    def test_run_store_and_tables_must_agree(self, package_copy: Path) -> None:
        """An output edited in runs/ but not in data/outputs.csv is reported against the table."""
        outputs = sorted((package_copy / "runs").glob("*/outputs.jsonl"))[0]
        lines = outputs.read_text().splitlines(keepends=True)
        first = json.loads(lines[0])
        first["generated"] = "@startuml\nclass Edited\n@enduml\n"
        outputs.write_text(json.dumps(first) + "\n" + "".join(lines[1:]))
        assert "[derived-table] data/outputs.csv: differs from what runs/ holds" in _messages(
            package_copy
        )

    def test_dangling_foreign_key_is_reported(self, package_copy: Path) -> None:
        _rewrite_csv_cell(package_copy / "data/outputs.csv", 5, "record_id", "ds1-Nowhere")
        message = _messages(package_copy)
        assert "record_id ('ds1-Nowhere',) has no row in records" in message
        assert "data/outputs.csv, line" in message

    def test_duplicate_key_is_reported(self, package_copy: Path) -> None:
        _rewrite_csv_cell(package_copy / "data/records.csv", 1, "record_id", "ds1-AirTravel")
        assert "duplicate-key" in _messages(package_copy)

    def test_run_json_against_its_json_schema(self, package_copy: Path) -> None:
        run_json = sorted((package_copy / "runs").glob("*/run.json"))[0]
        data = json.loads(run_json.read_text())
        data["candidate"] = "Oracle/../x"
        run_json.write_text(json.dumps(data))
        assert "candidate: 'Oracle/../x' does not match" in _messages(package_copy)

    def test_a_candidate_not_built_in_must_record_where_it_came_from(
        self, package_copy: Path
    ) -> None:
        run_json = sorted((package_copy / "runs").glob("*/run.json"))[0]
        data = json.loads(run_json.read_text())
        data["candidate"] = "oracle"
        run_json.write_text(json.dumps(data))
        assert "provenance: 'candidate' is a required property" in _messages(package_copy)

    def test_missing_package_says_what_to_do(self, tmp_path: Path) -> None:
        result = CliRunner().invoke(main, ["validate", str(tmp_path)])
        assert result.exit_code == 1
        assert "run `dmbench build` first" in result.output


def _generated_run(package: Path, outputs: bytes) -> Path:
    """A run as `dmbench generate` leaves it when killed: run.json without totals, outputs."""
    run_dir = package / "runs" / "rule_based__no-llm__ds2__run1__0123abcd"
    run_dir.mkdir(parents=True)
    info = {
        "run_id": run_dir.name,
        "candidate": "rule_based",
        "model": None,
        "dataset": "ds2",
        "run_index": 1,
        "origin": "generated",
        "canonical": False,
        "settings": {"uses_llm": False},
        "provenance": {},
        "started_utc": "2026-11-29T00:00:00.000000Z",
        "finished_utc": None,
        "upstream": None,
        "totals": {},
    }
    (run_dir / "run.json").write_text(json.dumps(info))
    (run_dir / "outputs.jsonl").write_bytes(outputs)
    return run_dir


def _output_line(record_id: str) -> bytes:
    row = {
        "record_id": record_id,
        "generated": "@startuml\nA -- B\n@enduml\n",
        "failed": False,
        "error": None,
        "elapsed_seconds": 0.5,
        "raw": "",
        "calls": [],
    }
    return (json.dumps(row) + "\n").encode()


class TestBuildKeepsData:
    def test_interrupted_generated_run_survives_a_rebuild(self, package_copy, upstream_dir):
        """A killed run (no totals, torn last line) is carried over, described as incomplete."""
        torn = _output_line("ds2-LabTracker") + _output_line("ds2-CelO")[:-9]
        run_dir = _generated_run(package_copy, torn)
        result = build(package_copy, upstream_dir)
        assert result.runs_carried_over == 1
        kept = (package_copy / "runs" / run_dir.name / "outputs.jsonl").read_bytes()
        assert kept == _output_line("ds2-LabTracker")
        rows = {r["run_id"]: r for _, r in read_csv(package_copy / "data/runs.csv")}
        assert rows[run_dir.name]["complete"] == "false"
        assert rows[run_dir.name]["n_records"] == "1"
        assert validate_package(package_copy).valid

    def test_failed_swap_restores_the_previous_package(
        self, package_copy, upstream_dir, monkeypatch
    ):
        """If moving the new runs/ into place fails, every old folder is put back."""
        _generated_run(package_copy, _output_line("ds2-LabTracker"))
        before = _tree_digest(package_copy)
        real_replace = os.replace

        def failing_replace(src, dst):
            if Path(dst) == package_copy.resolve() / "runs" and ".dmbench-build-" in str(src):
                raise OSError("disk full")
            return real_replace(src, dst)

        monkeypatch.setattr(os, "replace", failing_replace)
        with pytest.raises(OSError, match="disk full"):
            build(package_copy, upstream_dir)
        monkeypatch.undo()
        assert _tree_digest(package_copy) == before
        assert not list(package_copy.glob(".dmbench-*-*"))

    def test_second_writer_is_refused_while_the_package_is_locked(self, package_copy, upstream_dir):
        with package_lock(package_copy):
            with pytest.raises(PackageError, match="another dmbench command is writing"):
                build(package_copy, upstream_dir)


def test_csv_cells_round_trip_byte_exact(tmp_path: Path) -> None:
    """Carriage returns, quotes, commas and newlines come back exactly, also via frictionless."""
    from frictionless import Resource

    values = ["a\rb", 'say "hi", then\r\nleave', "trailing \n\n", " lead", ""]
    path = tmp_path / "t.csv"
    write_csv(path, ("id", "text"), [{"id": str(i), "text": v} for i, v in enumerate(values)])
    assert [row["text"] for _, row in read_csv(path)] == values
    rows = Resource(str(path)).read_rows()
    assert [row["text"] or "" for row in rows] == values


def test_scores_schema_names_every_registered_metric() -> None:
    """The scores table's metric enum is the metric registry: a metric that is registered but
    missing from the schema makes the main job's package invalid once it scores that metric."""
    schema = json.loads(
        resources.files("dmbench.package").joinpath("schemas/scores.schema.json").read_text()
    )
    (metric,) = [f for f in schema["fields"] if f["name"] == "metric"]
    assert set(metric["constraints"]["enum"]) == set(METRICS)
