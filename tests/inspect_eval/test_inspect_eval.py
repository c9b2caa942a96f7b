"""The benchmark as an inspect_ai task, and its eval logs imported as dmbench runs.

The task runs on inspect's own ``mockllm/model`` provider, from the command line as a user would
and from Python with a callable mock that returns real PlantUML and records every request.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, read_jsonl
from fake_ollama import judge_reply

from dmbench.api import Package
from dmbench.candidates.calamo import user_message
from dmbench.candidates.chen import stage1_user
from dmbench.cli import main
from dmbench.core.hashing import sha256_text
from dmbench.judge import Instance, Judge, JudgeOptions, judge_instance, load_criteria
from dmbench.judge.prompt import SYSTEM as JUDGE_SYSTEM
from dmbench.llm.llm_candidate import CUT
from dmbench.metrics import SCORE_NAMES
from dmbench.plantuml import validate
from dmbench.sources.prompts import load_prompt
from dmbench.sources.records import RECORDS_PATH, load_records, write_records

BIN = Path(sys.executable).parent

DIAGRAM = """@startuml
class Lab {
  name : String
}
class Sample {
  code : String
  weight : float
}
Lab "1" -- "*" Sample : holds
@enduml"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*args], cwd=cwd, capture_output=True, text=True, check=False, timeout=600
    )


def dmbench(*args: str):
    """``dmbench ARGS`` in this process (quicker; the shell acceptance test covers the process)."""
    return CliRunner().invoke(main, list(args))


def score_pairs(pairs, metric: str, tmp_path: Path) -> list[dict]:
    """``dmbench score-pairs --jsonl`` on (reference, generated) pairs."""
    batch = tmp_path / "pairs.jsonl"
    batch.write_text("".join(json.dumps({"id": str(i), "reference": ref, "generated": gen}) + "\n"
                             for i, (ref, gen) in enumerate(pairs)), encoding="utf-8")
    result = dmbench("score-pairs", "--jsonl", str(batch), "--metric", metric)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.fixture(scope="module")
def harness():
    """inspect_ai and the helpers built on it (``inspect_support``), imported when a test here
    first runs: imported with this module, they cost every test worker 1.5 s of collection."""
    import inspect_support

    return inspect_support


@pytest.fixture
def package(built_package: Path, tmp_path: Path) -> Path:
    target = tmp_path / "package"
    shutil.copytree(built_package, target)
    return target


