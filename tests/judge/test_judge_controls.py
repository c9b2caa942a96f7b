"""The judge as a measured instrument (issue 34), against the scripted Ollama-speaking judge:
the detectability control, an identity control that can fail, the image view, and the
leaderboard's headline board, rank intervals and size-controlled score.
"""

from __future__ import annotations

import base64
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
from fake_ollama import Reply, criterion_ids, judge_reply

from dmbench.cli import main
from dmbench.core.hashing import sha256_text
from dmbench.judge import blind_form, list_judge_runs
from dmbench.judge.leaderboard import Entry, _rank_intervals
from dmbench.judge.views import drawing_source
from dmbench.render import draw_png
from dmbench.sources.records import load_records
from dmbench.tables.leaderboard_files import leaderboard_markdown, rank_label

DMBENCH = [sys.executable, "-c", "from dmbench.cli import main; main()"]
CHEN = "chen__glm-5.1_cloud__ds2__run1"
CALAMO = "calamo__kimi-k2.6_cloud__ds2__run1"
KIMI = "chen__kimi-k2.6_cloud__ds2__run2"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def package(built_package, tmp_path) -> Path:
    copy = tmp_path / "package"
    shutil.copytree(built_package, copy)
    return copy


def dmbench(*args: str):
    return CliRunner().invoke(main, list(args))


def judge(package: Path, url: str, *extra: str):
    done = dmbench("judge", "--model", "test-model", "--host", url, "--package", str(package),
                   *extra)  # fmt: skip
    assert done.exit_code == 0, done.output
    return done


def leaderboard(package: Path) -> dict:
    done = dmbench("leaderboard", "--format", "json", "--package", str(package))
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def markdown(package: Path) -> str:
    done = dmbench("leaderboard", "--package", str(package), "--out", str(package / "results"))
    assert done.exit_code == 0, done.output
    return (package / "results" / "leaderboard.md").read_text()


def section(user: str, heading: str) -> str:
    """The fenced text after ``heading`` in a prompt."""
    fenced = user.split(f"{heading}\n<<< ", 1)[1]
    tag, rest = fenced.split("\n", 1)
    return rest.split(f"\n>>> {tag}\n", 1)[0]


def detect_reply(person: str) -> Reply:
    return Reply(json.dumps({"person": person, "reason": "scripted"}))


def coin(body: dict) -> str:
    """A fair coin keyed by the prompt: the same question, the same answer."""
    digest = hashlib.sha256(body["messages"][1]["content"].encode()).digest()
    return "AB"[digest[0] % 2]


def style_judge(body: dict) -> Reply:
    """Names the diagram with ``abstract class`` or ``..>`` as the person's (a coin if both or
    neither has one)."""
    user = body["messages"][1]["content"]
    rich = [any(tell in section(user, f"Diagram {x}:") for tell in ("abstract class", "..>"))
            for x in "AB"]  # fmt: skip
    if rich[0] != rich[1]:
        return detect_reply("A" if rich[0] else "B")
    return detect_reply(coin(body))


