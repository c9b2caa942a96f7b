"""Tampered and half-written packages: build keeps what it cannot read, refuses links, finishes
or rolls back a swap a kill interrupted, and no host secret reaches the package."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_ollama import Reply, diagram_reply
from test_package import _generated_run, _output_line, _tree_digest, built, package_copy

from dmbench.cli import main
from dmbench.errors import PackageError
from dmbench.package import archive as archive_module
from dmbench.package import validate_package
from dmbench.package.archive import extract_zip
from dmbench.package.build import build

__all__ = ["built", "package_copy"]  # fixtures shared with test_package


def test_a_run_folder_without_run_json_is_kept_and_named(package_copy, upstream_dir):
    run_dir = _generated_run(package_copy, _output_line("ds2-LabTracker"))
    (run_dir / "run.json").unlink()
    before = _tree_digest(package_copy)
    with pytest.raises(PackageError, match=rf"{run_dir.name}/run.json: cannot read this run"):
        build(package_copy, upstream_dir)
    assert _tree_digest(package_copy) == before  # outputs.jsonl included


def test_a_corrupt_run_json_stops_the_build_with_one_line(package_copy, upstream_dir):
    run_dir = _generated_run(package_copy, _output_line("ds2-LabTracker"))
    (run_dir / "run.json").write_text('{"origin": "generated", ', encoding="utf-8")
    result = CliRunner().invoke(
        main, ["build", "--package", str(package_copy), "--sources", str(upstream_dir)]
    )
    assert result.exit_code == 1
    assert "cannot read this run" in result.output and "hint:" in result.output
    assert "Traceback" not in result.output
    assert (run_dir / "outputs.jsonl").exists()


def test_a_link_in_a_run_folder_is_refused_not_followed(package_copy, upstream_dir):
    run_dir = _generated_run(package_copy, _output_line("ds2-LabTracker"))
    (run_dir / "notes.txt").symlink_to("/etc/passwd")
    with pytest.raises(PackageError, match="notes.txt: a link inside the run store is refused"):
        build(package_copy, upstream_dir)
    assert (run_dir / "notes.txt").is_symlink()
    assert "root:" not in (package_copy / "data" / "files.csv").read_text("utf-8")


KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
real_replace = os.replace
def replace(src, dst):
    real_replace(src, dst)
    dst = Path(dst).resolve()
    into = "package" if dst.parent == Path(sys.argv[1]).resolve() else dst.parent.name
    if dst.name.startswith(sys.argv[3]) and into.startswith(sys.argv[4]):
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
from dmbench.package import archive as archive_module
from dmbench.package.archive import extract_zip
from dmbench.package.build import build
build(Path(sys.argv[1]), Path(sys.argv[2]))
"""


def _killed_build(package: Path, upstream: Path, moved: str, into: str) -> None:
    """A build SIGKILLed right after ``os.replace`` moved ``moved`` (a name or its start) into
    ``into`` (the package, or the retired folder)."""
    script = textwrap.dedent(KILLED_BUILD)
    args = [sys.executable, "-c", script, str(package), str(upstream), moved, into]
    assert subprocess.run(args, check=False).returncode == -9


def test_a_swap_killed_halfway_is_rolled_back_by_the_next_command(package_copy, upstream_dir):
    run_dir = _generated_run(package_copy, _output_line("ds2-LabTracker"))
    before = _tree_digest(package_copy)
    _killed_build(package_copy, upstream_dir, "runs", "package")  # new runs/, old descriptor
    assert list(package_copy.glob(".dmbench-retired-*"))
    result = CliRunner().invoke(main, ["score", "--package", str(package_copy), "--runs", "x"])
    assert not list(package_copy.glob(".dmbench-*-*")), result.output
    assert _tree_digest(package_copy) == before
    assert (run_dir / "outputs.jsonl").read_bytes() == _output_line("ds2-LabTracker")


def test_a_swap_killed_after_its_commit_point_is_completed(package_copy, upstream_dir):
    _generated_run(package_copy, _output_line("ds2-LabTracker"))
    _killed_build(package_copy, upstream_dir, "datapackage.json", "package")
    assert list(package_copy.glob(".dmbench-retired-*"))
    result = build(package_copy, upstream_dir)
    assert result.runs_carried_over == 1
    assert not list(package_copy.glob(".dmbench-*-*"))
    assert validate_package(package_copy).valid


