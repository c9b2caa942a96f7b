"""Issue 37, findings 1, 2 and 5: hostile inspect_ai eval logs. Each is a genuine log of the
task (mock model) with one thing changed through inspect_ai's own writer; the import refuses it
in one line naming the log, before anything is written (the package is byte for byte as before
and still valid), or imports it cleanly. A log's model_base_url keeps no credentials, query or
fragment anywhere in the package."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.package.validate import validate_package

DIAGRAM = "@startuml\nclass Lab {\n  name : String\n}\nLab -- Sample : holds\n@enduml"
SECRET_URL = "https://alice:hunter2-PASSWORD@llm.example.org/v1?api_key=SK-PLANTED-KEY#frag-PLANTED"
PLANTED = ("hunter2-PASSWORD", "SK-PLANTED-KEY", "frag-PLANTED", "alice")


def _stored(key, value):
    def change(log):
        log.samples[0].store["dmbench_output"][key] = value
    return change


def _without(key):
    def change(log):
        del log.samples[0].store["dmbench_output"][key]
    return change


def _meta(key, value):
    def change(log):
        log.eval.metadata["dmbench"][key] = value
    return change


def _setting(key, value):
    def change(log):
        log.eval.metadata["dmbench"]["settings"][key] = value
    return change


def _eval(key, value):
    def change(log):
        setattr(log.eval, key, value)
    return change


def _epoch(value):
    def change(log):
        log.samples[0].epoch = value
    return change


def _drop_meta(key):
    def change(log):
        del log.eval.metadata["dmbench"][key]
    return change


def _stats(key, value):
    def change(log):
        setattr(log.stats, key, value)
    return change


REFUSED = {
    "generated an int": (_stored("generated", 5), "'generated' is 5"),
    "generated null": (_stored("generated", None), "'generated' is None"),
    "calls a string": (_stored("calls", "x"), "'calls' is 'x'"),
    "calls a dict": (_stored("calls", {"a": 1}), "'calls'"),
    "calls of strings": (_stored("calls", ["x"]), "calls are not all objects"),
    "elapsed NaN": (_stored("elapsed_seconds", float("nan")), "elapsed_seconds nan"),
    "elapsed inf": (_stored("elapsed_seconds", float("inf")), "elapsed_seconds inf"),
    "elapsed -1e9": (_stored("elapsed_seconds", -1e9), "elapsed_seconds -1000000000.0"),
    "elapsed abc": (_stored("elapsed_seconds", "abc"), "'elapsed_seconds' is 'abc'"),
    "error a list": (_stored("error", ["x"]), "'error' is ['x']"),
    "failed a string": (_stored("failed", "false"), "'failed' is 'false'"),
    "failed an int": (_stored("failed", 0), "'failed' is 0"),
    "no generated": (_without("generated"), "has no 'generated'"),
    "setting NaN": (_setting("temperature", float("nan")), "settings are refused"),
    "setting a string": (_setting("num_predict", "many"), "settings are refused"),
    "setting unknown": (_setting("evil", 1), "'evil'"),
    "uses_llm false": (_setting("uses_llm", False), "'uses_llm'"),
    "rule_based with an LLM": (_meta("candidate", "rule_based"), "not an LLM candidate"),
    "unknown candidate": (_meta("candidate", "../../x"), "settings are refused"),
    "no prompts_sha256": (_drop_meta("prompts_sha256"), "'prompts_sha256' is None"),
    "other prompts": (_meta("prompts_sha256", {"calamo_system.txt": "0" * 64}),
                      "prompts_sha256 differ"),
    "other upstream": (_meta("upstream_candidate", "chen_two_stage"), "upstream candidate"),
    "no generated key at all": (_drop_meta("settings"), "'settings' is None"),
    "settings a list": (_meta("settings", [1, 2]), "'settings' is [1, 2]"),
    "dataset unknown": (_meta("dataset", "ds9"), "'ds9' is no dataset"),
    "task evil": (_eval("task", "evil/domain_modelling"), "not of dmbench/domain_modelling"),
    "epoch 10^30": (_epoch(10**30), "is not in 1-1000"),
    "model 5 MB": (_eval("model", "m" * 5_000_000), "longer than 200 characters"),
    "model with markup": (_eval("model", "a|b<script>\n## x"), "holds characters outside"),
    "started in 1066": (_stats("started_at", "1066-10-14T09:00:00+00:00"), "is not a time"),
}


@pytest.fixture(scope="module")
def genuine(tmp_path_factory) -> Path:
    """A genuine log of `calamo` on two ds2 records (the mock model answers DIAGRAM)."""
    import inspect_support
    from results_support import built_package

    _recorder, log = inspect_support.run_task(
        built_package(), tmp_path_factory.mktemp("logs"), lambda s, u: DIAGRAM, {"limit": 2},
        candidate="calamo", dataset="ds2",
    )  # fmt: skip
    return log


@pytest.fixture(scope="module")
def shared_package(tmp_path_factory) -> Path:
    from results_support import copy_package

    return copy_package(tmp_path_factory.mktemp("hostile") / "package")


def hostile(genuine: Path, folder: Path, change) -> Path:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(genuine))
    change(log)
    target = folder / "hostile.eval"
    write_eval_log(log, str(target))
    return target


def digest(folder: Path) -> str:
    found = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != ".lock":
            found.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return found.hexdigest()


def import_inspect(log: Path, package: Path):
    return CliRunner().invoke(main, ["import-inspect", str(log), "--package", str(package)])


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_hostile_log_is_refused_in_one_line_with_nothing_written(
    case, genuine, shared_package, tmp_path
):
    change, expected = REFUSED[case]
    log = hostile(genuine, tmp_path, change)
    before = digest(shared_package)
    result = import_inspect(log, shared_package)
    assert result.exit_code == 1, (case, result.output)
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"Error: {log}") and expected in line, line
    assert len(line) < 600 and "Traceback" not in result.output
    assert digest(shared_package) == before


def test_after_the_hostile_logs_the_genuine_one_imports_and_the_package_is_valid(
    genuine, shared_package
):
    """Finding 1's second half: refused logs leave nothing that blocks the genuine log."""
    result = import_inspect(genuine, shared_package)
    assert result.exit_code == 0, result.output
    assert validate_package(shared_package).valid