class TestDetectability:
    def test_a_judge_that_reads_the_notation_is_flagged(self, package, fake_ollama):
        """Acceptance: the judge naming the diagram with `abstract class` or `..>` as the
        person's is right well above chance, with a warning; the tells table shows why."""
        fake_ollama.responder = style_judge
        judge(package, fake_ollama.url, "--runs", f"{CHEN},{CALAMO},{KIMI}", "--control",
              "detect")  # fmt: skip
        bodies = fake_ollama.chats()
        assert len(bodies) == 46  # 24 pairs, both orders, but one output is empty (not asked)
        assert bodies[0]["format"]["required"] == ["person", "reason"]
        assert "Which of the two diagrams did a person draw?" in bodies[0]["messages"][1]["content"]
        board = leaderboard(package)
        (detect,) = board["detectability"]
        assert detect["judge"] == "test-model" and detect["view"] == "text" and detect["n"] == 46
        assert detect["share_correct"] > 0.7 and detect["ci_low"] > 0.5
        assert {c["candidate"] for c in detect["by_candidate"]} == {"chen", "calamo"}
        (warning,) = [w for w in board["warnings"] if w["kind"] == "detectable"]
        assert "can tell the reference apart" in warning["message"]
        assert board["rows"] == []  # a detect run ranks nothing
        tells = board["tells"]
        assert tells["n_pairs"] == 24 and tells["n_pairs_with_reference_tell"] >= 12
        assert {p["run_id"] for p in tells["pairs"]} == {CHEN, CALAMO, KIMI}
        abstract = next(t for t in tells["summary"] if t["feature"] == "abstract class")
        assert abstract["generated_share"] == 0 and abstract["reference_only_pairs"] == 18
        text = markdown(package)
        assert "## Detectability control" in text and "can tell the reference apart" in text
        assert "## Tells: notation only the reference has" in text
        validated = dmbench("validate", str(package))
        assert validated.exit_code == 0, validated.output
        assert "detect/" in (package / "data" / "judge_controls.csv").read_text()

    def test_a_judge_that_guesses_is_not_flagged(self, package, fake_ollama):
        fake_ollama.responder = lambda body: detect_reply(coin(body))
        judge(package, fake_ollama.url, "--runs", f"{CHEN},{CALAMO},{KIMI}", "--control",
              "detect")  # fmt: skip
        board = leaderboard(package)
        (detect,) = board["detectability"]
        assert detect["ci_low"] <= 0.5 <= detect["ci_high"]
        assert not [w for w in board["warnings"] if w["kind"] == "detectable"]


def position_a_plus_one(body: dict) -> Reply:
    """Scores both diagrams 6 from the prompt's hash, plus 1 for whatever is shown as A."""
    base = 4 + hashlib.sha256(body["messages"][1]["content"].encode()).digest()[0] % 4
    scores = {cid: {"A": base + 1, "B": base, "reason": "scripted"} for cid in criterion_ids(body)}
    return Reply(json.dumps({"scores": scores}))


class TestIdentityControl:
    def test_a_judge_favouring_position_a_fails_it(self, package, fake_ollama):
        """Acceptance: +1 to position A shows as A − B = +1 on every criterion, its CI leaves
        out 0, and the warning is given; each reference is asked once (both orders would be
        the same question, and a replayed reply no second judgement)."""
        fake_ollama.responder = position_a_plus_one
        judge(package, fake_ollama.url, "--runs", CHEN, "--control", "identity")
        bodies = fake_ollama.chats()
        assert len(bodies) == 8
        assert len({json.dumps(b["messages"]) for b in bodies}) == 8
        board = leaderboard(package)
        (summary,) = board["boards"]
        identity = summary["identity"]
        assert identity["n"] == 8 and set(identity["criteria"]) == set(criterion_ids(bodies[0]))
        for part in identity["criteria"].values():
            assert part["diff"] == 1.0 and part["ci_low"] > 0
        (warning,) = [w for w in board["warnings"] if w["kind"] == "identity_position"]
        assert warning["board"] == summary["id"] and "favours a position" in warning["message"]
        assert summary["title"].endswith("identity control")
        assert "favours a position" in markdown(package)

    def test_a_fair_judge_passes_it(self, package, fake_ollama):
        fake_ollama.responder = judge_reply(7, 7)
        judge(package, fake_ollama.url, "--runs", CHEN, "--control", "identity")
        board = leaderboard(package)
        identity = board["boards"][0]["identity"]
        assert all(p["ci_low"] <= 0 <= p["ci_high"] for p in identity["criteria"].values())
        assert not [w for w in board["warnings"] if w["kind"].startswith("identity")]

    def test_the_two_orders_of_an_output_are_two_questions_never_one_reply(
        self, package, fake_ollama
    ):
        fake_ollama.responder = judge_reply(8, 4)
        judge(package, fake_ollama.url, "--runs", CHEN)
        (run,) = list_judge_runs(package)
        for row in run.rows():
            first, second = row["judgements"]
            assert first["messages_sha256"] != second["messages_sha256"]
            assert not first["calls"][0]["cached"] and not second["calls"][0]["cached"]


