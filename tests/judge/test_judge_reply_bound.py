"""Issue 37, finding 7: fifteen 15 MiB judge replies made judgements.jsonl 503 MB for 8
instances. A reply is checked whole and stored bounded, and a judge run stops storing reply
text once its judgements reach ``RUN_REPLY_BYTES``. ``benchmarks/bench_judge_replies.py``
measures the size and the memory with 15 MiB replies; here the replies are 1 MiB."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_ollama import Reply, judge_reply

from dmbench.cli import main
from dmbench.judge import list_judge_runs, runs
from dmbench.judge.judging import MAX_ATTEMPTS, STORED_REASON_CHARS, STORED_REPLY_CHARS

RUN = "chen__glm-5.1_cloud__ds2__run1"
HUGE = "x" * 2**20


@pytest.fixture
def package(built_package, tmp_path) -> Path:
    copy = tmp_path / "package"
    shutil.copytree(built_package, copy)
    return copy


def judge(package: Path, url: str):
    result = CliRunner().invoke(main, ["judge", "--model", "test-model", "--host", url,
                                       "--package", str(package), "--runs", RUN])  # fmt: skip
    assert result.exit_code == 0, result.output + result.stderr
    (run,) = list_judge_runs(package)
    return run


def test_a_huge_rejected_reply_is_stored_cut_with_its_length_and_sha256(package, fake_ollama):
    fake_ollama.responder = lambda body: Reply(HUGE)
    run = judge(package, fake_ollama.url)
    calls = [c for row in run.rows() for j in row["judgements"] for c in j["calls"]]
    assert len(calls) == len(run.rows()) * 2 * MAX_ATTEMPTS == len(fake_ollama.chats())
    for call in calls:
        assert call["rejected"].startswith("not JSON")
        assert call["reply"]["content"] == HUGE[:STORED_REPLY_CHARS]
        assert call["reply_cut"]["content"] == {
            "chars": len(HUGE), "sha256": hashlib.sha256(HUGE.encode()).hexdigest()
        }
    assert run.judgements_path.stat().st_size < len(calls) * (STORED_REPLY_CHARS + 4096)


def test_a_valid_reply_with_a_huge_reason_scores_and_keeps_a_short_reason(package, fake_ollama):
    scripted = judge_reply(8, 4)

    def respond(body):
        content = json.loads(scripted(body).content)
        content["scores"]["VP"]["reason"] = HUGE
        return Reply(json.dumps(content))

    fake_ollama.responder = respond
    run = judge(package, fake_ollama.url)
    rows = run.rows()
    assert rows and not any(row["failed"] for row in rows)
    for row in rows:
        for judgement in row["judgements"]:
            assert len(judgement["scores"]["VP"]["reason"]) == STORED_REASON_CHARS
            assert judgement["calls"][-1]["reply_cut"]["content"]["chars"] > len(HUGE)


def test_a_run_stops_storing_reply_text_at_its_bound(package, fake_ollama, monkeypatch):
    """With the bound set to 100 kB, the rows after it hold lengths and digests only."""
    monkeypatch.setattr(runs, "RUN_REPLY_BYTES", 100_000)
    fake_ollama.responder = lambda body: Reply(HUGE)
    run = judge(package, fake_ollama.url)
    texts = [
        [c["reply"]["content"] for j in row["judgements"] for c in j["calls"]]
        for row in run.rows()
    ]
    assert texts[0][0] == HUGE[:STORED_REPLY_CHARS]  # stored while under the bound
    assert all(text == "" for row in texts[2:] for text in row)  # none after it
    one_row = 2 * MAX_ATTEMPTS * (STORED_REPLY_CHARS + 4096)
    assert run.judgements_path.stat().st_size < 100_000 + one_row + len(texts) * 16_384
