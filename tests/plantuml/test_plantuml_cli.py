"""``dmbench parse`` and ``dmbench quirks`` driven through click's CliRunner."""

from __future__ import annotations

import csv
import hashlib
import json

from click.testing import CliRunner
from conftest import read_jsonl

from dmbench.candidates import upstream_names
from dmbench.cli import main
from dmbench.cli.commands_plantuml import parse as parse_command
from dmbench.cli.commands_quirks import quirks as quirks_command
from dmbench.plantuml import parse
from dmbench.plantuml._quirks import quirk_cost, row_cost, to_csv
from dmbench.sources.published import (
    DiagramRow,
    output_rows,
    reference_rows,
    run_references,
    study_texts,
)

DIAGRAM = '@startuml\nclass Book {\n  title : String\n}\nBook "1" -- "*" Page\n@enduml\n'


class TestParseCommand:
    def test_prints_model_json(self, tmp_path):
        """The model in parsed.jsonl's shape, standard reading by default."""
        path = tmp_path / "d.puml"
        path.write_text(DIAGRAM, encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path)])
        assert result.exit_code == 0
        assert json.loads(result.output) == parse(DIAGRAM).to_dict()

    def test_parse_error_is_one_line_with_position(self, tmp_path):
        """No traceback: file, line, column and the message, exit code 1."""
        path = tmp_path / "bad.puml"
        path.write_text("@startuml\nA -- B ?\n@enduml\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path), "--reading", "standard"])
        assert result.exit_code == 1
        assert result.output == f"Error: {path}:2:8: cannot read '?' here: 'A -- B ?'\n"
        assert "Traceback" not in result.output

    def test_compat_error_is_upstreams_message(self, tmp_path):
        """compat reports exactly upstream's ValueError text."""
        path = tmp_path / "empty.puml"
        path.write_text("", encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path), "--reading", "compat"])
        assert result.exit_code == 1
        assert result.output.endswith(
            ": No UML blocks found in input (missing @startuml/@enduml markers)\n"
        )

    def test_unclosed_block_names_the_position_once(self, tmp_path):
        """Errors without a column keep the file:line:column prefix and no second position."""
        path = tmp_path / "open.puml"
        path.write_text("@startuml\nclass A {\n  x\n@enduml\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", str(path)])
        assert result.exit_code == 1
        assert result.output.startswith(f"Error: {path}:2:1: class 'A' is opened but never")
        assert "line 2" not in result.output

    def test_non_utf8_file_is_one_sentence(self, tmp_path):
        """A Latin-1 file: the file and the offending byte, no UnicodeDecodeError traceback."""
        path = tmp_path / "latin1.puml"
        path.write_bytes("@startuml\nclass Caf\u00e9\n@enduml\n".encode("latin-1"))
        result = CliRunner().invoke(main, ["parse", str(path)])
        assert result.exit_code == 1
        assert result.output == f"Error: {path}: not UTF-8 text (byte 0xe9 at offset 19)\n"
        assert not isinstance(result.exception, UnicodeDecodeError)

    def test_missing_file_is_one_sentence(self, tmp_path):
        """An unreadable FILE is reported by click, not as a traceback."""
        result = CliRunner().invoke(main, ["parse", str(tmp_path / "nowhere.puml")])
        assert result.exit_code in (1, 2)
        assert "Traceback" not in result.output and "nowhere.puml" in result.output

    def test_file_from_stdin(self):
        """FILE may be "-" for standard input."""
        result = CliRunner().invoke(main, ["parse", "-"], input=DIAGRAM)
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == parse(DIAGRAM).to_dict()

    def test_stdin_parse_error_names_stdin(self):
        """The position of an error in standard input is given against <stdin>."""
        result = CliRunner().invoke(main, ["parse", "-"], input="@startuml\nA ?\n@enduml\n")
        assert result.exit_code == 1
        assert result.output.startswith("Error: <stdin>:2:")

    def test_batch_from_stdin(self):
        """--jsonl - reads the batch from standard input."""
        lines = [json.dumps({"id": "a", "text": DIAGRAM}), json.dumps({"id": "b", "text": ""})]
        result = CliRunner().invoke(main, ["parse", "--jsonl", "-"], input="\n".join(lines))
        assert result.exit_code == 0, result.output
        out = [json.loads(line) for line in result.output.splitlines()]
        assert [(o["id"], o["ok"]) for o in out] == [("a", True), ("b", False)]
        assert out[0]["model"] == parse(DIAGRAM).to_dict()

    def test_batch_non_utf8_line_is_named(self, tmp_path):
        """A batch line that is not UTF-8 stops the batch with the file and line number."""
        batch = tmp_path / "in.jsonl"
        good = json.dumps({"id": 1, "text": DIAGRAM}).encode()
        bad = '{"id": 2, "text": "caf\u00e9"}'.encode("latin-1")
        batch.write_bytes(good + b"\n" + bad + b"\n")
        result = CliRunner().invoke(main, ["parse", "--jsonl", str(batch)])
        assert result.exit_code == 1
        assert f"Error: {batch}:2: not UTF-8 text" in result.output
        assert not isinstance(result.exception, UnicodeDecodeError)

    def test_batch_text_must_be_a_string(self, tmp_path):
        """A non-string "text" is a malformed line, not a traceback."""
        batch = tmp_path / "in.jsonl"
        batch.write_text('{"id": 1, "text": 5}\n', encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", "--jsonl", str(batch)])
        assert result.exit_code == 1
        assert f"{batch}:1: expected a JSON object" in result.output

    def test_needs_file_or_jsonl(self):
        """Neither (or both) is a usage error."""
        result = CliRunner().invoke(main, ["parse"])
        assert result.exit_code == 2
        assert "give either FILE or --jsonl" in result.output

    def test_batch_of_all_golden_strings(self, tmp_path, golden_dir, upstream_dir):
        """All 839 golden strings, equal to parsed.jsonl's strict results (the time it takes is
        printed by ``benchmarks/bench_parse_batch.py``, not asserted)."""
        texts = [r.text for r in reference_rows(upstream_dir)]
        texts += [r.text for r in output_rows(upstream_dir)]
        texts += [*run_references(upstream_dir), *study_texts(upstream_dir)]
        by_sha = {hashlib.sha256(t.encode("utf-8")).hexdigest(): t for t in texts}
        golden = read_jsonl(golden_dir / "parsed.jsonl")
        batch = tmp_path / "in.jsonl"
        lines = [json.dumps({"id": g["sha256"], "text": by_sha[g["sha256"]]}) for g in golden]
        batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", "--jsonl", str(batch), "--reading", "compat"])
        assert result.exit_code == 0
        out = [json.loads(line) for line in result.output.splitlines()]
        assert [o["id"] for o in out] == [g["sha256"] for g in golden]
        for o, g in zip(out, golden, strict=True):
            assert o["ok"] == g["strict"]["ok"]
            if o["ok"]:
                assert o["model"] == g["strict"]["model"]
                assert o["valid"] == g["strict"]["isValidParsedModel"]
            else:
                assert o["error"] == g["strict"]["error"] and o["valid"] is False

    def test_batch_rejects_a_malformed_line(self, tmp_path):
        """A line that is not {"id", "text"} stops the batch with its line number."""
        batch = tmp_path / "in.jsonl"
        batch.write_text('{"id": 1, "text": ""}\n{"text": "x"}\n', encoding="utf-8")
        result = CliRunner().invoke(main, ["parse", "--jsonl", str(batch)])
        assert result.exit_code == 1
        assert f"{batch}:2: expected a JSON object" in result.output


class TestQuirksCommand:
    def test_writes_the_table_the_library_computes(self, tmp_path, upstream_dir):
        """CSV equals quirk_cost() over the same rows; Markdown is printed and written."""
        out = tmp_path / "results"
        result = CliRunner().invoke(
            main, ["quirks", "--sources", str(upstream_dir), "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
        rows = [*reference_rows(upstream_dir), *output_rows(upstream_dir, upstream_names())]
        assert (out / "quirk_cost.csv").read_text(encoding="utf-8") == to_csv(quirk_cost(rows))
        markdown = (out / "quirk_cost.md").read_text(encoding="utf-8")
        assert markdown in result.output
        records = list(csv.DictReader((out / "quirk_cost.csv").open(encoding="utf-8")))
        overall = records[-1]
        assert (overall["dataset"], overall["candidate"]) == ("all", "all")
        assert int(overall["diagrams"]) == len(rows)
        by_key = {(r["dataset"], r["candidate"]): r for r in records}
        assert set(by_key) >= {
            (d, c) for d in ("ds1", "ds2") for c in ("reference", "chen", "calamo", "rule_based")
        }
        calamo = by_key[("all", "calamo")]
        assert int(calamo["attributes_lost"]) > int(calamo["attributes_standard"]) / 2

    def test_missing_sources_is_one_sentence(self, tmp_path):
        """A wrong --sources gives a hint, not a traceback."""
        result = CliRunner().invoke(main, ["quirks", "--sources", str(tmp_path / "nowhere")])
        assert result.exit_code == 1
        assert result.output.count("\n") == 1
        assert "try `dmbench sources fetch` or --sources DIR" in result.output


class TestQuirkCost:
    def test_counts_lost_changed_and_added(self):
        """A comma list and a glued arrow: attributes lost, a relationship changed, Fo added."""
        text = "@startuml\nclass A {\n  String a, String b\n  c : int\n}\nFoo-->Bar\n@enduml"
        cost = row_cost(DiagramRow("x", "ds1", "chen", text))
        assert cost.status == "both_ok" and cost.affected
        assert cost.counts["attributes_standard"] == 3
        assert cost.counts["attributes_lost"] == 2
        assert cost.counts["relationships_lost"] == cost.counts["relationships_added"] == 1
        assert cost.counts["classes_lost"] == 1  # Foo
        assert cost.counts["classes_added"] == 1  # Fo


def test_every_command_has_help():
    """Each command documents itself."""
    for command in (parse_command, quirks_command):
        assert command.help and command.help.strip()


def test_quirks_help_says_where_results_go():
    """The relative default is explained: results/ under the current (package) directory."""
    result = CliRunner().invoke(main, ["quirks", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "relative to the current directory" in text and "package's results folder" in text