def png_chunks(png: bytes) -> list[bytes]:
    """The chunk types of a PNG file."""
    chunks, at = [], len(PNG)
    while at < len(png):
        length = int.from_bytes(png[at:at + 4], "big")
        chunks.append(png[at + 4:at + 8])
        at += 12 + length
    return chunks


def rows_file(package: Path) -> Path | None:
    found = sorted(package.glob(".dmbench-cache/judge/judge__*/judgements.jsonl"))
    found += sorted(package.glob("runs/judge__*/judgements.jsonl"))
    return found[0] if found else None


class TestImageView:
    def test_the_judge_sees_two_drawings_and_no_source(self, package, fake_ollama):
        """Acceptance: two PNGs per call, no `@startuml` and no diagram text in the request,
        no record id in the images (nor any text chunk); the run resumes after SIGKILL,
        validates and has its own board beside the text view's, with their agreement."""
        scores = judge_reply(7, 6)
        fake_ollama.responder = lambda body: Reply(scores(body).content, delay=0.1)
        cmd = [*DMBENCH, "judge", "--model", "test-model", "--host", fake_ollama.url, "--runs",
               CHEN, "--view", "image", "--package", str(package)]  # fmt: skip
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while len(complete_lines(rows_file(package))) < 3:
            assert process.poll() is None, process.stderr.read().decode()
            assert time.monotonic() < deadline, "the image run never got that far"
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        process.stderr.close()
        stored = {r["instance"] for r in complete_lines(rows_file(package))}
        asked = len(fake_ollama.chats())
        assert not list(package.glob("runs/judge__*"))
        finished = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        assert "8 instances, 0 failed" in finished.stdout
        rows = complete_lines(rows_file(package))
        assert len(rows) == len({r["instance"] for r in rows}) == 8
        later = fake_ollama.chats()[asked:]
        for body in later:  # nothing stored before the kill is asked again
            user = body["messages"][1]["content"]
            assert not any(f"Caption: {i.split('/')[-1].removeprefix('ds2-')} " in user
                           for i in stored)  # fmt: skip

        records = {r["record_id"] for r in rows}
        for raw, body in zip(fake_ollama.chat_bodies(), fake_ollama.chats(), strict=True):
            assert b"@startuml" not in raw and b"@enduml" not in raw
            user = body["messages"][1]
            assert "Diagram A is the first image, Diagram B the second." in user["content"]
            assert "class " not in user["content"] and "<<< " in user["content"]
            assert len(user["images"]) == 2
            for image in user["images"]:
                png = base64.b64decode(image)
                assert png.startswith(PNG)
                assert not {b"tEXt", b"zTXt", b"iTXt"} & set(png_chunks(png))
                for record in records:
                    assert record.encode() not in png and b"DS-2" not in png

        validated = dmbench("validate", str(package))
        assert validated.exit_code == 0, validated.output
        (run,) = list_judge_runs(package)
        assert run.info["settings"]["view"] == "image"

        fake_ollama.responder = judge_reply(7, 6)
        judge(package, fake_ollama.url, "--runs", CHEN)
        board = leaderboard(package)
        views = {b["title"].split(", ")[2]: b["id"] for b in board["boards"]}
        assert set(views) == {"text view", "image view"}
        assert board["headline"] == views["text view"]
        (agreement,) = board["view_agreement"]
        assert agreement["image_board"] == views["image view"] and agreement["n"] == 8


def varied(body: dict) -> Reply:
    """Scores from the prompt's hash: close candidates, different per output."""
    digest = hashlib.sha256(body["messages"][1]["content"].encode()).digest()
    scores = {cid: {"A": 3 + digest[i] % 6, "B": 3 + digest[i + 8] % 6, "reason": "scripted"}
              for i, cid in enumerate(criterion_ids(body))}  # fmt: skip
    return Reply(json.dumps({"scores": scores}))


