"""The README's two candidates of one's own, as a newcomer would use them: the shell script
through ``--command`` and the plug-in through a real entry point (a ``.dist-info`` on the path
of a fresh ``dmbench`` process), each a run that validates, scores and tabulates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from entrants import install_readme_plugin, readme_block
from fake_ollama import judge_reply
from results_support import copy_package

from dmbench import Package
from dmbench.cli import main
from dmbench.judge.runs import list_judge_runs
from dmbench.package import validate_package
from dmbench.runs.store import list_runs


def test_the_readme_candidates_are_short():
    assert len(readme_block("readme-shell-candidate").splitlines()) <= 10
    assert len(readme_block("readme-plugin-candidate").splitlines()) <= 20


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """The README's plug-in installed as pip would leave it: module plus ``.dist-info``."""
    return install_readme_plugin(tmp_path / "site")


def _dmbench(plugin_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(plugin_path)}
    return subprocess.run([sys.executable, "-m", "dmbench", *args], capture_output=True,
                          text=True, env=env, timeout=600)  # fmt: skip


def _scored_and_tabulated(package: Path, candidate: str) -> None:
    runner = CliRunner()
    run_ids = [r.info.run_id for r in list_runs(package) if r.info.candidate == candidate]
    assert run_ids
    for metric in ("metrik-4", "metrik-4-standard"):
        scored = runner.invoke(main, ["score", "--metric", metric, "--runs", ",".join(run_ids),
                                      "--package", str(package)])  # fmt: skip
        assert scored.exit_code == 0, scored.output
        tables = runner.invoke(main, ["tables", "--format", "json", "--metric", metric,
                                      "--scores", "recomputed", "--package", str(package)])  # fmt: skip
        assert tables.exit_code == 0, tables.output
        rows = [row for row in json.loads(tables.stdout) if row.get("candidate") == candidate]
        assert {row["table"] for row in rows} >= {"table3"}, metric
    validated = runner.invoke(main, ["validate", str(package)])
    assert validated.exit_code == 0, validated.output


def test_the_readme_shell_candidate_makes_a_run_like_any_other(tmp_path):
    package = copy_package(tmp_path / "package")
    script = tmp_path / "nouns.sh"
    script.write_text(readme_block("readme-shell-candidate"), "utf-8")
    result = CliRunner().invoke(main, ["generate", "--command", f"sh {script}", "--name",
                                       "nouns", "--dataset", "ds2", "--package", str(package)])  # fmt: skip
    assert result.exit_code == 0, result.output
    (run,) = [r for r in list_runs(package) if r.info.candidate == "nouns"]
    assert not any(row.failed for row in run.outputs())
    _scored_and_tabulated(package, "nouns")


def test_the_readme_plugin_is_listed_and_generates_by_name(tmp_path, plugin_path):
    listed = _dmbench(plugin_path, "generate", "--help")
    assert listed.returncode == 0 and "rule_based|chen|calamo|nouns" in listed.stdout
    package = copy_package(tmp_path / "package")
    done = _dmbench(plugin_path, "generate", "--candidate", "nouns", "--dataset", "ds2",
                    "--package", str(package))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (run,) = [r for r in list_runs(package) if r.info.candidate == "nouns"]
    assert run.info.settings == {"uses_llm": False, "limit": 8}
    assert run.info.provenance["candidate"] == {
        "kind": "plugin",
        "entry_point": "dmbench_nouns:SPEC",
        "distribution": "dmbench-nouns",
        "version": "0.1.0",
    }
    assert all(row.generated.startswith("@startuml\nclass ") for row in run.outputs())
    _scored_and_tabulated(package, "nouns")


def test_a_broken_plugin_is_named_in_one_warning_and_left_out(plugin_path):
    (plugin_path / "dmbench_nouns.py").write_text("raise ImportError('no numpy here')\n", "utf-8")
    listed = _dmbench(plugin_path, "generate", "--help")
    assert listed.returncode == 0 and "nouns" not in listed.stdout.split("--command")[0]
    assert "plug-in candidate 'nouns' (dmbench_nouns:SPEC) not loaded: ImportError: no numpy" \
        in listed.stderr