def test_tables_after_a_killed_build_are_the_tables_before_it(package_copy, upstream_dir, tmp_path):
    """A reader finishes the swap too: `tables` on a package lacking runs/ once wrote an
    empty Table 2 and exited 0."""
    for out in ("before", "after"):
        if out == "after":
            _killed_build(package_copy, upstream_dir, "runs", ".dmbench-retired-")
        result = CliRunner().invoke(
            main, ["tables", "--package", str(package_copy), "--out", str(tmp_path / out)]
        )
        assert result.exit_code == 0, result.output
    assert _tree_digest(tmp_path / "after") == _tree_digest(tmp_path / "before")
    assert not list(package_copy.glob(".dmbench-*-*"))


@pytest.mark.parametrize("command", ["validate", "check"])
def test_validate_and_check_settle_a_killed_build_first(package_copy, upstream_dir, command):
    _killed_build(package_copy, upstream_dir, "runs", ".dmbench-retired-")
    result = CliRunner().invoke(main, [command, str(package_copy)])
    assert ": valid" in result.output and "INVALID" not in result.output, result.output
    assert not list(package_copy.glob(".dmbench-*-*"))


@pytest.mark.parametrize(
    ("secret_host", "secret"),
    [("http://alice:S3cr3tPa55@", "S3cr3t"), ("/?api_key=K3yT0k3n#K3yFr4g", "K3y")],
    ids=["user-password", "query-fragment"],
)
def test_host_credentials_never_reach_the_package(
    package_copy, upstream_dir, fake_ollama, secret_host, secret
):
    """user:password, or a token in the query and fragment, of --host: the run works, and not one
    file of the package holds the secret, hidden files (the reply cache) included, also after a
    rebuild, nor does the command's output."""
    fake_ollama.responder = diagram_reply
    if secret_host.startswith("http://"):
        host = fake_ollama.url.replace("http://", secret_host)
    else:
        host = fake_ollama.url + secret_host
    result = CliRunner().invoke(
        main,
        [
            "generate", "--candidate", "calamo", "--model", "test-model", "--dataset", "ds2",
            "--host", host, "--package", str(package_copy), "--quiet",
        ],  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    assert secret not in result.output
    build(package_copy, upstream_dir)
    files = [p for p in package_copy.rglob("*") if p.is_file()]
    assert [p for p in files if secret.encode() in p.read_bytes()] == []
    (run_json,) = package_copy.glob("runs/calamo__test-model*/run.json")
    assert fake_ollama.url.encode() in run_json.read_bytes()
    assert b"alice" not in run_json.read_bytes()


def _first_published_run(package: Path) -> Path:
    return sorted(p for p in (package / "runs").iterdir() if p.name.startswith("calamo"))[0]


def test_a_duplicated_score_row_fails_tables_with_file_and_line(package_copy):
    scores = _first_published_run(package_copy) / "scores.jsonl"
    first = scores.read_bytes().split(b"\n")[0]
    scores.write_bytes(scores.read_bytes() + first + b"\n")
    lines = scores.read_bytes().count(b"\n")
    for command in (["tables", "--out", str(package_copy / "out")], ["verify"], ["validate"]):
        result = CliRunner().invoke(main, [*command, "--package", str(package_copy)])
        assert result.exit_code == 1, (command, result.output)
        assert f"{scores}, line {lines}: a second score row" in result.output, result.output
        assert "(the first is line 1)" in result.output


def test_a_run_missing_its_run_json_fails_instead_of_shrinking_a_median(package_copy):
    run_dir = _first_published_run(package_copy)
    (run_dir / "run.json").unlink()
    for command in (["tables", "--out", str(package_copy / "out")], ["verify"]):
        result = CliRunner().invoke(main, [*command, "--package", str(package_copy)])
        assert result.exit_code == 1, (command, result.output)
        assert f"{run_dir}: a run folder without run.json" in result.output


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"record_id": "\xff"}', "can't decode byte 0xff"),
        (b"[1, 2]", "not a valid output row"),
        (b'{"record_id": "ds1-School", "generated": "\\ud800"}', "lone surrogate (\\ud800)"),
    ],
)
def test_a_hostile_output_line_is_one_error_naming_file_and_line(package_copy, line, reason):
    outputs = _first_published_run(package_copy) / "outputs.jsonl"
    outputs.write_bytes(outputs.read_bytes() + line + b"\n")
    lines = outputs.read_bytes().count(b"\n")
    result = CliRunner().invoke(main, ["score", "--package", str(package_copy)])
    assert result.exit_code == 1
    assert f"{outputs}, line {lines}: not a valid output row" in result.output
    assert reason in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("stored", ["outputs.jsonl", "scores.jsonl"])
