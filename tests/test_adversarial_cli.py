"""Hostile input at the command line: each cause that once ended in a traceback is one line."""

from __future__ import annotations

import http.server
import json
import threading

import pytest
from click.testing import CliRunner
from test_package import built, package_copy

from dmbench.cli import main

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
    threading.Thread(target=server.serve_forever, daemon=True).start()
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


def test_an_output_folder_that_cannot_be_made_is_one_line(package_copy, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    result = run("tables", "--package", str(package_copy), "--out", str(blocker / "results"))
    assert result.exit_code == 1
    assert str(blocker) in result.output and "hint:" in result.output


@pytest.mark.parametrize("host", ["http://[::1", "http://127.0.0.1:99999", "http://:80"])
def test_a_malformed_host_is_one_line(host):
    result = run(
        "generate", "--candidate", "calamo", "--model", "m", "--records", "-", "--host", host,
    )
    assert result.exit_code == 1
    assert f"--host {host!r} is not a server URL" in result.output
