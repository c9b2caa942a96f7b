"""Hostile input at the command line: each cause that once ended in a traceback is one line."""

from __future__ import annotations

import csv
import http.server
import io
import json
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_package import _tree_digest, built, package_copy

from dmbench.cli import main
from dmbench.core.csvio import read_csv, write_csv
from dmbench.errors import PackageError

__all__ = ["built", "package_copy"]  # fixtures shared with test_package

DIAGRAM = "@startuml\nclass A\n@enduml"


def run(*args: str):
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    return result


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
        (json.dumps({"id": "\ud800", "reference": DIAGRAM, "generated": DIAGRAM}), "surrogate"),
        (json.dumps({"id": 1, "reference": DIAGRAM, "generated": 5}), "expected a JSON object"),
        (json.dumps({"id": 1, "reference": DIAGRAM, "generated": None}), "expected a JSON"),
        (json.dumps({"id": 1, "reference": DIAGRAM, "generated": [1]}), "expected a JSON"),
    ],
)
def test_score_pairs_refuses_a_hostile_line_in_one_line(tmp_path, line, message):
    path = tmp_path / "pairs.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    result = run("score-pairs", "--jsonl", str(path))
    assert result.exit_code == 1
    assert f"{path}:1: " in result.output and message in result.output


def test_parse_jsonl_refuses_deep_nesting_in_one_line(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    result = run("parse", "--jsonl", str(path))
    assert result.exit_code == 1 and "nested too deeply" in result.output


HOSTILE_LINES = [
    (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
    (
        json.dumps({"id": "\ud800", "text": "t"}).encode(),
        "a string holds a lone surrogate (\\ud800)",
    ),
    ('{"id": "a", "text": "caf\xe9"}'.encode("latin-1"), "not UTF-8 text (byte 0xe9"),
    (
        b"\xef\xbb\xbf" + json.dumps({"id": "a", "text": "t"}).encode(),
        "the line starts with a byte-order mark",
    ),
]


@pytest.mark.parametrize(
    ("line", "message"), HOSTILE_LINES, ids=["deep", "surrogate", "latin-1", "bom"]
)
def test_generate_records_refuses_a_hostile_line_in_one_line(tmp_path, line, message):
    path = tmp_path / "records.jsonl"
    path.write_bytes(
        json.dumps({"id": "ok", "text": "A shop sells books."}).encode() + b"\n" + line
    )
    result = run("generate", "--candidate", "rule_based", "--records", str(path))
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {path}, line 2: {message}"), result.output


@pytest.mark.parametrize(
    ("line", "message"), HOSTILE_LINES, ids=["deep", "surrogate", "latin-1", "bom"]
)
def test_judge_pairs_refuses_a_hostile_line_in_one_line(tmp_path, line, message):
    path = tmp_path / "pairs.jsonl"
    path.write_bytes(line)
    result = run(
        "judge", "--pairs", str(path), "--model", "m", "--host", "http://127.0.0.1:9",
        "--package", str(tmp_path),
    )  # fmt: skip
    assert result.exit_code == 1
    assert f"{path}, line 1: {message}" in result.output, result.output


@pytest.mark.parametrize("descriptor", [b"", b"{", b"[]", b'{"resources": 5}', b"\xff"])
def test_validate_reports_a_broken_descriptor(package_copy, descriptor):
    (package_copy / "datapackage.json").write_bytes(descriptor)
    result = run("validate", str(package_copy))
    assert result.exit_code == 1
    assert "[descriptor]" in result.output


def test_validate_never_fetches_a_url_named_in_the_descriptor(package_copy):
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            asked.append(self.path)
            self.send_error(404)

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    try:
        descriptor = json.loads((package_copy / "datapackage.json").read_text("utf-8"))
        url = f"http://127.0.0.1:{server.server_address[1]}/records.csv"
        descriptor["resources"][0]["path"] = url
        (package_copy / "datapackage.json").write_text(json.dumps(descriptor), "utf-8")
        result = run("validate", str(package_copy))
    finally:
        server.shutdown()
        server.server_close()
    assert result.exit_code == 1
    assert f"path {url!r} is not a file inside the package" in result.output
    assert asked == []


@pytest.mark.parametrize(
    "command",
    [["score"], ["build"], ["generate", "--candidate", "rule_based", "--dataset", "ds2"]],
    ids=["score", "build", "generate"],
)
def test_a_package_that_cannot_be_written_is_one_line(package_copy, upstream_dir, command):
    """The lock file cannot be opened for writing (here it is a folder: a real OS error, which
    the tests' root user cannot get from a read-only mode); nothing else is touched."""
    lock = package_copy / ".dmbench-lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    before = _tree_digest(package_copy)
    sources = ["--sources", str(upstream_dir)] if command == ["build"] else []
    result = run(*command, *sources, "--package", str(package_copy))
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {lock}: Is a directory (hint: check that the path")
    assert _tree_digest(package_copy) == before


@pytest.mark.parametrize("command", ["errata", "tables"])
def test_an_output_that_cannot_be_written_is_one_line(
    package_copy, upstream_dir, tmp_path, command
):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    out = blocker / ("errata.md" if command == "errata" else "results")
    more = ["--sources", str(upstream_dir)] if command == "errata" else []
    result = run(command, *more, "--out", str(out), "--package", str(package_copy))
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {blocker}"), result.output
    assert "(hint: check that the path exists and is writable)" in result.output


def test_an_output_folder_that_cannot_be_made_is_one_line(package_copy, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    result = run("tables", "--package", str(package_copy), "--out", str(blocker / "results"))
    assert result.exit_code == 1
    assert str(blocker) in result.output and "hint:" in result.output


@pytest.mark.parametrize("host", ["http://[::1", "http://127.0.0.1:99999", "http://:80"])
def test_a_malformed_host_is_one_line(host, monkeypatch, tmp_path):
    """Refused before anything is read: here no sources exist to read the prompts from."""
    monkeypatch.setenv("DMBENCH_SOURCES", str(tmp_path / "no-sources"))
    result = run(
        "generate",
        "--candidate",
        "calamo",
        "--model",
        "m",
        "--records",
        "-",
        "--host",
        host,
    )
    assert result.exit_code == 1
    assert f"--host {host!r} is not a server URL" in result.output


def _calamo_run(package):
    return sorted(p for p in (package / "runs").iterdir() if p.name.startswith("calamo"))[0]


def _one_line_error(result, *names: str) -> None:
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
    for name in names:
        assert name in result.output, result.output


def test_csv_errors_name_the_files_own_line(tmp_path):
    """The first data row is line 2; a row after a two-line cell starts on line 4."""
    path = tmp_path / "t.csv"
    path.write_text('a,b\r\nx,"two\r\nlines"\r\nshort\r\n', encoding="utf-8", newline="")
    with pytest.raises(PackageError, match=r"t\.csv, line 4: 1 cells where the header has 2"):
        read_csv(path)
    path.write_text("a,b\r\nx,y\r\n", encoding="utf-8", newline="")
    assert read_csv(path) == [(2, {"a": "x", "b": "y"})]


def test_tables_on_an_empty_records_csv_is_one_line(package_copy, tmp_path):
    records = package_copy / "data" / "records.csv"
    records.write_text(records.read_text("utf-8").split("\n")[0] + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["tables", "--package", str(package_copy), "--out", str(tmp_path / "o")]
    )
    _one_line_error(result, "records.csv: holds no records")


def test_tables_with_a_string_score_names_the_file_and_line(package_copy, tmp_path):
    scores = _calamo_run(package_copy) / "scores.jsonl"
    lines = scores.read_text("utf-8").split("\n")
    row = json.loads(lines[0])
    row["class_score"] = "high"
    scores.write_text("\n".join([json.dumps(row), *lines[1:]]), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["tables", "--package", str(package_copy), "--out", str(tmp_path / "o")]
    )
    _one_line_error(result, "scores.jsonl, line 1:", '"class_score" is "high", not a finite number')


@pytest.mark.parametrize("generated", [42, None, ["@startuml"]], ids=["number", "null", "list"])
@pytest.mark.parametrize("command", ["validate", "score", "verify", "errata"])
def test_an_output_whose_generated_is_not_text_is_one_line(
    package_copy, tmp_path, command, generated
):
    """Once a traceback in each of these commands (`'int' object has no attribute 'strip'`)."""
    outputs = _calamo_run(package_copy) / "outputs.jsonl"
    lines = outputs.read_text("utf-8").split("\n")
    row = json.loads(lines[0])
    row["generated"] = generated
    outputs.write_text("\n".join([json.dumps(row), *lines[1:]]), encoding="utf-8")
    args = ["--out", str(tmp_path / "errata.md")] if command == "errata" else []
    result = CliRunner().invoke(main, [command, "--package", str(package_copy), *args])
    wanted = f'"generated" is {json.dumps(generated)}, not a string'
    where = f"{outputs}, line 1: not a valid output row of record {row['record_id']!r}"
    _one_line_error(result, where, wanted)


@pytest.mark.parametrize(
    ("field", "value", "wanted"),
    [
        ("elapsed_seconds", "NaN", "is NaN, not a finite number"),
        ("elapsed_seconds", "1" + "0" * 400, "is 1" + "0" * 36 + "..., not a finite number"),
        ("failed", '"no"', 'is "no", not true or false'),
        ("calls", "[1]", "holds 1, not an object"),
        ("record_id", '["x"]', 'is ["x"], not a string'),
    ],
    ids=["nan", "huge", "string-bool", "call-not-object", "list-id"],
)
def test_an_output_row_of_the_wrong_type_is_one_line(package_copy, tmp_path, field, value, wanted):
    """A field whose JSON value is not of its type, each once a traceback or a silent NaN."""
    outputs = _calamo_run(package_copy) / "outputs.jsonl"
    lines = outputs.read_text("utf-8").split("\n")
    row = json.loads(lines[0])
    row[field] = "PLACEHOLDER"
    lines[0] = json.dumps(row).replace('"PLACEHOLDER"', value)
    outputs.write_text("\n".join(lines), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["tables", "--package", str(package_copy), "--out", str(tmp_path / "o")]
    )
    _one_line_error(result, f"{outputs}, line 1: not a valid output row", f'"{field}" {wanted}')


def test_a_csv_cell_over_128_kib_reads_back(tmp_path):
    """A generated diagram longer than the csv module's default cell limit reads back, whether
    or not frictionless (which lifts that limit for the whole process) was imported first."""
    path = tmp_path / "t.csv"
    write_csv(path, ["id", "generated"], [{"id": "r", "generated": "x" * 200_000}])
    before = csv.field_size_limit(128 * 1024)
    try:
        assert read_csv(path) == [(2, {"id": "r", "generated": "x" * 200_000})]
    finally:
        csv.field_size_limit(before)


def test_a_record_text_over_128_kib_is_one_line(package_copy, tmp_path):
    """Once `_csv.Error: field larger than field limit` from tables, verify, score and errata;
    now the record's checksum names it, as `validate` did."""
    records = package_copy / "data" / "records.csv"
    rows = list(csv.reader(io.StringIO(records.read_bytes().decode("utf-8"), newline="")))
    rows[1][rows[0].index("text")] = "x" * 200_000
    write_csv(records, rows[0], [dict(zip(rows[0], row, strict=True)) for row in rows[1:]])
    before = csv.field_size_limit(128 * 1024)
    try:
        result = CliRunner().invoke(
            main, ["tables", "--package", str(package_copy), "--out", str(tmp_path / "o")]
        )
    finally:
        csv.field_size_limit(before)
    _one_line_error(result, f"{records}, line 2, record {rows[1][0]!r}: text does not match")


@pytest.mark.parametrize("field", ["totals", "settings"])
def test_validate_with_a_null_run_json_object_names_the_run(package_copy, field):
    run_json = _calamo_run(package_copy) / "run.json"
    data = json.loads(run_json.read_text("utf-8"))
    data[field] = None
    run_json.write_text(json.dumps(data), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--package", str(package_copy)])
    _one_line_error(result, f"{run_json.parent.name}/run.json", f'"{field}" is null, not an object')


def test_validate_without_schemas_folder_names_the_missing_schema(package_copy):
    shutil.rmtree(package_copy / "schemas")
    result = CliRunner().invoke(main, ["validate", "--package", str(package_copy)])
    _one_line_error(result, "schemas/")


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("command", ["score-pairs", "parse"])
def test_a_bom_in_json_lines_is_named(tmp_path, command):
    path = tmp_path / "in.jsonl"
    line = {"id": 1, "reference": DIAGRAM, "generated": DIAGRAM, "text": DIAGRAM}
    path.write_bytes(BOM + json.dumps(line).encode() + b"\n")
    result = CliRunner().invoke(main, [command, "--jsonl", str(path)])
    _one_line_error(result, "in.jsonl:1: the file starts with a byte-order mark (BOM)")


def test_a_bom_in_a_json_file_of_the_package_is_named(package_copy, tmp_path):
    descriptor = package_copy / "datapackage.json"
    descriptor.write_bytes(BOM + descriptor.read_bytes())
    result = CliRunner().invoke(main, ["validate", "--package", str(package_copy)])
    _one_line_error(result, "datapackage.json: the file starts with a byte-order mark (BOM)")
    descriptor.write_bytes(descriptor.read_bytes()[len(BOM) :])
    run_json = _calamo_run(package_copy) / "run.json"
    run_json.write_bytes(BOM + run_json.read_bytes())
    result = CliRunner().invoke(
        main, ["tables", "--package", str(package_copy), "--out", str(tmp_path / "o")]
    )
    _one_line_error(result, "run.json: the file starts with a byte-order mark (BOM)")


@pytest.mark.parametrize("cut", ["truncated", "short"])
@pytest.mark.parametrize("command", ["tables", "validate"])
def test_a_truncated_or_short_csv_row_names_its_line(package_copy, tmp_path, cut, command):
    records = package_copy / "data" / "records.csv"
    text = records.read_bytes().decode("utf-8")
    if cut == "truncated":
        records.write_text(text[: len(text) // 2], encoding="utf-8", newline="")
        where = "records.csv, line "
    else:
        lines = text.split("\r\n")
        lines[1] = lines[1].split(",")[0]
        records.write_text("\r\n".join(lines), encoding="utf-8", newline="")
        where = "records.csv, line 2: 1 cells where the header has 13"
    args = ["--out", str(tmp_path / "o")] if command == "tables" else []
    result = CliRunner().invoke(main, [command, "--package", str(package_copy), *args])
    _one_line_error(result, where)


@pytest.mark.parametrize("name", ["data/records.csv", "datapackage.json", "run.json"])
def test_non_utf8_package_files_are_one_line(package_copy, name):
    path = _calamo_run(package_copy) / "run.json" if name == "run.json" else package_copy / name
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\xff" + data[100:])
    result = CliRunner().invoke(main, ["validate", "--package", str(package_copy)])
    _one_line_error(result, Path(name).name)


CR_ONLY = "@startuml\rclass A\rclass B\r@enduml"


@pytest.mark.needs_nltk
def test_cr_only_line_endings_are_named_not_silent(tmp_path):
    path = tmp_path / "cr.puml"
    path.write_bytes(CR_ONLY.encode())
    reference = tmp_path / "ref.puml"
    reference.write_text(DIAGRAM, encoding="utf-8")
    parsed = CliRunner().invoke(main, ["parse", str(path)])
    assert parsed.exit_code == 0 and f"{path}: cr_only_line_endings" in parsed.output
    scored = CliRunner().invoke(main, ["score-pair", str(reference), str(path)])
    assert scored.exit_code == 0 and "cr_only_line_endings" in scored.output
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": 1, "reference": DIAGRAM, "generated": CR_ONLY}) + "\n")
    line = json.loads(CliRunner().invoke(main, ["score-pairs", "--jsonl", str(pairs)]).output)
    assert line["error"] == "cr_only_line_endings"
    batch = tmp_path / "texts.jsonl"
    batch.write_text(json.dumps({"id": 1, "text": CR_ONLY}) + "\n")
    line = json.loads(CliRunner().invoke(main, ["parse", "--jsonl", str(batch)]).output)
    assert line["warning"] == "cr_only_line_endings"
