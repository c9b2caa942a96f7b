"""Judge runs stored in a built package, as a user makes them from the shell: two runs judged,
validated by dmbench and by frictionless, tabulated on the leaderboard, killed and resumed,
replayed offline. The judge is the scripted Ollama server on 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import complete_lines
from fake_ollama import FakeOllama, Reply, judge_reply

from dmbench import api as dmbench_api
from dmbench.cli import main
from dmbench.judge import list_judge_runs
from dmbench.tables.leaderboard_files import judge_leaderboard

DMBENCH = [sys.executable, "-c", "from dmbench.cli import main; main()"]
FRICTIONLESS = Path(sys.executable).parent / "frictionless"
CHEN = "chen__glm-5.1_cloud__ds2__run1"
CALAMO = "calamo__kimi-k2.6_cloud__ds2__run1"


@pytest.fixture
def package(built_package, tmp_path) -> Path:
    copy = tmp_path / "package"
    shutil.copytree(built_package, copy)
    return copy


def shell(*args: str) -> subprocess.CompletedProcess:
    """``dmbench ARGS`` in its own process, as from the shell."""
    return subprocess.run([*DMBENCH, *args], capture_output=True, text=True, timeout=300)


def dmbench(*args: str):
    """``dmbench ARGS`` in this process (quicker; the shell tests above cover the process)."""
    return CliRunner().invoke(main, list(args))


def judge(package: Path, url: str, *extra: str, model: str = "test-model"):
    return dmbench("judge", "--model", model, "--host", url, "--package", str(package), *extra)


def leaderboard_json(package: Path, *extra: str) -> dict:
    result = dmbench("leaderboard", "--format", "json", "--package", str(package), *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_two_runs_judged_validate_and_make_the_leaderboard(package, fake_ollama):
    """Acceptance: by default both orders, and A=8/B=4 averages to 0.5 with position bias 1/3
    and a warning; the package passes `dmbench validate` and `frictionless validate`; the
    leaderboard ranks both runs' rows and compares them paired by record."""
    fake_ollama.responder = judge_reply(8, 4)
    done = shell("judge", "--model", "test-model", "--host", fake_ollama.url, "--package",
                 str(package), "--runs", f"{CHEN},{CALAMO}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "16 instances, 0 failed" in done.stdout
    assert len(fake_ollama.chats()) == 32

    validated = shell("validate", str(package))
    assert validated.returncode == 0, validated.stdout
    assert "judgements tables agree" in validated.stdout
    frictionless = subprocess.run(
        [str(FRICTIONLESS), "validate", str(package / "datapackage.json")],
        capture_output=True, text=True, timeout=300, cwd=package,
    )  # fmt: skip
    assert frictionless.returncode == 0, frictionless.stdout
    assert "judgements" in frictionless.stdout

    printed = shell("leaderboard", "--format", "json", "--package", str(package))
    assert printed.returncode == 0, printed.stderr
    board = json.loads(printed.stdout)
    assert list(board) == ["headline", "boards", "rows", "comparisons", "detectability",
                           "view_agreement", "tells", "warnings"]  # fmt: skip
    (summary,) = board["boards"]
    assert board["headline"] == summary["id"] and summary["id"].startswith("board-")
    assert summary["title"] == ("judge test-model, criteria dmbench-uml-class-criteria 1.0.0, "
                                "text view, both orders, seed 0")
    rows = board["rows"]
    assert {(r["candidate"], r["llm"]) for r in rows} == {
        ("chen", "glm-5.1:cloud"), ("calamo", "kimi-k2.6:cloud")
    }  # fmt: skip
    assert [r["rank"] for r in rows] == [1, 1]  # equal means, equal ranks
    for row in rows:
        assert row["judge"] == "test-model" and row["n"] == 8 and row["failed"] == 0
        assert row["orders"] == 2 and row["settings"]["orders"] == 2
        assert row["settings"]["seed"] == 0 and row["settings"]["criteria_version"] == "1.0.0"
        assert row["settings"]["judges"] == ["test-model"]
        assert row["overall"] == pytest.approx(0.5)
        assert row["position_bias"] == pytest.approx(1 / 3)
        assert row["flip_rate"] == 1.0 and row["mean_abs_order_diff"] == pytest.approx(1 / 3)
        assert list(row["dimensions"]) == ["structure", "content", "aesthetics"]
        assert row["types"] == {"ds2": pytest.approx(0.5)}
    (comparison,) = board["comparisons"]
    assert {comparison["a"], comparison["b"]} == {"chen/glm-5.1:cloud", "calamo/kimi-k2.6:cloud"}
    assert comparison["n"] == 8 and comparison["diff"] == pytest.approx(0.0)
    assert comparison["p_holm"] == pytest.approx(1.0) and comparison["ci_low"] <= 0
    kinds = {(w["candidate"], w["kind"]) for w in board["warnings"]}
    assert {("chen", "position_bias"), ("calamo", "position_bias"), ("chen", "flip_rate")} <= kinds
    assert board == judge_leaderboard(package) == dmbench_api.Package(package).leaderboard()
    judgements = dmbench_api.Package(package).judgements()
    assert len(judgements) == 32 and set(judgements["reference_shown_as"]) == {"A", "B"}

    (run,) = list_judge_runs(package)
    info = run.info
    assert info["settings"]["judged_runs"] == sorted([CHEN, CALAMO])
    assert info["settings"]["options"]["both_orders"] is True
    assert info["provenance"]["judges"][0]["model_digest"] == "sha256:" + "ab" * 32
    assert info["provenance"]["judges"][0]["server_version"] == "0.6.3-fake"
    assert info["provenance"]["dmbench_commit"] is not None
    assert len(info["settings"]["criteria_sha256"]) == len(info["settings"]["prompt_sha256"]) == 64
    assert (run.path / "criteria.json").read_bytes().startswith(b"{")
    stored = run.rows()[0]["judgements"][0]
    (call,) = stored["calls"]
    assert call["reply"]["content"].startswith('{"scores"') and call["eval_count"] == 11
    assert call["attempt"] == 1 and call["rejected"] is None and "total_duration" in call

    md = dmbench("leaderboard", "--package", str(package), "--out", str(package / "results"))
    assert md.exit_code == 0, md.output
    text = (package / "results" / "leaderboard.md").read_text()
    assert "| 1 | chen | glm-5.1:cloud | 0.500 [0.500, 0.500] |" in text
    assert "| position bias +0.333 (beyond ±0.05): the order of the diagrams sways" in text


def test_a_failed_judgement_is_counted_not_averaged(package, fake_ollama):
    valid = judge_reply(8, 4)
    broken = {"ds2-Block", "ds2-CelO"}

    def respond(body):
        user = body["messages"][1]["content"]
        if any(f"Caption: {name.removeprefix('ds2-')} " in user for name in broken):
            return Reply("not json at all")
        return valid(body)

    fake_ollama.responder = respond
    done = judge(package, fake_ollama.url, "--runs", CHEN)
    assert done.exit_code == 0, done.output
    board = leaderboard_json(package)
    (row,) = board["rows"]
    assert row["failed"] == 2 and row["n"] == 6 and row["failed_share"] == 0.25
    (warning,) = [w for w in board["warnings"] if w["kind"] == "failed"]
    assert warning["candidate"] == "chen" and warning["value"] == 0.25
    rows = list_judge_runs(package)[0].rows()
    failed = [r for r in rows if r["failed"]]
    assert {r["record_id"] for r in failed} == broken
    assert all(r["judgements"][0]["attempts"] == 3 for r in failed)
    values = [r["s_final"] for r in rows if not r["failed"]]
    assert row["overall"] == pytest.approx(sum(values) / len(values))
    csv = (package / "data" / "judgements.csv").read_text()
    assert csv.count("not JSON") == 4  # both orders of each

    asked = len(fake_ollama.chats())
    fake_ollama.responder = valid
    assert judge(package, fake_ollama.url, "--runs", CHEN).exit_code == 0  # resumed: kept
    assert len(fake_ollama.chats()) == asked
    retried = judge(package, fake_ollama.url, "--runs", CHEN, "--retry-failed")
    assert retried.exit_code == 0, retried.output
    assert len(fake_ollama.chats()) == asked + 4  # the failures were never cached
    (row,) = leaderboard_json(package)["rows"]
    assert row["failed"] == 0 and row["n"] == 8
    segments = list_judge_runs(package)[0].info["provenance"]["segments"]
    assert segments[-1]["retried_failed"] == 2


def test_identity_control_and_self_preference_warning(package, fake_ollama):
    fake_ollama.responder = judge_reply(7, 7)
    server = FakeOllama(models={"glm-5.1:cloud": "sha256:" + "cd" * 32}).start()
    server.responder = judge_reply(7, 7)
    try:
        control = judge(package, fake_ollama.url, "--runs", CHEN, "--control", "identity")
        assert control.exit_code == 0, control.output
        warned = judge(package, server.url, "--runs", CHEN, model="glm-5.1:cloud")
    finally:
        server.stop()
    assert warned.exit_code == 0, warned.output
    assert "shares the model family 'glm' with glm-5.1:cloud" in warned.stderr
    board = leaderboard_json(package)
    rows = board["rows"]
    control_row = next(r for r in rows if r["candidate"] == "control:identity")
    assert control_row["overall"] == 0.5 and control_row["n"] == 8 and control_row["rank"] is None
    assert next(r for r in rows if r["judge"] == "glm-5.1:cloud")["self_preference"] is True
    kinds = {(w["judge"], w["kind"]) for w in board["warnings"]}
    assert ("glm-5.1:cloud", "self_preference") in kinds
    assert not any(w["kind"] == "identity_control" for w in board["warnings"])
    validated = dmbench("validate", str(package))
    assert validated.exit_code == 0, validated.output
    assert "identity/ds2-Block" in (package / "data" / "judge_controls.csv").read_text()


PANEL = {f"judge-{x}:latest": "sha256:" + x * 64 for x in "abc"}


def panel_reply(body):
    """Scores that vary by instance, the same for every judge but for judge-b's noise."""
    digest = hashlib.sha256(body["messages"][1]["content"].encode()).digest()
    generated = 3 + digest[0] % 6
    noise = 1 if body["model"] == "judge-b" and digest[1] % 3 == 0 else 0
    scores = {cid: {"A": 5, "B": generated + noise, "reason": "r"}
              for cid in body["format"]["properties"]["scores"]["required"]}
    return Reply(json.dumps({"scores": scores}))


def test_a_panel_reports_krippendorffs_alpha(package):
    server = FakeOllama(models=PANEL).start()
    server.responder = panel_reply
    try:
        done = dmbench("judge", "--model", "judge-a", "--model", "judge-b", "--host", server.url,
                       "--runs", CHEN, "--package", str(package), "--workers", "2")  # fmt: skip
    finally:
        server.stop()
    assert done.exit_code == 0, done.output
    assert "judge__judge-a__judge-b__" in done.stdout
    (row,) = leaderboard_json(package)["rows"]
    assert row["judge"] == "judge-a + judge-b" and row["settings"]["judges"] == ["judge-a", "judge-b"]
    assert 0.5 < row["alpha"] < 1.0
    run = list_judge_runs(package)[0]
    for stored in run.rows():
        values = [j["s_final"] for j in stored["judgements"]]
        assert len(values) == 4  # two judges, two orders
        assert stored["s_final"] == pytest.approx(sum(values) / 4)


@pytest.mark.needs_nltk
def test_two_and_three_judge_panels_pass_validate_build_and_check(
    tmp_path, upstream_dir, built_package
):
    """Acceptance: panel run ids are names the files table accepts, so the package stays valid
    through `validate`, a rebuild (which carries the judge runs) and the offline `check` (whose
    tables part needs the main job's results/, which this package has not)."""
    package = tmp_path / "package"
    shutil.copytree(built_package, package)
    server = FakeOllama(models=PANEL).start()
    server.responder = panel_reply
    try:
        for judges in (["judge-a", "judge-b"], ["judge-a", "judge-b", "judge-c"]):
            models = [arg for name in judges for arg in ("--model", name)]
            done = dmbench("judge", *models, "--host", server.url, "--runs", CHEN, "--package",
                           str(package))  # fmt: skip
            assert done.exit_code == 0, done.output
            assert f"judge__{'__'.join(judges)}__" in done.stdout
    finally:
        server.stop()
    assert len(list_judge_runs(package)) == 2
    for step in (["validate", str(package)],
                 ["build", "--sources", str(upstream_dir), "--package", str(package)],
                 ["validate", str(package)]):  # fmt: skip
        done = dmbench(*step)
        assert done.exit_code == 0, f"{step[0]}: {done.output}"
    checked = dmbench("check", str(package))  # without results/ its tables part differs
    assert "validate: valid (" in checked.stdout, checked.stdout
    assert not [line for line in checked.stdout.splitlines() if "DIFF" in line and (
        "judge" in line or "runs/" in line)]  # fmt: skip
    files = (package / "data" / "files.csv").read_text()
    assert files.count("runs/judge__judge-a__judge-b__judge-c__") == 4  # run, criteria, 2 jsonl
    assert len(list_judge_runs(package)) == 2


def rows_file(package: Path) -> Path | None:
    """The judge run's rows: in its work folder while it runs, in runs/ once it is done."""
    found = sorted(package.glob(".dmbench-cache/judge/judge__*/judgements.jsonl"))
    found += sorted(package.glob("runs/judge__*/judgements.jsonl"))
    return found[0] if found else None


def user_hashes(rows: list[dict]) -> set[str]:
    return {c["prompt_sha256"]["user"] for r in rows for j in r["judgements"] for c in j["calls"]}


def test_kill_resume_and_offline_replay(package, fake_ollama, tmp_path):
    """SIGKILLed twice, then resumed: every output judged once, nothing stored is asked again,
    and after each kill the package is as it was and valid; with the server gone the cache
    replays the same judgements."""
    scores = judge_reply(8, 4)
    fake_ollama.responder = lambda body: Reply(scores(body).content, delay=0.03)
    runs = f"{CHEN},{CALAMO},chen__kimi-k2.6_cloud__ds2__run2"
    cmd = [*DMBENCH, "judge", "--model", "test-model", "--host", fake_ollama.url, "--runs", runs,
           "--workers", "2", "--package", str(package)]  # fmt: skip
    kills = []
    for stored in (3, 11):
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while len(complete_lines(rows_file(package))) < stored:
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "the judge run never got that far"
            time.sleep(0.005)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process.stderr.close()
        kills.append((user_hashes(complete_lines(rows_file(package))), len(fake_ollama.chats())))
        assert not list(package.glob("runs/judge__*"))
        validated = dmbench("validate", str(package))
        assert validated.exit_code == 0, validated.output
    finished = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    rows = complete_lines(rows_file(package))
    instances = [r["instance"] for r in rows]
    assert len(instances) == len(set(instances)) == 24
    sent = [hashlib.sha256(b["messages"][1]["content"].encode()).hexdigest()
            for b in fake_ollama.chats()]  # fmt: skip
    for stored_hashes, seen in kills:
        assert not stored_hashes & set(sent[seen:])
    assert len(sent) <= 2 * (24 + 2 * 2)  # both orders; each kill loses 2 instances in flight
    run = list_judge_runs(package)[0]
    assert len(run.info["provenance"]["segments"]) == 3
    assert run.info["finished_utc"] is not None

    fake_ollama.stop()
    shutil.move(run.path, tmp_path / "first")
    replay = subprocess.run(cmd + ["--offline"], capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stderr
    again = {r["instance"]: r for r in complete_lines(rows_file(package))}
    for row in rows:
        assert again[row["instance"]]["s_final"] == row["s_final"]
        for judgement in again[row["instance"]]["judgements"]:
            assert judgement["calls"][0]["cached"] is True


def test_every_prompt_and_raw_reply_is_stored_once(package, fake_ollama):
    """Acceptance: the exact messages of every call are in the run's messages.jsonl (a
    200-character stretch of each prompt is found in the run's files), each distinct prompt
    once; each raw reply is in judgements.jsonl once, with its attempt number."""
    replies = []
    scores = judge_reply(8, 4)

    def respond(body):
        if len(replies) % 5 == 0:
            reply = Reply(f"no JSON here, reply {len(replies)}")
        else:
            content = json.loads(scores(body).content)
            content["scores"]["VP"]["reason"] = f"reason number {len(replies)}"
            reply = Reply(json.dumps(content))
        replies.append(reply.content)
        return reply

    fake_ollama.responder = respond
    assert judge(package, fake_ollama.url, "--runs", CHEN).exit_code == 0
    (run,) = list_judge_runs(package)
    stored = b"".join(path.read_bytes() for path in sorted(run.path.iterdir()))
    messages = run.messages()
    bodies = fake_ollama.chats()
    assert len(bodies) == len(replies) >= 16
    for body in bodies:
        user = body["messages"][1]["content"]
        middle = len(user) // 2
        stretch = json.dumps(user[middle - 100 : middle + 100], ensure_ascii=False)[1:-1]
        assert stretch.encode() in stored
        digest = hashlib.sha256(json.dumps(body["messages"], sort_keys=True,
                                           ensure_ascii=False).encode()).hexdigest()  # fmt: skip
        assert messages[digest] == body["messages"]
    assert len(messages) == len({json.dumps(b["messages"]) for b in bodies})
    jsonl = run.judgements_path.read_bytes()
    for reply in replies:
        assert jsonl.count(json.dumps(reply, ensure_ascii=False).encode()) == 1, reply
    calls = [c for row in run.rows() for j in row["judgements"] for c in j["calls"]]
    assert sorted(c["reply"]["content"] for c in calls) == sorted(replies)
    retried = [c for c in calls if c["attempt"] == 2]
    assert retried and all(c["rejected"] is None for c in retried)


def test_single_order_is_recorded_and_warned(package, fake_ollama):
    fake_ollama.responder = judge_reply(8, 4)
    assert judge(package, fake_ollama.url, "--runs", CHEN, "--single-order").exit_code == 0
    assert len(fake_ollama.chats()) == 8
    (run,) = list_judge_runs(package)
    assert run.info["settings"]["options"]["both_orders"] is False
    board = leaderboard_json(package)
    (row,) = board["rows"]
    assert row["orders"] == 1 and row["position_bias"] is None
    assert [w["kind"] for w in board["warnings"]] == ["single_order"]


def test_unknown_runs_and_judge_runs_are_named(package, fake_ollama):
    result = judge(package, fake_ollama.url, "--runs", "nope__x__ds1__run1")
    assert result.exit_code == 1 and "unknown run id(s): nope__x__ds1__run1" in result.stderr
    board = dmbench("leaderboard", "--judge", "judge__x__00000000", "--package", str(package))
    assert board.exit_code == 1 and "no judge run 'judge__x__00000000'" in board.stderr
