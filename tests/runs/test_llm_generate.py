"""``dmbench generate`` with an LLM candidate, as a user runs it: killed, resumed, replayed offline.

The package comes from ``dmbench build --sources ../shared/upstream``; the candidate talks to the
fake Ollama server over real HTTP from a separate ``dmbench`` process.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import complete_lines
from fake_ollama import Reply, diagram_reply

from dmbench.candidates import Record, get_candidate
from dmbench.cli import main
from dmbench.cli.commands_generate import ProgressBar
from dmbench.llm import CacheMissError
from dmbench.package import load_records
from dmbench.runs.generate import generate_run
from dmbench.runs.store import OutputRow, read_outputs

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
DMBENCH = [sys.executable, "-c", "from dmbench.cli import main; main()"]
PREFIX = "Transform into plant uml this specification text: "


def scripted(body: dict) -> Reply:
    """A diagram for most records, none for about one in eight, each after a short delay."""
    user = body["messages"][-1]["content"]
    if hashlib.sha256(user.encode()).hexdigest()[0] in "01":
        return Reply("Sorry, I cannot draw that.", delay=0.08)
    return Reply(diagram_reply(body).content, delay=0.08)


def command(package: Path, url: str, *extra: str) -> list[str]:
    return [
        *DMBENCH, "generate", "--candidate", "calamo", "--model", "test-model",
        "--dataset", "ds1", "--workers", "3", "--host", url, "--package", str(package), *extra,
    ]  # fmt: skip


def outputs_file(package: Path) -> Path | None:
    """The run's outputs: in its work folder while it runs, in runs/ once it is done."""
    run = "calamo__test-model__ds1__run1__*/outputs.jsonl"
    found = sorted(package.glob(f".dmbench-cache/runs/{run}")) + sorted(package.glob(f"runs/{run}"))
    return found[0] if found else None


def kill_after(cmd: list[str], package: Path, stored: int) -> None:
    """Start ``cmd`` and SIGKILL it once ``stored`` records are on disk."""
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while len(complete_lines(outputs_file(package))) < stored:
        assert process.poll() is None, process.stderr.read().decode()
        assert time.monotonic() < deadline, "the run never got that far"
        time.sleep(0.005)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    process.stderr.close()


def essentials(rows: list[OutputRow]) -> list[tuple]:
    return [(r.record_id, r.generated, r.failed, r.error, r.raw) for r in rows]


def test_sigkill_resume_and_offline_replay(built_package, fake_ollama, tmp_path):
    """Killed twice mid-run, then resumed: every record once, in order, none asked twice; the run
    is scored, tabulated and validated like any other, and the cache replays the same outputs
    with the server stopped."""
    package = tmp_path / "package"
    shutil.copytree(built_package, package)
    fake_ollama.responder = scripted
    cmd = command(package, fake_ollama.url)
    order = [r.record_id for r in load_records(package, "ds1")]
    texts = {r.record_id: r.text for r in load_records(package, "ds1")}

    kills = []  # (records stored when killed, requests the server had seen by then)
    for stored in (5, 17):
        kill_after(cmd, package, stored)
        rows_then = complete_lines(outputs_file(package))
        assert len({row["record_id"] for row in rows_then}) == len(rows_then) >= stored
        kills.append(({row["record_id"] for row in rows_then}, len(fake_ollama.chats())))
    finished = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr

    rows = list(read_outputs(outputs_file(package)))
    assert [row.record_id for row in rows] == order  # none lost, none twice, record order
    asked = [body["messages"][1]["content"] for body in fake_ollama.chats()]
    for done, seen in kills:  # a record stored before a kill is never asked for after it
        assert not {PREFIX + texts[record_id] for record_id in done} & set(asked[seen:])
    assert len(fake_ollama.chats()) <= len(order) + 2 * 3  # at most the in-flight ones twice
    assert any(row.failed for row in rows) and not all(row.failed for row in rows)
    assert {row.error for row in rows if row.failed} == {"kaiser_zero_shot_no_plantuml"}
    assert "45 records" in finished.stdout

    # Scored, tabulated and validated in this process: only the kills need a process of their own.
    run_id = outputs_file(package).parent.name
    runner = CliRunner()
    scored = runner.invoke(main, ["score", "--runs", run_id, "--package", str(package)])
    assert scored.exit_code == 0, scored.output
    assert "scored 45 outputs of 1 runs" in scored.stdout
    tables = runner.invoke(
        main, ["tables", "--format", "json", "--scores", "recomputed", "--package", str(package)]
    )
    assert tables.exit_code == 0, tables.output
    assert '"model": "test-model"' in tables.stdout
    validated = runner.invoke(main, ["validate", str(package)])
    assert validated.exit_code == 0, validated.output

    fake_ollama.stop()
    run_dir = outputs_file(package).parent
    shutil.move(run_dir, tmp_path / "first-run")
    replay = subprocess.run(cmd + ["--offline"], capture_output=True, text=True, timeout=60)
    assert replay.returncode == 0, replay.stderr
    replayed = list(read_outputs(outputs_file(package)))
    assert essentials(replayed) == essentials(rows)
    assert all(call["cached"] for row in replayed for call in row.calls)