class TestHeadlineBoard:
    def test_ids_headline_rank_intervals_and_size_control(self, package, fake_ollama):
        """Acceptance: stable board ids (adding a run keeps them), the headline board, rank
        intervals printed as "1-2" when they overlap, and the size-controlled score beside
        the raw one in JSON and Markdown."""
        fake_ollama.responder = varied
        judge(package, fake_ollama.url, "--runs", f"{CHEN},{CALAMO}")
        first = leaderboard(package)
        judge(package, fake_ollama.url, "--runs", KIMI)
        judge(package, fake_ollama.url, "--runs", CHEN, "--seed", "5")
        board = leaderboard(package)
        ids = [b["id"] for b in board["boards"]]
        assert first["boards"][0]["id"] in ids and len(ids) == 2
        assert board["headline"] == first["boards"][0]["id"]
        assert next(b for b in board["boards"] if b["id"] != board["headline"])["title"].endswith(
            "seed 5")
        rows = [r for r in board["rows"] if r["board"] == board["headline"]]
        assert len(rows) == 3
        for row in rows:
            assert row["rank_low"] <= row["rank"] <= row["rank_high"]
            assert row["size_controlled_ci_low"] <= row["size_controlled"]
            assert row["size_controlled"] <= row["size_controlled_ci_high"]
            assert row["size_slope"] is not None
        assert any(r["rank_low"] < r["rank_high"] for r in rows)
        text = markdown(package)
        assert "(headline)" in text and f"Board `{board['headline']}`" in text
        assert "Size-controlled [95% CI]" in text
        for row in rows:
            if row["rank_low"] < row["rank_high"]:
                assert f"| {row['rank_low']}-{row['rank_high']} | {row['candidate']} |" in text

    def test_two_rows_with_overlapping_intervals_are_printed_as_tied(self):
        """Two series whose per-record means interleave: both rank intervals span 1-2."""
        a = Entry({"rank": 1, "rank_low": None, "rank_high": None}, {f"r{i}": 0.50 + 0.01 * (i % 3)
                                                                     for i in range(12)})
        b = Entry({"rank": 2, "rank_low": None, "rank_high": None}, {f"r{i}": 0.51 - 0.01 * (i % 2)
                                                                     for i in range(12)})
        _rank_intervals([a, b])
        assert (a.row["rank_low"], a.row["rank_high"]) == (1, 2) == (b.row["rank_low"],
                                                                     b.row["rank_high"])
        assert rank_label(a.row) == "1-2" == rank_label(b.row)

    def test_size_control_removes_a_bonus_for_size(self, package, fake_ollama):
        """A judge that scores only the number of classes ranks by size; at size parity the
        rows' scores are close together."""

        def by_size(body: dict) -> Reply:
            user = body["messages"][1]["content"]
            count = [section(user, f"Diagram {x}:").count("class ") for x in "AB"]
            scores = {cid: {"A": min(10, 1 + count[0]), "B": min(10, 1 + count[1]),
                            "reason": "scripted"} for cid in criterion_ids(body)}  # fmt: skip
            return Reply(json.dumps({"scores": scores}))

        fake_ollama.responder = by_size
        judge(package, fake_ollama.url, "--runs", f"{CHEN},{CALAMO},{KIMI}")
        rows = leaderboard(package)["rows"]
        raw = [r["overall"] for r in rows]
        controlled = [r["size_controlled"] for r in rows]
        assert max(controlled) - min(controlled) < max(raw) - min(raw)
        assert rows[0]["size_slope"] > 0


def test_the_markdown_of_an_empty_board_list_is_the_intro_only():
    text = leaderboard_markdown({"boards": [], "rows": [], "comparisons": [], "warnings": [],
                                 "detectability": [], "view_agreement": [], "tells": None,
                                 "headline": None})  # fmt: skip
    assert text.startswith("# Judge leaderboard") and "## " not in text


def test_a_class_named_like_a_plantuml_keyword_is_still_drawn(built_package, tmp_path):
    """Regression: PlantUML read `Actor "*" -- "*" Screenplay` (FilmSet) and `Person ...`
    (EUScienceConnect) as use-case elements and drew nothing; every reference's blind form is
    drawn now, the keyword quoted."""
    texts = [blind_form(r.reference, reference=True).text for r in load_records(built_package)]
    sources = [drawing_source(t) for t in texts if t is not None]
    assert len(sources) == 53
    assert any('"Actor" "*" -- "*" Screenplay' in s for s in sources)
    drawn = draw_png(sources, tmp_path / "png")
    assert all(drawn[sha256_text(s)] is not None for s in sources)
