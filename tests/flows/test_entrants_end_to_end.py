"""Issue 32's first acceptance point end to end: the README's shell-script candidate and its
plug-in, each taken from the README's text, make runs that appear in ``validate``, Tables 2-3
under both metrics, the report's index and record pages (seen in headless Chromium),
``verify``, the judge, and a deposit that ``dmbench check`` passes.

The package is the one the main job leaves (``results_support.two_series_package``, two series
so the deposit is quick); everything after is what a newcomer types, in the package folder, with
the plug-in on the path of every ``dmbench`` process as ``pip install .`` would leave it. The
downloader's ``check`` runs without the plug-in: a deposit must not need the entrant's code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import Chromium, find_chromium
from conftest import ROOT
from entrants import PLUGIN_DISTRIBUTION, install_readme_plugin, readme_block
from fake_ollama import judge_reply
from results_support import two_series_package

from dmbench.core.hashing import sha256_text
from dmbench.judge.runs import list_judge_runs
from dmbench.release.deposit import PACKAGE_ZIP
from dmbench.runs.store import list_runs

pytestmark = pytest.mark.needs_shared

SHELL, PLUGIN = "nouns-sh", "nouns"
"""The names the README gives its two entrants."""
README_DATASET = "--dataset all --runs 3"
SMALL_DATASET = "--dataset ds2"
"""The README's commands run on DS-2 once (8 records), so that the test stays short."""


def _env(site: Path | None) -> dict[str, str]:
    """A newcomer's shell: dmbench on PATH, the plug-in (when given) importable."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    env = {**os.environ, "PATH": path}
    env.pop("PYTHONPATH", None)
    return env if site is None else {**env, "PYTHONPATH": str(site)}


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _rows_of(table_json: str, candidate: str) -> list[dict]:
    return [row for row in json.loads(table_json) if row.get("candidate") == candidate]


def _record_page_sections(chromium: Chromium, page: Path) -> dict[str, list[str]]:
    """The record page as Chromium shows it: each cell's heading -> its outputs' sha256."""
    load = chromium.load(page.resolve().as_uri())
    assert load.console == [] and load.failed == [] and load.broken_images == [], load
    return dict(
        chromium.evaluate(
            "Array.from(document.querySelectorAll('section')).filter(s => s.querySelector('h2'))"
            ".map(s => [s.querySelector('h2').textContent,"
            " Array.from(s.querySelectorAll('article.run')).map(a => a.dataset.generatedSha256)])"
        )
    )


def test_the_readme_entrants_go_from_generate_to_a_checked_deposit(tmp_path, fake_ollama):
    if find_chromium() is None:
        pytest.fail("chromium is missing: `bash scripts/setup.sh` (as root) installs it")
    package = tmp_path / "package"
    shutil.copytree(two_series_package(), package)
    site = install_readme_plugin(tmp_path / "site")
    env = _env(site)
    (package / "nouns.sh").write_text(readme_block("readme-shell-candidate"), "utf-8")

    # The shell candidate: the README's own command lines, in the package folder.
    commands = readme_block("readme-shell-candidate-commands")
    assert commands.count(README_DATASET) == 1
    _run(["bash", "-euc", commands.replace(README_DATASET, SMALL_DATASET)], package, env)

    # The plug-in: by name, then scored under both metrics like the shell candidate.
    _run(["dmbench", "generate", "--candidate", PLUGIN, "--dataset", "ds2"], package, env)
    runs = {run.info.candidate: run for run in list_runs(package)
            if run.info.candidate in (SHELL, PLUGIN)}  # fmt: skip
    assert set(runs) == {SHELL, PLUGIN}
    plugin_id = runs[PLUGIN].info.run_id
    name, version = PLUGIN_DISTRIBUTION
    assert runs[PLUGIN].info.provenance["candidate"]["distribution"] == name
    assert runs[PLUGIN].info.provenance["candidate"]["version"] == version
    assert runs[SHELL].info.provenance["candidate"]["kind"] == "command"
    for metric in ("metrik-4", "metrik-4-standard"):
        _run(["dmbench", "score", "--metric", metric, "--runs", plugin_id], package, env)
    _run(["dmbench", "tables"], package, env)

    # Tables 2-3, both metrics: the JSON rows and the files `tables` refreshed.
    folders = {"metrik-4": "results", "metrik-4-standard": "results/metrik-4-standard"}
    for metric, folder in folders.items():
        shown = _run(["dmbench", "tables", "--format", "json", "--metric", metric, "--scores",
                      "recomputed"], package, env)  # fmt: skip
        for candidate in (SHELL, PLUGIN):
            assert {row["table"] for row in _rows_of(shown, candidate)} == {"table3"}, metric
            assert f"| {candidate} |" in (package / folder / "table3.md").read_text("utf-8")
    assert "valid" in _run(["dmbench", "validate"], package, env)

    # verify re-computes both entrants' stored scores from their outputs.
    verified = _run(["dmbench", "verify"], package, env)
    for run in runs.values():
        assert f"  {run.info.run_id}: 8 records, ok" in verified
    assert "verdict: OK" in verified

    # The judge against the scripted server takes both runs by id.
    fake_ollama.responder = judge_reply(8, 4)
    ids = ",".join(run.info.run_id for run in runs.values())
    _run(["dmbench", "judge", "--model", "test-model", "--host", fake_ollama.url, "--runs", ids,
          "--quiet"], package, env)  # fmt: skip
    (judge_run,) = list_judge_runs(package)
    assert {row["run_id"] for row in judge_run.rows()} == set(ids.split(","))

    # The report: both entrants on the index and, with their outputs, on a record page.
    _run(["dmbench", "report"], package, env)
    record_id = runs[SHELL].outputs()[0].record_id
    with Chromium() as chromium:
        index = chromium.load((package / "report" / "index.html").resolve().as_uri())
        assert index.console == [] and index.failed == [] and index.broken_images == []
        columns = chromium.evaluate(
            "Array.from(document.querySelectorAll('th.cell')).map(th => th.textContent)"
        )
        assert {SHELL, PLUGIN} <= set(columns), columns
        sections = _record_page_sections(chromium, package / "report" / f"{record_id}.html")
    for candidate, run in runs.items():
        (output,) = [o for o in run.outputs() if o.record_id == record_id]
        assert sections[candidate] == [sha256_text(output.generated)], candidate

    # The deposit, and the downloader's check of it without the plug-in.
    _run(["dmbench", "validity", "--out", "results"], package, env)
    _run(["dmbench", "validate"], package, env)
    deposit = tmp_path / "deposit"
    _run(["dmbench", "deposit", "--out", str(deposit), "--draft", "--repo", str(ROOT)],
         package, env)  # fmt: skip
    checked = _run(["dmbench", "check", str(deposit / PACKAGE_ZIP)], tmp_path, _env(None))
    assert "verdict: OK" in checked
