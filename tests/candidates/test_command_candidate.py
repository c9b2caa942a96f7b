"""A candidate of one's own: a shell command or a Python function, run into a copy of the built
package; failures stay per record and a refused or killed ``generate`` changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from kill_support import in_child_killed_after
from results_support import copy_package

from dmbench import Package
from dmbench.cli import main
from dmbench.core.hashing import file_sha256
from dmbench.package import validate_package
from dmbench.runs.store import list_runs

#: The README's shell candidate, with two ways to fail: a crash on one record, and garbage
#: bytes on another.
SCRIPT = """#!/bin/sh
set -eu
text=$(cat)
case "$DMBENCH_RECORD_ID" in
  ds2-CelO) echo "no idea what a CelO is" >&2; exit 3 ;;
  ds2-LabTracker) printf '\\377\\376' ; exit 0 ;;
esac
echo "@startuml"
printf '%s\\n' "$text" | tr -cs 'A-Za-z' '\\n' | grep -E '^[A-Z][a-z]{3,}$' | sort -u | head -8 |
  while read -r word; do echo "class $word"; done
echo "@enduml"
"""


def _snapshot(package: Path) -> dict[str, str]:
    """Every file of the package but the lock and the work folders, by sha256."""
    return {
        str(path.relative_to(package)): file_sha256(path)
        for path in sorted(package.rglob("*"))
        if path.is_file() and not str(path.relative_to(package)).startswith(".dmbench-")
    }


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return copy_package(tmp_path / "package")


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "nouns.sh"
    path.write_text(SCRIPT, "utf-8")
    return path


def _generate(package: Path, *args: str):
    return CliRunner().invoke(main, ["generate", *args, "--package", str(package)])


def test_a_command_that_fails_on_some_records_fails_those_only(package, script):
    result = _generate(package, "--command", f"sh {script}", "--name", "nouns",
                       "--dataset", "ds2", "--workers", "2")  # fmt: skip
    assert result.exit_code == 0, result.output
    (run,) = [r for r in list_runs(package) if r.info.candidate == "nouns"]
    rows = {row.record_id: row for row in run.outputs()}
    assert len(rows) == 8
    assert rows["ds2-CelO"].error == "command: exit status 3: no idea what a CelO is"
    assert rows["ds2-LabTracker"].error.startswith("command: output is not UTF-8")
    assert {rid for rid, row in rows.items() if row.failed} == {"ds2-CelO", "ds2-LabTracker"}
    assert all(row.generated.startswith("@startuml\nclass ") for row in rows.values()
               if not row.failed)  # fmt: skip
    assert run.info.settings["files_sha256"] == {str(script): file_sha256(script)}
    assert run.info.provenance["candidate"]["kind"] == "command"
    report = validate_package(package)
    assert report.valid, report.render()


def test_a_changed_script_makes_another_run(package, script):
    first = Package(package).generate(command=f"sh {script}", name="nouns", dataset="ds2")
    script.write_text(SCRIPT.replace("head -8", "head -3"), "utf-8")
    second = Package(package).generate(command=f"sh {script}", name="nouns", dataset="ds2")
    assert first[0].info.run_id != second[0].info.run_id
    assert len([r for r in list_runs(package) if r.info.candidate == "nouns"]) == 2


def test_a_timeout_is_a_failed_output(package, tmp_path):
    slow = tmp_path / "slow.py"
    slow.write_text("import time, sys\nsys.stdin.read()\nprint('started', file=sys.stderr)\n"
                    "sys.stderr.flush()\ntime.sleep(30)\n", "utf-8")  # fmt: skip
    (run,) = Package(package).generate(
        command=f"{sys.executable} {slow}", name="slow", dataset="ds2", timeout=0.5, workers=8
    )
    assert {row.error for row in run.outputs()} == {"command: timeout after 0.5 s: started"}


def test_a_python_function_is_a_candidate(package):
    def one_class(text: str) -> str:
        if "Lab" in text:
            raise RuntimeError("labs are hard")
        return f"@startuml\nclass {text.split()[0].strip('.,')}\n@enduml\n"

    (run,) = Package(package).generate(one_class, name="first-word", dataset="ds2")
    failed = {row.record_id: row.error for row in run.outputs() if row.failed}
    assert failed and set(failed.values()) == {"RuntimeError: labs are hard"}
    assert run.info.provenance["candidate"]["kind"] == "python"
    assert run.info.settings["function"].endswith("one_class")
    assert validate_package(package).valid


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--name", "chen"], "'chen' is a registered candidate"),
        (["--name", "../../tmp/x"], "candidate name '../../tmp/x' is not allowed"),
        (["--name", "a__b"], "is not allowed"),
        ([], "needs --name"),
        (["--name", "ok", "--model", "m"], "'model' is not an option"),
    ],
)
def test_a_refused_command_candidate_changes_nothing(package, script, args, message):
    before = _snapshot(package)
    result = _generate(package, "--command", f"sh {script}", "--dataset", "ds2", *args)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert message in result.output.strip().splitlines()[-1]  # one line says why
    assert _snapshot(package) == before


def test_a_generate_killed_mid_run_leaves_the_package_as_it_was_and_resumes(package, tmp_path):
    """The command kills dmbench itself on the fifth record (its parent process)."""
    killer = tmp_path / "killer.sh"
    killer.write_text(
        '#!/bin/sh\ncat >/dev/null\nif [ -e "$0.armed" ] && [ "$DMBENCH_RECORD_ID" = ds2-OTS ];'
        ' then kill -9 $PPID; sleep 5; fi\necho "@startuml\nclass A\n@enduml"\n', "utf-8"
    )  # fmt: skip
    Path(f"{killer}.armed").touch()
    before = _snapshot(package)
    cmd = [sys.executable, "-m", "dmbench", "generate", "--command", f"sh {killer}",
           "--name", "killer", "--dataset", "ds2", "--package", str(package)]  # fmt: skip
    killed = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert _snapshot(package) == before
    validated = CliRunner().invoke(main, ["validate", str(package)])
    assert validated.exit_code == 0, validated.output
    os.remove(f"{killer}.armed")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    (run,) = [r for r in list_runs(package) if r.info.candidate == "killer"]
    assert len(run.outputs()) == 8 and run.info.provenance["segments"][1]["stored_before"] >= 1


@pytest.mark.parametrize("moves", [0, 1, 2])
def test_a_generate_killed_at_each_move_of_its_publish_leaves_a_valid_package(
    package, script, moves
):
    """Killed before publishing, between the two renames, or before the retired folder goes:
    the next command finds a valid package, with the run whole or not there at all."""
    before = _snapshot(package)

    def run() -> None:
        Package(package).generate(command=f"sh {script}", name="nouns", dataset="ds2")

    assert in_child_killed_after(moves, run) == -signal.SIGKILL
    report = validate_package(package)
    assert report.valid, report.render()
    runs = [r for r in list_runs(package) if r.info.candidate == "nouns"]
    assert runs == [] and _snapshot(package) == before or len(runs[0].outputs()) == 8