def test_offline_cache_miss_stops_the_run_clearly(built_package, tmp_path):
    """Offline with nothing cached: one sentence naming the fix, exit code 1, no traceback."""
    package = tmp_path / "package"
    shutil.copytree(built_package, package)
    result = CliRunner().invoke(
        main,
        ["generate", "--candidate", "chen", "--model", "m", "--dataset", "ds2", "--offline",
         "--package", str(package)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "run once without --offline" in result.output
    assert "Traceback" not in result.output


def test_llm_candidate_needs_a_model(built_package):
    """Without --model an LLM candidate is a usage error."""
    result = CliRunner().invoke(
        main, ["generate", "--candidate", "calamo", "--dataset", "ds2", "--package", "x"]
    )
    assert result.exit_code == 2
    assert "calamo needs --model" in result.output


def test_progress_bar_shows_counts_failures_and_eta(capsys):
    """The bar counts stored records as done, their failures as failures, and the time left."""
    bar = ProgressBar()
    bar.start_run("run-a", total=4, stored=2, failed=1)
    bar(OutputRow("r3", "", True, "x", 0.1))
    err = capsys.readouterr().err
    assert "run-a [" in err and "3/4 failed 2 ETA " in err
    bar.close()
    assert capsys.readouterr().err == "\n"


def test_no_truncate_is_for_chen_only():
    """calamo cuts no reply before extraction, so asking it not to is a usage error."""
    result = CliRunner().invoke(
        main,
        ["generate", "--candidate", "calamo", "--model", "m", "--dataset", "ds2", "--no-truncate"],
    )
    assert result.exit_code == 2
    assert "--no-truncate is for chen" in result.output


def test_parallel_run_stops_on_an_offline_miss_and_resumes_in_order(fake_ollama, tmp_path):
    """With workers, a cache miss stops the run but keeps what finished; resuming online fills
    in the rest, each record once, stored in record order."""
    fake_ollama.responder = scripted
    records = [Record(f"r{i}", f"Text number {i}.") for i in range(8)]

    def candidate(**settings):
        return get_candidate(
            "calamo", model="test-model", hosts=[fake_ollama.url], prompts=UPSTREAM,
            cache_dir=tmp_path / "cache", workers=3, backoff=0.0, **settings,
        )  # fmt: skip

    generate_run(tmp_path / "warm", candidate(), "ds2", 1, records[:5])
    package = tmp_path / "package"
    with pytest.raises(CacheMissError):
        generate_run(package, candidate(offline=True), "ds2", 1, records)
    (path,) = package.glob(".dmbench-cache/runs/*/outputs.jsonl")  # its work folder
    kept = [row.record_id for row in read_outputs(path)]
    assert len(kept) == len(set(kept)) and set(kept) <= {r.id for r in records[:5]}
    asked = len(fake_ollama.chats())
    run = generate_run(package, candidate(), "ds2", 1, records)
    assert [row.record_id for row in run.outputs()] == [r.id for r in records]
    assert len(fake_ollama.chats()) - asked == 3  # only the three never cached


def test_resume_refuses_another_model_digest_and_records_segments(fake_ollama, tmp_path):
    """A run resumed after the model was re-pulled would mix two model versions: refused with
    one sentence naming the run and both digests. A resume with the same digest adds a segment
    recording the server version and dmbench commit it ran with."""
    from fake_ollama import DIGEST, MODEL

    from dmbench.errors import PackageError

    fake_ollama.responder = diagram_reply
    records = [Record(f"r{i}", f"Text number {i}.") for i in range(6)]

    def candidate():
        return get_candidate(
            "calamo", model=MODEL, hosts=[fake_ollama.url], prompts=UPSTREAM,
            cache_dir=tmp_path / "cache", backoff=0.0,
        )  # fmt: skip

    generate_run(tmp_path, candidate(), "ds2", 1, records[:2])  # as if killed after two
    fake_ollama.version = "0.7.0-fake"  # the server was upgraded, same model
    run = generate_run(tmp_path, candidate(), "ds2", 1, records[:4])
    segments = run.info.provenance["segments"]
    assert [s["stored_before"] for s in segments] == [0, 2]
    assert [s["server_version"] for s in segments] == ["0.6.3-fake", "0.7.0-fake"]
    assert {s["model_digest"] for s in segments} == {DIGEST}
    assert all("dmbench_commit" in s and s["dmbench_version"] for s in segments)

    new_digest = "sha256:" + "ef" * 32
    fake_ollama.models[MODEL] = new_digest  # `ollama pull` fetched a new version
    asked = len(fake_ollama.chats())
    with pytest.raises(PackageError) as caught:
        generate_run(tmp_path, candidate(), "ds2", 1, records)
    message = str(caught.value)
    assert run.info.run_id in message and DIGEST in message and new_digest in message
    assert len(fake_ollama.chats()) == asked  # nothing was generated with the new model
    assert [row.record_id for row in run.outputs()] == ["r0", "r1", "r2", "r3"]


def test_a_dead_host_is_dropped_and_no_live_host_fails_the_run(
    built_package, fake_ollama, tmp_path
):
    """``--host`` with one refused port and one live server: the run warns on stderr, drops the
    dead host (recorded in provenance) and fails no record; with only dead hosts the run stops
    before any record with one clear sentence."""
    from test_llm_client import closed_port_url

    package = tmp_path / "package"
    shutil.copytree(built_package, package)
    fake_ollama.responder = diagram_reply
    dead = closed_port_url()
    base = ["generate", "--candidate", "calamo", "--model", "test-model", "--dataset", "ds2",
            "--package", str(package)]  # fmt: skip
    result = CliRunner().invoke(main, [*base, "--host", dead, "--host", fake_ollama.url])
    assert result.exit_code == 0, result.output
    assert f"warning: dropping Ollama host {dead}" in result.stderr
    assert "8 records, 0 failed" in result.stdout
    (run_file,) = package.glob("runs/calamo__test-model__ds2__run1__*/run.json")
    provenance = json.loads(run_file.read_text())["provenance"]
    assert provenance["hosts"] == [fake_ollama.url] and list(provenance["hosts_dropped"]) == [dead]

    shutil.rmtree(run_file.parent)
    result = CliRunner().invoke(main, [*base, "--host", dead])
    assert result.exit_code == 1
    assert "no Ollama host could tell about model 'test-model'" in result.output
    assert not any(package.glob("runs/calamo__test-model__*"))


def prompts_only(tmp_path: Path) -> Path:
    """A package folder with just the prompts: enough for --records with an LLM candidate."""
    from dmbench.sources.prompts import install_prompts

    install_prompts(UPSTREAM, tmp_path / "pkg")
    return tmp_path / "pkg"


def test_records_mode_uses_the_workers_and_keeps_input_order(fake_ollama, tmp_path):
    """--records with --workers 3 generates three records at once, yet prints them in input
    order (the later ones answer first).

    No timing: each call waits at a barrier that only three calls in flight together pass, and
    then for the next record's reply, so within each three the last record answers first.
    """
    together = threading.Barrier(3, timeout=60)
    answered = [threading.Event() for _ in range(6)]
    lock, active, peak = threading.Lock(), [0], [0]

    def overlapping(body: dict) -> Reply:
        number = int(body["messages"][-1]["content"].rsplit(" ", 1)[1])
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        together.wait()
        if number % 3 != 2:
            assert answered[number + 1].wait(timeout=60)
        with lock:
            active[0] -= 1
        answered[number].set()
        return diagram_reply(body)

    fake_ollama.responder = overlapping
    lines = "".join(json.dumps({"id": f"r{i}", "text": f"record {i}"}) + "\n" for i in range(6))
    result = CliRunner().invoke(
        main,
        ["generate", "--candidate", "calamo", "--model", "test-model", "--records", "-",
         "--workers", "3", "--host", fake_ollama.url, "--package", str(prompts_only(tmp_path))],
        input=lines,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row["id"] for row in rows] == [f"r{i}" for i in range(6)]
    assert not any(row["failed"] for row in rows)
    assert peak[0] == 3


@pytest.mark.parametrize(
    ("extra", "named"),
    [(["--runs", "2"], "--runs"), (["--runs", "1"], "--runs"), (["--quiet"], "--quiet")],
)
def test_options_that_do_not_apply_to_records_are_refused(tmp_path, extra, named):
    """--records has no run indices and no progress bar: asking for them is a usage error."""
    path = tmp_path / "in.jsonl"
    path.write_text('{"id": "a", "text": "A zoo has animals."}\n')
    result = CliRunner().invoke(
        main, ["generate", "--candidate", "rule_based", "--records", str(path), *extra]
    )
    assert result.exit_code == 2
    assert f"{named} applies to --dataset runs, not to --records" in result.output


def test_generation_options_reach_the_request_body(fake_ollama, tmp_path):
    """Options given on the command line are sent; options left out are not."""
    fake_ollama.responder = diagram_reply
    result = CliRunner().invoke(
        main,
        ["generate", "--candidate", "chen", "--model", "test-model", "--records", "-",
         "--host", fake_ollama.url, "--package", str(prompts_only(tmp_path)),
         "--temperature", "0.2", "--temperature-translate", "0.3", "--seed", "7",
         "--top-k", "20", "--num-predict", "64", "--think"],
        input='{"id": "a", "text": "A zoo has animals."}\n',
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    stage1, stage2 = fake_ollama.chat_bodies()
    assert b'"options":{"temperature":0.2,"num_predict":64,"seed":7,"top_k":20}' in stage1
    assert b'"options":{"temperature":0.3,"num_predict":64,"seed":7,"top_k":20}' in stage2
    assert all(body.endswith(b'"think":true}') for body in (stage1, stage2))
    assert not any(b"top_p" in body or b"repeat_penalty" in body for body in (stage1, stage2))


def test_generation_options_are_part_of_the_run_id(built_package, fake_ollama, tmp_path):
    """A set option changes the settings and so the run id; --timeout 600 is the default."""
    package = tmp_path / "package"
    shutil.copytree(built_package, package)
    fake_ollama.responder = diagram_reply
    base = ["generate", "--candidate", "calamo", "--model", "test-model", "--dataset", "ds2",
            "--host", fake_ollama.url, "--package", str(package)]  # fmt: skip
    ids = []
    for extra in ([], ["--timeout", "600"], ["--top-p", "0.9"]):
        result = CliRunner().invoke(main, [*base, *extra])
        assert result.exit_code == 0, result.output
        ids.append(result.stdout.split(":")[0])
    assert ids[0] == ids[1] != ids[2]
    settings = json.loads((package / "runs" / ids[2] / "run.json").read_text())["settings"]
    assert settings["top_p"] == 0.9 and settings["seed"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--candidate", "rule_based", "--seed", "1"], "are for the LLM candidates"),
        (["--candidate", "calamo", "--model", "m", "--temperature-translate", "0.1"],
         "--temperature-translate is for chen"),
    ],
)  # fmt: skip
def test_generation_options_that_do_not_apply_are_refused(args, message):
    result = CliRunner().invoke(main, ["generate", "--dataset", "ds2", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_a_resumed_run_tells_the_progress_bar_its_stored_failures(fake_ollama, tmp_path):
    """After a resume the bar starts from the stored records and the stored failures."""
    fake_ollama.responder = scripted
    records = [Record(f"r{i}", f"Text number {i}.") for i in range(12)]

    def candidate():
        return get_candidate(
            "calamo", model="test-model", hosts=[fake_ollama.url], prompts=UPSTREAM,
            cache_dir=tmp_path / "cache", backoff=0.0,
        )  # fmt: skip

    first = generate_run(tmp_path, candidate(), "ds2", 1, records[:8])  # as if killed at 8
    failed_before = sum(row.failed for row in first.outputs())
    assert failed_before  # the script fails about one record in eight

    class Seen:
        def start_run(self, run_id, total, stored, failed):
            self.started = (run_id, total, stored, failed)

        def __call__(self, row):
            pass

    seen = Seen()
    generate_run(tmp_path, candidate(), "ds2", 1, records, seen)
    assert seen.started == (first.info.run_id, 12, 8, failed_before)