ONE_FILE_CANDIDATE = '''
"""A candidate in one file: define it, register its spec; nothing else in dmbench changes."""
from dmbench.candidates import CandidateOutput, CandidateSpec, OptionDoc, register


class Echo:
    name = "echo"

    def __init__(self, prefix: str = "Echo") -> None:
        self.prefix = prefix

    def describe(self):
        return {"settings": {"uses_llm": False, "prefix": self.prefix}}

    def generate(self, record):
        name = self.prefix + record.id.replace("-", "")
        return CandidateOutput(f"@startuml\\nclass {name}\\n@enduml\\n", False)


register(CandidateSpec("echo", 11, "echo", False, "the record id as a class", Echo,
                       options={"prefix": "Echo"},
                       option_docs={"prefix": OptionDoc("What echo's class names start with")}))
'''

ONE_FILE_SCRIPT = """
import sys, echo_candidate
from dmbench.cli import main
from dmbench.report.data import record_views
if sys.argv[1] == "labels":
    print(sorted({cell.label for view in record_views(sys.argv[2]) for cell, _ in view.outputs}))
else:
    main(sys.argv[1:])
"""


def test_adding_a_candidate_touches_one_file(tmp_path):
    """A temporary module registers a candidate with an option of its own; in fresh processes
    (the registry is per process) the command line offers the candidate and its option, the run
    records it, and the tables, the report's cells and validation take the candidate by name."""
    (tmp_path / "echo_candidate.py").write_text(ONE_FILE_CANDIDATE, "utf-8")
    (tmp_path / "echo_cli.py").write_text(ONE_FILE_SCRIPT, "utf-8")
    package = copy_package(tmp_path / "package")

    def echo(*args: str) -> str:
        done = subprocess.run([sys.executable, str(tmp_path / "echo_cli.py"), *args],
                              capture_output=True, text=True, timeout=600, cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(tmp_path)})  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout

    shown = " ".join(echo("generate", "--help").split())
    assert "rule_based|chen|calamo|echo" in shown
    assert "--prefix TEXT What echo's class names start with [default: Echo]." in shown
    echo("generate", "--candidate", "echo", "--prefix", "Z", "--dataset", "ds2",
         "--package", str(package))  # fmt: skip
    (run,) = [r for r in list_runs(package) if r.info.candidate == "echo"]
    assert run.info.settings == {"uses_llm": False, "prefix": "Z"}
    assert run.info.provenance["candidate"]["kind"] == "python"
    assert all(row.generated.startswith("@startuml\nclass Zds2") for row in run.outputs())
    echo("score", "--runs", run.info.run_id, "--package", str(package))
    rows = json.loads(echo("tables", "--format", "json", "--package", str(package)))
    assert [row["table"] for row in rows if row.get("candidate") == "echo"] == ["table3"]
    assert "'echo'" in echo("labels", str(package))
    assert "valid" in echo("validate", str(package))


def test_the_readme_shell_candidates_run_is_judged_like_any_other(tmp_path, fake_ollama):
    """The judge takes a command candidate's run by id; the package stays valid."""
    package = copy_package(tmp_path / "package")
    script = tmp_path / "nouns.sh"
    script.write_text(readme_block("readme-shell-candidate"), "utf-8")
    (run,) = Package(package).generate(command=f"sh {script}", name="nouns", dataset="ds2")
    fake_ollama.responder = judge_reply(8, 4)
    judged = CliRunner().invoke(main, ["judge", "--model", "test-model", "--host",
                                       fake_ollama.url, "--runs", run.info.run_id,
                                       "--package", str(package)])  # fmt: skip
    assert judged.exit_code == 0, judged.output
    (judge_run,) = list_judge_runs(package)
    assert {row["run_id"] for row in judge_run.rows()} == {run.info.run_id}
    assert len(judge_run.rows()) == 8
    assert validate_package(package).valid