def test_a_row_of_an_unknown_record_names_its_file_and_line(package_copy, stored):
    """Once a KeyError in score and verify, and a row no table counted."""
    path = _first_published_run(package_copy) / stored
    row = json.loads(path.read_bytes().split(b"\n")[0])
    row["record_id"] = "ds1-Nowhere"
    path.write_bytes(path.read_bytes() + json.dumps(row).encode() + b"\n")
    line = path.read_bytes().count(b"\n")
    expected = f"{path}, line {line}: record 'ds1-Nowhere' is not a record of this run's data set"
    commands = [["verify"], ["validate"], ["tables", "--out", str(package_copy / "out")]]
    for command in [["score"], *commands] if stored == "outputs.jsonl" else commands:
        result = CliRunner().invoke(main, [*command, "--package", str(package_copy)])
        assert result.exit_code == 1, (command, result.output)
        assert expected in result.output, (command, result.output)
        assert "KeyError" not in result.output and "Traceback" not in result.output


def test_json_lines_end_at_newline_only(package_copy):
    """U+2028 and U+0085 are characters inside a JSON string, not line ends."""
    from dmbench.runs.store import read_outputs

    outputs = _first_published_run(package_copy) / "outputs.jsonl"
    rows = outputs.read_text("utf-8").split("\n")
    row = json.loads(rows[0])
    row["raw"] = "before\u2028middle\u0085after"
    rows[0] = json.dumps(row, ensure_ascii=False, sort_keys=True)
    outputs.write_text("\n".join(rows), "utf-8")
    assert list(read_outputs(outputs))[0].raw == "before\u2028middle\u0085after"


@pytest.mark.parametrize("content", [b"\xff", b"[" * 100_000 + b"]" * 100_000, b"[1]"])
def test_an_unreadable_judge_run_is_one_line(package_copy, content):
    run_file = package_copy / "runs" / "judge__broken" / "run.json"
    run_file.parent.mkdir()
    run_file.write_bytes(content)
    result = CliRunner().invoke(main, ["leaderboard", "--package", str(package_copy)])
    assert result.exit_code == 1
    assert f"{run_file}: cannot read judge run" in result.output
    assert "Traceback" not in result.output


def test_an_endless_reply_is_a_recorded_failure_and_the_run_goes_on(package_copy, fake_ollama):
    """The first call's reply never ends: it stops at the size limit, is stored as that
    record's failure, and the other records are generated."""
    fake_ollama.script.append(Reply(endless=True))
    fake_ollama.responder = diagram_reply
    result = CliRunner().invoke(
        main,
        [
            "generate", "--candidate", "calamo", "--model", "test-model", "--dataset", "ds2",
            "--host", fake_ollama.url, "--package", str(package_copy), "--quiet",
        ],  # fmt: skip
    )
    assert result.exit_code == 0, result.output
    (run_dir,) = package_copy.glob("runs/calamo__test-model*")
    rows = [json.loads(line) for line in (run_dir / "outputs.jsonl").read_text("utf-8").splitlines()]
    failed = [row for row in rows if row["failed"]]
    assert len(rows) == 8 and len(failed) == 1
    assert failed[0]["error"].startswith("exception: ReplyTooLarge: ")
    assert "exceeds 16,777,216 bytes" in failed[0]["error"]


def test_an_interrupted_rollback_is_finished_by_the_next_command(
    package_copy, upstream_dir, monkeypatch
):
    """Ctrl-C during the swap, and again while it is being undone (as the old data/ is moved
    back): the build's own clean-up then deletes the staging folder, which once made the next
    command take the swap for committed and delete the old runs/."""
    import os

    _generated_run(package_copy, _output_line("ds2-LabTracker"))
    build(package_copy, upstream_dir)
    before = _tree_digest(package_copy)
    real_replace = os.replace

    def replace(src, dst):
        if Path(dst) == package_copy / "runs" and ".dmbench-build-" in str(src):
            raise KeyboardInterrupt
        if Path(dst) == package_copy / "data" and ".dmbench-retired-" in str(src):
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        build(package_copy, upstream_dir)
    monkeypatch.undo()
    assert list(package_copy.glob(".dmbench-retired-*"))
    result = CliRunner().invoke(main, ["tables", "--package", str(package_copy), "--format", "json"])
    assert not list(package_copy.glob(".dmbench-*-*")), result.output
    assert _tree_digest(package_copy) == before


def _descriptor(package: Path) -> dict:
    return json.loads((package / "datapackage.json").read_text("utf-8"))


def _set_descriptor(package: Path, descriptor: dict) -> None:
    (package / "datapackage.json").write_text(json.dumps(descriptor), encoding="utf-8")


def _errors(package: Path) -> list[str]:
    return [f"[{i.type}] {i.location}: {i.message}" for i in validate_package(package).issues]


