"""``dmbench judge --study``: the 39 human-rated pairs of the metric study, judged and compared."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from fake_ollama import Reply

from dmbench.cli import main
from dmbench.judge.study import study_agreement, study_pairs
from dmbench.sources.records import records_from_sources

UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "upstream"


def test_the_study_has_39_rated_pairs_with_ds2_texts():
    pairs = study_pairs(UPSTREAM, records_from_sources(UPSTREAM))
    assert len(pairs) == 39
    assert len({p.model for p in pairs}) == 8
    assert "SHAS_0shot" not in {p.instance.id for p in pairs}  # the one without an output
    assert all(p.instance.text and p.instance.type == "ds2" for p in pairs)
    first = pairs[0]
    assert first.instance.id == "LabTracker_0shot"
    assert first.human["class_f1"] == 0.625
    assert first.human["mean_f1"] == pytest.approx((0.625 + 0.60475 + 0.24138) / 3)


def test_judge_study_prints_pairs_and_agreement(fake_ollama, tmp_path):
    def respond(body):
        digest = hashlib.sha256(body["messages"][1]["content"].encode()).digest()
        scores = {cid: {"A": 1 + digest[i] % 10, "B": 1 + digest[i + 5] % 10, "reason": "r"}
                  for i, cid in enumerate(body["format"]["properties"]["scores"]["required"])}
        return Reply(json.dumps({"scores": scores}))

    fake_ollama.responder = respond
    result = CliRunner().invoke(
        main, ["judge", "--study", "--model", "test-model", "--host", fake_ollama.url,
               "--sources", str(UPSTREAM), "--package", str(tmp_path), "--workers", "4"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 39 and len(fake_ollama.chats()) == 39
    assert lines[0]["id"] == "LabTracker_0shot" and lines[0]["human"]["class_f1"] == 0.625
    assert all(0 < line["CA"] < 1 and 0 < line["LA"] < 1 for line in lines)
    assert "judge:test-model  overall" in result.stderr

    rows = study_agreement(lines, "test-model")
    assert [r["element"] for r in rows] == ["overall", "class", "attribute", "association"]
    x = [line["s_final"] for line in lines]
    y = [line["human"]["mean_f1"] for line in lines]
    assert rows[0]["pearson_r"] == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert rows[0]["r_ci_low"] <= rows[0]["pearson_r"] <= rows[0]["r_ci_high"]
    assert rows[3]["mad"] == pytest.approx(
        np.mean([abs(line["LA"] - line["human"]["association_f1"]) for line in lines])
    )
    assert all(r["n"] == 39 and r["failed"] == 0 for r in rows)