def tree_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_the_core_install_does_not_pull_inspect_ai():
    """inspect_ai is the optional extra [inspect]; the test extra brings it for the tests."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not [d for d in project["dependencies"] if d.lower().startswith("inspect")]
    assert any(d.startswith("inspect-ai") for d in project["optional-dependencies"]["inspect"])
    assert "dmbench[inspect]" in project["optional-dependencies"]["test"]
    probe = (
        "import sys, dmbench.api, dmbench.cli, dmbench.flows.reproduce\n"
        "print('inspect_ai' in sys.modules)"
    )
    assert subprocess.check_output([sys.executable, "-c", probe], text=True).strip() == "False"


def test_a_bad_task_argument_is_one_message_not_a_traceback(package):
    result = run(
        str(BIN / "inspect"), "eval", "dmbench/domain_modelling", "-T", "candidate=rule_based",
        "--model", "mockllm/model", "--log-dir", "L", "--display", "plain", cwd=package,
    )
    assert result.returncode == 1
    output = " ".join((result.stdout + result.stderr).split())
    assert "candidate 'rule_based' is not an LLM candidate" in output
    assert "Traceback" not in output


def test_a_setting_the_candidate_does_not_take_is_refused_from_its_spec(harness, built_package):
    """calamo's spec has no translation stage: chen's temperature_translate is refused before
    any call, as `dmbench generate` refuses it for calamo."""
    refused = "temperature_translate are not settings of calamo"
    with pytest.raises(harness.PrerequisiteError, match=refused):
        harness.domain_modelling(
            candidate="calamo", package=str(built_package), temperature_translate=0.1
        )


@pytest.mark.needs_nltk
def test_inspect_eval_from_the_shell_imports_as_a_run_that_validates(package, tmp_path):
    """The issue's acceptance, as a user types it: eval, import, validate, data/runs.csv."""
    result = run(
        str(BIN / "inspect"), "eval", "dmbench/domain_modelling", "-T", "candidate=calamo",
        "-T", "dataset=ds2", "--model", "mockllm/model", "--log-dir", "L", "--display", "none",
        cwd=package,
    )
    assert result.returncode == 0, result.stderr
    (log,) = (package / "L").glob("*.eval")
    imported = run(str(BIN / "dmbench"), "import-inspect", str(log), "--package", ".", cwd=package)
    assert imported.returncode == 0, imported.stderr
    (line,) = imported.stdout.splitlines()
    assert "imported from" in line and "(8 outputs, 8 failed)" in line
    run_id = line.split(":")[0]
    assert run_id.startswith("calamo__mockllm_model__ds2__run1__")
    # mockllm/model's answer holds no diagram (offline, its token count fails first): failures
    outputs = read_jsonl(package / "runs" / run_id / "outputs.jsonl")
    assert len(outputs) == 8 and all(o["failed"] and o["generated"] == "" for o in outputs)

    validated = dmbench("validate", "--package", str(package))
    assert validated.exit_code == 0, validated.output
    with (package / "data" / "runs.csv").open(encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["run_id"] == run_id]
    assert [(r["model"], r["provider"], r["origin"], r["n_records"], r["n_failed"])
            for r in rows] == [("mockllm/model", "mockllm", "generated", "8", "8")]
    info = json.loads((package / "runs" / run_id / "run.json").read_text())
    assert info["provenance"]["provider"] == "mockllm"
    assert info["provenance"]["harness"] == "inspect_ai"
    assert info["provenance"]["inspect_ai_version"]
    assert info["provenance"]["log_sha256"] == hashlib.sha256(log.read_bytes()).hexdigest()

    before = tree_digest(package / "runs")
    again = dmbench("import-inspect", str(log), "--package", str(package))
    assert again.exit_code == 0 and "already imported" in again.stdout
    assert tree_digest(package / "runs") == before


@pytest.mark.needs_nltk
def test_calamo_sends_its_prompt_and_scores_as_score_pairs_does(harness, package, tmp_path):
    """A mock answering real PlantUML: the request is calamo's, byte for byte; the task's scores
    are those of `dmbench score-pairs`; the imported outputs are the diagrams it scored."""
    recorder, log_path = harness.run_task(
        package, tmp_path / "logs", lambda system, user: f"Here it is:\n{DIAGRAM}\nDone.",
        candidate="calamo", dataset="ds2", metric="metrik-2",
    )
    records = load_records(package, "ds2")
    system = load_prompt(package, "calamo_system.txt")
    assert sorted(recorder.requests) == sorted((system, user_message(r.text)) for r in records)

    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    expected_generated = validate(DIAGRAM).repaired
    by_id = {r.record_id: r for r in records}
    pairs = [(by_id[str(s.id)].reference, expected_generated) for s in log.samples]
    for metric, scorer in (("metrik-4", "benchmark_score"), ("metrik-2", "benchmark_score1")):
        shell = score_pairs(pairs, metric, tmp_path)
        for sample, scored in zip(log.samples, shell, strict=True):
            score = sample.scores[scorer]
            assert score.metadata == {"metric": metric}
            assert score.answer == expected_generated
            assert score.value == {key: scored[key] for key in SCORE_NAMES}
            assert score.explanation == scored["error"]

    (imported,) = Package(package).import_inspect([log_path])
    assert (imported.n_outputs, imported.n_failed, imported.added) == (8, 0, True)
    outputs = read_jsonl(package / "runs" / imported.run_id / "outputs.jsonl")
    assert [o["record_id"] for o in outputs] == [r.record_id for r in records]
    assert {o["generated"] for o in outputs} == {expected_generated}


