"""``generate --prompts DIR``: a prompt variant reaches the server, is recorded by hash and
name, and makes runs of their own beside the pinned prompts' runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_ollama import diagram_reply
from results_support import copy_package

from dmbench.cli import main
from dmbench.core.hashing import sha256_text
from dmbench.package import validate_package
from dmbench.report.data import record_views
from dmbench.runs.store import list_runs

FEW_SHOT = "You draw domain models. Example: a library lends books -> class Library, class Book.\n"


def _generate(package: Path, url: str, *extra: str):
    return CliRunner().invoke(main, [
        "generate", "--candidate", "calamo", "--model", "test-model", "--host", url,
        "--dataset", "ds2", "--package", str(package), *extra,
    ])  # fmt: skip


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return copy_package(tmp_path / "package")


def test_a_variant_reaches_the_server_and_makes_its_own_run(package, tmp_path, fake_ollama):
    fake_ollama.responder = diagram_reply
    variant = tmp_path / "few-shot"
    variant.mkdir()
    (variant / "calamo_system.txt").write_text(FEW_SHOT, "utf-8")

    pinned = _generate(package, fake_ollama.url)
    assert pinned.exit_code == 0, pinned.output
    pinned_system = {chat["messages"][0]["content"] for chat in fake_ollama.chats()}
    asked_before = len(fake_ollama.chats())
    varied = _generate(package, fake_ollama.url, "--prompts", str(variant))
    assert varied.exit_code == 0, varied.output

    sent = {chat["messages"][0]["content"] for chat in fake_ollama.chats()[asked_before:]}
    assert sent == {FEW_SHOT} and FEW_SHOT not in pinned_system
    runs = {run.info.settings.get("prompts", {}).get("variant"): run
            for run in list_runs(package) if run.info.candidate == "calamo"
            and run.info.model == "test-model"}  # fmt: skip
    assert set(runs) == {None, "few-shot"}
    assert runs[None].info.run_id != runs["few-shot"].info.run_id
    assert runs["few-shot"].info.settings["prompts"]["sha256"] == {
        "calamo_system.txt": sha256_text(FEW_SHOT)
    }
    assert runs["few-shot"].info.provenance["prompts_sha256"] == {
        "calamo_system.txt": sha256_text(FEW_SHOT)
    }
    report = validate_package(package)
    assert report.valid, report.render()


def test_a_variant_missing_a_prompt_file_is_refused_in_one_line(package, tmp_path, fake_ollama):
    variant = tmp_path / "partial"
    variant.mkdir()
    (variant / "chen_system.txt").write_text("hi", "utf-8")
    result = CliRunner().invoke(main, [
        "generate", "--candidate", "chen", "--model", "test-model", "--host", fake_ollama.url,
        "--dataset", "ds2", "--package", str(package), "--prompts", str(variant),
    ])  # fmt: skip
    assert result.exit_code == 1
    assert "--prompts" in result.output and "no chen_task.txt, chen_translate.txt" in result.output
    assert not [r for r in list_runs(package) if r.info.model == "test-model"]


def test_prompts_are_refused_for_a_candidate_without_prompts(package, tmp_path):
    result = CliRunner().invoke(main, ["generate", "--candidate", "rule_based", "--dataset",
                                       "ds2", "--package", str(package), "--prompts", str(tmp_path)])  # fmt: skip
    assert result.exit_code != 0 and "rule_based sends none" in result.output


def test_a_variants_row_names_the_variant_in_the_tables_and_the_report(
    package, tmp_path, fake_ollama
):
    """A pinned-prompt run and a variant run of one model: two rows, and only the variant's
    label (Markdown tables, JSON, the report's cell heading) names the variant."""
    fake_ollama.responder = diagram_reply
    variant = tmp_path / "few-shot"
    variant.mkdir()
    (variant / "calamo_system.txt").write_text(FEW_SHOT, "utf-8")
    assert _generate(package, fake_ollama.url).exit_code == 0
    assert _generate(package, fake_ollama.url, "--prompts", str(variant)).exit_code == 0
    runner = CliRunner()
    scored = runner.invoke(main, ["score", "--runs", ",".join(
        r.info.run_id for r in list_runs(package) if r.info.model == "test-model"
    ), "--package", str(package)])  # fmt: skip
    assert scored.exit_code == 0, scored.output
    tables = runner.invoke(main, ["tables", "--format", "json", "--package", str(package)])
    rows = [row for row in json.loads(tables.stdout) if row.get("model") == "test-model"]
    assert sorted(row.get("variant", "-") for row in rows) == ["-", "few-shot"]
    out = tmp_path / "results"
    written = runner.invoke(main, ["tables", "--out", str(out), "--package", str(package)])
    assert written.exit_code == 0, written.output
    table3 = (out / "table3.md").read_text("utf-8")
    assert table3.count("| calamo | test-model · prompts few-shot |") == 1
    assert table3.count("| calamo | test-model |") == 1
    labels = [cell.label for cell, _ in record_views(package)[0].outputs if not cell.canonical]
    assert sorted(labels) == ["calamo · test-model", "calamo · test-model · prompts few-shot"]