def test_credentials_query_and_fragment_of_the_base_url_are_stored_nowhere(
    genuine, tmp_path, built_package
):
    """The planted password, api key and fragment are in no file of the package after the
    import (what a deposit zips and a report reads); the URL is kept cut, with a warning."""
    package = tmp_path / "package"
    shutil.copytree(built_package, package)
    log = hostile(genuine, tmp_path, _eval("model_base_url", SECRET_URL))
    result = import_inspect(log, package)
    assert result.exit_code == 0, result.output
    assert "dropped the user name and password, query, fragment" in result.stderr
    assert validate_package(package).valid
    stored = [p for p in package.rglob("*") if p.is_file()]
    assert any("llm.example.org/v1" in p.read_text("utf-8", "replace") for p in stored)
    for path in stored:
        text = path.read_text("utf-8", "replace")
        assert not [secret for secret in PLANTED if secret in text], path


def test_no_planted_secret_reaches_the_report_or_the_deposit(genuine, tmp_path):
    """The same log imported into a deposit-ready package, then its report and its deposit
    built: no file of either, nor any member of the deposit's zips, holds a planted secret."""
    import zipfile

    from conftest import ROOT
    from results_support import two_series_package

    from dmbench.release.deposit import CODE_ZIP, PACKAGE_ZIP, build_deposit
    from dmbench.report import build_site

    package = tmp_path / "package"
    shutil.copytree(two_series_package(), package)
    assert import_inspect(hostile(genuine, tmp_path, _eval("model_base_url", SECRET_URL)),
                          package).exit_code == 0  # fmt: skip
    build_site(package, tmp_path / "report")
    build_deposit(package, tmp_path / "deposit", draft=True, repo=ROOT)
    # The code zip is left out: it archives this checkout, whose tests (this one) name the
    # secrets they plant.
    files = {str(p): p.read_bytes() for p in (tmp_path / "report").rglob("*") if p.is_file()}
    files |= {str(p): p.read_bytes() for p in (tmp_path / "deposit").iterdir()
              if p.is_file() and p.name != CODE_ZIP}  # fmt: skip
    with zipfile.ZipFile(tmp_path / "deposit" / PACKAGE_ZIP) as archive:
        files |= {name: archive.read(name) for name in archive.namelist()}
    assert len(files) > 100
    secrets = [s for s in PLANTED if s != "alice"]  # a word WordNet's own files hold
    for name, data in files.items():
        assert not [s for s in secrets if s.encode() in data], name


def test_an_import_killed_before_its_refresh_is_completed_by_the_next(
    genuine, tmp_path, built_package, monkeypatch
):
    """Killed after the run was moved into ``runs/``: importing the log again derives the
    tables and leaves no work folder aside; the package is valid."""
    from dmbench.inspect_eval import logs
    from dmbench.runs.store import work_path

    package = tmp_path / "package"
    shutil.copytree(built_package, package)

    def killed(_package):
        raise KeyboardInterrupt

    monkeypatch.setattr(logs, "refresh", killed)
    with pytest.raises(KeyboardInterrupt):
        logs.import_inspect_logs(package, [genuine])
    monkeypatch.undo()
    (run,) = logs.import_inspect_logs(package, [genuine])
    assert not run.added
    assert run.run_id in (package / "data" / "runs.csv").read_text("utf-8")
    assert not work_path(package, run.run_id).exists()
    assert validate_package(package).valid