@pytest.mark.needs_nltk
@pytest.mark.needs_nltk
def test_an_imported_run_is_judged_by_dmbench_judge_like_a_generated_one(
    harness, package, tmp_path, fake_ollama
):
    """`dmbench judge --runs` on an imported run: judged, stored, and the package validates."""
    _recorder, log_path = harness.run_task(
        package, tmp_path / "logs", lambda s, u: DIAGRAM, candidate="calamo", dataset="ds2"
    )
    (imported,) = Package(package).import_inspect([log_path])
    fake_ollama.responder = judge_reply(8, 4)
    judged = dmbench("judge", "--model", "test-model", "--host", fake_ollama.url, "--runs",
                     imported.run_id, "--package", str(package))
    assert judged.exit_code == 0, judged.output
    with (package / "data" / "judgements.csv").open(encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["run_id"] == imported.run_id]
    assert len({row["record_id"] for row in rows}) == 8
    assert all(row["failed"] == "false" for row in rows)
    validated = dmbench("validate", "--package", str(package))
    assert validated.exit_code == 0, validated.output


def test_chen_sends_its_two_stages_and_an_unextractable_reply_is_a_failure(
    harness, package, tmp_path
):
    """chen: stage 1 (system + task and text) then stage 2 (translate + the cut DSL); a stage-2
    reply without a diagram is chen's own failure, stored as one."""
    dsl = "Lab: name\n" * 300  # longer than the 2000-character cut

    def answer(system: str, user: str) -> str:
        return dsl if user.startswith("USER:") else "no diagram here"

    recorder, log_path = harness.run_task(
        package, tmp_path / "logs", answer, candidate="chen", dataset="ds2", temperature=0.0
    )
    task = load_prompt(package, "chen_task.txt")
    stage1 = {(load_prompt(package, "chen_system.txt"), stage1_user(task, r.text))
              for r in load_records(package, "ds2")}
    stage2 = (load_prompt(package, "chen_translate.txt"), dsl[:CUT])
    assert set(recorder.requests) == stage1 | {stage2}
    assert len(recorder.requests) == 16

    (imported,) = Package(package).import_inspect([log_path])
    outputs = read_jsonl(package / "runs" / imported.run_id / "outputs.jsonl")
    assert {(o["failed"], o["error"]) for o in outputs} == {
        (True, "zenodo_zero_shot_stage2_no_puml")
    }
    info = json.loads((package / "runs" / imported.run_id / "run.json").read_text())
    assert info["settings"]["temperature"] == 0.0
    assert info["settings"]["enable_translation"] is True


def test_each_epoch_is_a_run_and_a_partial_log_an_unfinished_one(harness, package, tmp_path):
    """`--epochs 2 --limit 3`: runs 1 and 2 with 3 outputs each, not complete in data/runs.csv."""
    _recorder, log_path = harness.run_task(
        package, tmp_path / "logs", lambda s, u: DIAGRAM, {"epochs": 2, "limit": 3},
        candidate="calamo", dataset="ds2",
    )
    imported = Package(package).import_inspect([log_path])
    assert [(r.run_id.split("__")[3], r.n_outputs) for r in imported] == [("run1", 3), ("run2", 3)]
    with (package / "data" / "runs.csv").open(encoding="utf-8", newline="") as handle:
        rows = {row["run_id"]: row for row in csv.DictReader(handle)}
    assert [rows[r.run_id]["complete"] for r in imported] == ["false", "false"]


def test_a_log_of_another_task_is_refused_in_one_line(harness, package, tmp_path):
    other = harness.Task(
        dataset=[harness.Sample(input="hi", target="x")], solver=harness.generate()
    )
    model = harness.get_model("mockllm/model", custom_outputs=lambda *a: harness.reply("x"))
    (log,) = harness.eval(other, model=model, log_dir=str(tmp_path / "logs"), display="none")
    result = dmbench("import-inspect", log.location, "--package", str(package))
    assert result.exit_code == 1
    assert "not of dmbench/domain_modelling" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not any(p.name.startswith("calamo__mockllm") for p in (package / "runs").iterdir())


