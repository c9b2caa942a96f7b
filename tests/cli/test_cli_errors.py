"""Errors as a user meets them: one line, with the fix when dmbench knows it; no traceback."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from results_support import built_package

from dmbench.cli import main


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _one_error_line(result) -> str:
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_validate_a_relative_path_from_a_subfolder(monkeypatch):
    """``dmbench validate ..`` from inside the package validates the package."""
    monkeypatch.chdir(built_package() / "data")
    result = run("validate", "..")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "../datapackage.json: valid"


def test_validate_takes_package_like_every_package_command(monkeypatch):
    monkeypatch.chdir(built_package())
    result = run("validate", "--package", ".")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "datapackage.json: valid"
    both = run("validate", ".", "--package", ".")
    assert both.exit_code == 2 and "not both" in both.output


def test_score_pairs_on_a_file_that_is_not_utf8(tmp_path):
    batch = tmp_path / "in.jsonl"
    batch.write_bytes(b'{"id": "a", "reference": "caf\xe9", "generated": ""}\n')
    line = _one_error_line(run("score-pairs", "--jsonl", str(batch)))
    assert line == f"Error: {batch}:1: not UTF-8 text (byte 0xe9 at offset 29)"


def test_score_pair_on_a_file_that_is_not_utf8(tmp_path):
    reference = tmp_path / "ref.puml"
    reference.write_bytes(b"@startuml\nclass Caf\xe9\n@enduml\n")
    line = _one_error_line(run("score-pair", str(reference), str(reference)))
    assert line == f"Error: {reference}: not UTF-8 text (byte 0xe9 at offset 19)"


@pytest.mark.parametrize(
    "command",
    [
        ("score",),
        ("verify",),
        ("tables",),
        ("errata",),
        ("generate", "--candidate", "rule_based", "--dataset", "ds2"),
    ],
)
def test_a_package_command_on_a_folder_that_is_no_package_writes_nothing(tmp_path, command):
    """``--package typo/`` says what is wrong and how to fix it, and creates nothing."""
    target = tmp_path / "typo"
    line = _one_error_line(run(*command, "--package", str(target)))
    assert "not a dmbench data package" in line
    assert "(hint: cd into the package or pass --package DIR" in line
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_run_id_is_named_with_where_to_look():
    line = _one_error_line(run("score", "--runs", "nope", "--package", str(built_package())))
    assert line == (
        "Error: unknown run id(s): nope (hint: `dmbench tables` or data/runs.csv list them)"
    )
