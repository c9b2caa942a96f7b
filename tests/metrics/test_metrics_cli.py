"""The metrics commands: ``score-pair``, ``score-pairs`` and ``setup``, driven through click."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.cli.commands_metrics import score_pair, score_pairs, setup
from dmbench.metrics import compute, explain, score_benchmark

REFERENCE = (
    "@startuml\nclass Customer {\n  name : String\n}\nclass Order\nCustomer -- Order\n@enduml\n"
)
GENERATED = REFERENCE.replace("Customer", "Client").replace("name", "fullName")


@pytest.fixture
def files(tmp_path):
    reference = tmp_path / "ref.puml"
    generated = tmp_path / "gen.puml"
    reference.write_text(REFERENCE, encoding="utf-8")
    generated.write_text(GENERATED, encoding="utf-8")
    return reference, generated


def run(*args: str):
    return CliRunner().invoke(main, list(args))


class TestScorePair:
    @pytest.mark.needs_nltk
    def test_prints_the_three_scores(self, files):
        """The output is the library's scores as JSON."""
        result = run("score-pair", *map(str, files))
        assert result.exit_code == 0, result.output
        assert json.loads(result.output) == compute(REFERENCE, GENERATED).to_dict()

    @pytest.mark.needs_nltk
    def test_explain_prints_every_intermediate(self, files):
        """--explain prints what ``explain`` returns."""
        result = run("score-pair", *map(str, files), "--explain", "--metric", "metrik-4-standard")
        assert result.exit_code == 0, result.output
        expected = explain(REFERENCE, GENERATED, "metrik-4-standard").to_dict()
        assert json.loads(result.output) == expected
        assert [(m["reference"], m["generated"]) for m in expected["class_matching"]] == [
            ("Order", "Order"),
            ("Customer", "Client"),
        ]

    def test_invalid_model_exits_1_with_the_message(self, files, tmp_path):
        """A model with a duplicate class is an error, not a score."""
        invalid = tmp_path / "invalid.puml"
        invalid.write_text("@startuml\nclass A\nclass A\n@enduml\n", encoding="utf-8")
        result = run("score-pair", str(files[0]), str(invalid))
        assert result.exit_code == 1
        assert result.output == "Error: Invalid generated model\n"

    def test_missing_file(self, files, tmp_path):
        """An unreadable file is reported by name."""
        result = run("score-pair", str(files[0]), str(tmp_path / "nope.puml"))
        assert result.exit_code == 1
        assert "cannot read" in result.output


class TestScorePairs:
    @pytest.mark.needs_nltk
    def test_one_line_per_input_in_the_benchmark_view(self, tmp_path):
        """Scores, empty generations and errors each give one line with the input's id."""
        batch = tmp_path / "in.jsonl"
        items = [("a", REFERENCE, GENERATED), ("b", REFERENCE, ""), ("c", REFERENCE, "nothing")]
        batch.write_text(
            "\n".join(
                json.dumps({"id": i, "reference": r, "generated": g}) for i, r, g in items
            )
            + "\n\n",
            encoding="utf-8",
        )
        result = run("score-pairs", "--jsonl", str(batch))
        assert result.exit_code == 0, result.output
        assert [json.loads(line) for line in result.output.splitlines()] == [
            {"id": i, **score_benchmark(r, g).to_dict()} for i, r, g in items
        ]
        assert list(json.loads(result.output.splitlines()[0])) == [
            "id",
            "class_score",
            "attribute_score",
            "association_score",
            "error",
        ]

    def test_malformed_line(self, tmp_path):
        """A line without the three keys stops the batch with its line number."""
        batch = tmp_path / "in.jsonl"
        batch.write_text('{"id": "a", "reference": "x"}\n', encoding="utf-8")
        result = run("score-pairs", "--jsonl", str(batch))
        assert result.exit_code == 1
        assert f"{batch}:1: expected a JSON object" in result.output


class TestSetup:
    @pytest.mark.needs_nltk
    def test_reports_present_data(self):
        """With the offline data beside the checkout nothing is downloaded."""
        result = run("setup")
        assert result.exit_code == 0
        assert result.output == "NLTK data already present\n"


@pytest.mark.parametrize("command", [score_pair, score_pairs, setup], ids=lambda c: c.name)
def test_every_command_has_help(command):
    """Each command documents itself in ``--help``."""
    result = run(command.name, "--help")
    assert result.exit_code == 0
    assert command.help
    assert " ".join(command.help.split()) in " ".join(result.output.split())