def test_a_log_whose_records_the_package_lacks_is_refused(harness, package, tmp_path):
    """The eval ran on other records (here: a folder whose ds2 texts were edited)."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "data").mkdir(parents=True)
    (elsewhere / "prompts").symlink_to(package / "prompts")
    records = load_records(package)
    record = next(r for r in records if r.dataset == "ds2")
    text = record.text + " Also a barn."
    edited = replace(record, text=text, text_sha256=sha256_text(text))
    write_records(elsewhere / RECORDS_PATH, [edited if r is record else r for r in records])
    _recorder, log_path = harness.run_task(
        elsewhere, tmp_path / "logs", lambda s, u: "none", candidate="calamo", dataset="ds2"
    )
    result = dmbench("import-inspect", str(log_path), "--package", str(package))
    assert result.exit_code == 1
    assert f"sample '{record.record_id}' has another text than a ds2 record" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_file_that_is_not_a_log_is_refused_in_one_line(package, tmp_path):
    bogus = tmp_path / "bogus.eval"
    bogus.write_bytes(b"not a zip")
    result = dmbench("import-inspect", str(bogus), "--package", str(package))
    assert result.exit_code == 1
    assert "bogus.eval: not a readable inspect_ai eval log" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.needs_nltk
def test_the_judge_scorer_is_dmbench_judge_on_an_inspect_model(harness, package, tmp_path):
    """`-T judge=MODEL`: S_final per record as `judge_instance` gives it for the same replies."""
    _recorder, log_path = harness.run_task(
        package, tmp_path / "logs", lambda s, u: DIAGRAM, candidate="calamo", dataset="ds2",
        judge="scriptedjudge/any",
    )
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    criteria = load_criteria()
    replay = Judge(harness.ReplayChat(), criteria, JudgeOptions())
    for sample in log.samples:
        judged = sample.scores["judge_score"]
        instance = Instance(str(sample.id), sample.input, sample.target,
                            validate(DIAGRAM).repaired, sample.metadata["type"],
                            sample.metadata["caption"])
        expected = judge_instance([replay], instance)
        assert judged.value == {"s_final": expected.s_final}
        assert 0 < expected.s_final < 1
    assert set(harness.ScriptedJudge.systems) == {JUDGE_SYSTEM}


@pytest.mark.needs_nltk
def test_the_judge_scorer_sees_the_drawings_with_judge_view_image(harness, package, tmp_path):
    """`-T judge_view=image`: every judge call holds two PNG images and no diagram source."""
    harness.ScriptedJudge.users.clear()
    _recorder, log_path = harness.run_task(
        package, tmp_path / "logs", lambda s, u: DIAGRAM, {"limit": 2}, candidate="calamo",
        dataset="ds2", judge="scriptedjudge/any", judge_view="image",
    )
    from inspect_ai.log import read_eval_log
    from inspect_ai.model import ContentImage, ContentText

    log = read_eval_log(str(log_path))
    assert all(0 < s.scores["judge_score"].value["s_final"] < 1 for s in log.samples)
    assert len(harness.ScriptedJudge.users) == 4  # two records, both orders
    for content in harness.ScriptedJudge.users:
        texts = [part.text for part in content if isinstance(part, ContentText)]
        images = [part.image for part in content if isinstance(part, ContentImage)]
        assert len(texts) == 1 and "@startuml" not in texts[0] and "class " not in texts[0]
        assert len(images) == 2
        assert all(image.startswith("data:image/png;base64,iVBORw0KGgo") for image in images)


def test_a_prompt_variant_is_sent_and_imported_as_a_run_of_its_own(harness, package, tmp_path):
    """``-T prompts=DIR`` as ``generate --prompts DIR``: the model gets the variant's text, the
    imported run records the variant's name and hashes, and its id is not the pinned run's."""
    few_shot = "You draw domain models. Example: a library lends books -> class Library.\n"
    variant = tmp_path / "few-shot"
    variant.mkdir()
    (variant / "calamo_system.txt").write_text(few_shot, "utf-8")
    answer = lambda system, user: DIAGRAM  # noqa: E731
    varied, varied_log = harness.run_task(package, tmp_path / "varied", answer,
                                          candidate="calamo", dataset="ds2", prompts=str(variant))  # fmt: skip
    assert {system for system, _ in varied.requests} == {few_shot}
    _, pinned_log = harness.run_task(package, tmp_path / "pinned", answer, candidate="calamo",
                                     dataset="ds2")  # fmt: skip
    (varied_run,) = Package(package).import_inspect([varied_log])
    (pinned_run,) = Package(package).import_inspect([pinned_log])
    assert varied_run.run_id != pinned_run.run_id
    settings = json.loads((package / "runs" / varied_run.run_id / "run.json").read_text())["settings"]
    assert settings["prompts"] == {"variant": "few-shot",
                                   "sha256": {"calamo_system.txt": sha256_text(few_shot)}}  # fmt: skip
    assert Package(package).validate().valid