class TestPackageSurface:
    """Issue 24, item 3: what a hostile package or zip cannot make validate, build or check do."""

    def test_a_symlink_in_data_fails_validate(self, package_copy: Path) -> None:
        (package_copy / "data" / "passwd.csv").symlink_to("/etc/passwd")
        assert "[symlink] data/passwd.csv: a link in a package is refused; replace it by the file" in (
            _errors(package_copy)
        )

    def test_a_symlink_among_the_package_folders_is_refused_by_build(
        self, package_copy: Path, upstream_dir: Path
    ) -> None:
        (package_copy / "licenses" / "extra.LICENSE").symlink_to("/etc/passwd")
        with pytest.raises(PackageError, match="extra.LICENSE: a link inside the package is refused"):
            build(package_copy, upstream_dir)
        assert (package_copy / "licenses" / "extra.LICENSE").is_symlink()

    def test_an_unlisted_file_in_data_fails_validate(self, package_copy: Path) -> None:
        (package_copy / "data" / "extra.csv").write_text("a\n1\n")
        (package_copy / "data" / ".hidden").write_text("x")
        errors = _errors(package_copy)
        assert any(e.startswith("[file-unlisted] data/extra.csv") for e in errors)
        assert any(e.startswith("[file-unlisted] data/.hidden") for e in errors)

    @pytest.mark.parametrize("key", ["schema", "dialect"])
    def test_a_remote_schema_or_dialect_is_refused_unfetched(self, package_copy, key) -> None:
        descriptor = _descriptor(package_copy)
        descriptor["resources"][0][key] = "http://127.0.0.1:9/evil.json"
        _set_descriptor(package_copy, descriptor)
        errors = _errors(package_copy)
        assert (
            f"[descriptor] datapackage.json, resource 0: {key} 'http://127.0.0.1:9/evil.json' is "
            "not a file inside the package"
        ) in errors
        assert not any(e.startswith("[frictionless") for e in errors)

    def test_a_resource_path_that_is_a_list_is_one_line(self, package_copy: Path) -> None:
        descriptor = _descriptor(package_copy)
        descriptor["resources"][0]["path"] = ["data/records.csv", "data/records.csv"]
        _set_descriptor(package_copy, descriptor)
        result = CliRunner().invoke(main, ["validate", str(package_copy)])
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "path is a list; each dmbench resource is one file" in result.output


def _zip_with(tmp_path: Path, *members: tuple[str, bytes]) -> Path:
    archive = tmp_path / "p.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        for name, data in members:
            handle.writestr(name, data)
    return archive


class TestZipMembers:
    def test_two_members_of_one_name_are_refused(self, tmp_path: Path) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate it writes
            archive = _zip_with(tmp_path, ("a.txt", b"one"), ("a.txt", b"two"))
        with pytest.raises(PackageError, match="two members are named 'a.txt'"):
            extract_zip(archive, tmp_path / "out")

    def test_an_encrypted_member_is_refused(self, tmp_path: Path) -> None:
        archive = _zip_with(tmp_path, ("a.txt", b"x"))
        _patch_headers(archive, flag=0x1)
        with pytest.raises(PackageError, match="member 'a.txt' is encrypted"):
            extract_zip(archive, tmp_path / "out")

    def test_an_unknown_compression_is_one_line(self, tmp_path: Path) -> None:
        archive = _zip_with(tmp_path, ("a.txt", b"x"))
        _patch_headers(archive, method=99)
        result = CliRunner().invoke(main, ["validate", str(archive)])
        assert result.exit_code == 1 and "Traceback" not in result.output
        assert "uses compression method 99; only stored and deflated are read" in result.output

    def test_too_many_members_are_refused_before_reading(self, tmp_path, monkeypatch) -> None:
        monkeypatch.setattr(archive_module, "MAX_MEMBERS", 2)
        archive = _zip_with(tmp_path, ("a", b""), ("b", b""), ("c", b""))
        with pytest.raises(PackageError, match="3 members, more than the 2 read"):
            extract_zip(archive, tmp_path / "out")

    def test_a_zip_without_a_descriptor_names_what_check_takes(self, tmp_path: Path) -> None:
        archive = _zip_with(tmp_path, ("a.txt", b"x"))
        result = CliRunner().invoke(main, ["check", str(archive)])
        assert result.exit_code == 1
        assert "no datapackage.json at the root of the zip" in result.output


def _patch_headers(archive: Path, flag: int = 0, method: int | None = None) -> None:
    """Set a general-purpose flag or the compression method in the local and central headers,
    as an archiver that encrypts or uses another method would write them."""
    data = bytearray(archive.read_bytes())
    for signature, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        start = data.find(signature)
        data[start + flag_at] |= flag
        if method is not None:
            data[start + method_at : start + method_at + 2] = method.to_bytes(2, "little")
    archive.write_bytes(bytes(data))
