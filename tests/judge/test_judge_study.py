"""``dmbench judge --study``: the 39 human-rated pairs of the metric study, judged into a study
run of the package, and the judge's rows in ``dmbench agreement`` beside metrik-4. The judge is
the scripted Ollama server on 127.0.0.1; the expected values are recomputed here from the
stored rows with numpy and scipy, not through dmbench's statistics."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from click.testing import CliRunner
from fake_ollama import Reply

from dmbench.cli import main
from dmbench.judge import list_judge_runs
from dmbench.judge.study_run import study_pairs
from dmbench.package.tables import JUDGE_STUDY_PATH
from dmbench.sources.records import records_from_sources

pytestmark = pytest.mark.needs_shared  # the study pairs come from ../shared/upstream

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
FRICTIONLESS = Path(sys.executable).parent / "frictionless"
HUMAN = {"class": "human_class_f1", "attribute": "human_attribute_f1",
         "association": "human_association_f1"}  # fmt: skip


@pytest.fixture
def package(built_package, tmp_path) -> Path:
    copy = tmp_path / "package"
    shutil.copytree(built_package, copy)
    return copy


def varied_scores(body):
    """Scores that differ between pairs (hashed from the prompt), so that r is defined."""
    digest = hashlib.sha256(body["messages"][1]["content"].encode()).digest()
    ids = body["format"]["properties"]["scores"]["required"]
    scores = {cid: {"A": 1 + digest[i] % 10, "B": 1 + digest[i + 5] % 10, "reason": "r"}
              for i, cid in enumerate(ids)}  # fmt: skip
    return Reply(json.dumps({"scores": scores}))


def dmbench(*args: str):
    return CliRunner().invoke(main, [*args])


def judge_study(package: Path, url: str, *extra: str):
    return dmbench("judge", "--study", "--model", "test-model", "--host", url, "--sources",
                   str(UPSTREAM), "--package", str(package), *extra)  # fmt: skip


def agreement_json(package: Path) -> dict:
    result = dmbench("agreement", "--format", "json", "--metric", "metrik-4", "--sources",
                     str(UPSTREAM), "--package", str(package))  # fmt: skip
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def study_csv(package: Path) -> list[dict]:
    with (package / JUDGE_STUDY_PATH).open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_study_has_39_rated_pairs_with_ds2_texts():
    pairs = study_pairs(UPSTREAM, records_from_sources(UPSTREAM))
    assert len(pairs) == 39
    assert len({p.model for p in pairs}) == 8
    ids = [p.target.instance.id for p in pairs]
    assert "SHAS_0shot" not in ids  # the one without an output
    assert all(p.target.instance.text and p.target.record_id.startswith("ds2-") for p in pairs)
    assert ids[0] == "LabTracker_0shot" and pairs[0].human_f1["class"] == 0.625


def _interval(x, y, models, seed=20261201, resamples=10_000):
    """r's percentile interval when the 8 reference models are drawn with replacement."""
    names = sorted(set(models))
    members = [np.flatnonzero(np.array(models) == m) for m in names]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(names), size=(resamples, len(names)))
    rs = []
    for draw in draws:
        picked = np.concatenate([members[i] for i in draw])
        if np.ptp(x[picked]) > 0 and np.ptp(y[picked]) > 0:
            rs.append(np.corrcoef(x[picked], y[picked])[0, 1])
    return np.percentile(rs, [2.5, 97.5])


def test_judge_study_is_stored_and_agreement_has_its_rows(package, fake_ollama):
    fake_ollama.responder = varied_scores
    done = judge_study(package, fake_ollama.url, "--workers", "4")
    assert done.exit_code == 0, done.output
    assert "39 instances, 0 failed" in done.stdout
    assert len(fake_ollama.chats()) == 2 * 39  # both orders
    (run,) = list_judge_runs(package, study=True)
    assert list_judge_runs(package) == []  # not a run over outputs: no leaderboard rows
    assert run.info["settings"]["study"]["source"].endswith("combined-data.json")

    rows = study_csv(package)
    assert len(rows) == 39 and {r["judge_run_id"] for r in rows} == {run.run_id}
    assert all(0 < float(r["ca_ratio"]) < 1 and 0 < float(r["la_ratio"]) < 1 for r in rows)

    table = agreement_json(package)
    judge_rows = {r["element"]: r for r in table["rows"] if r["metric"] == "judge:test-model"}
    assert set(judge_rows) == {"class", "attribute", "association", "overall"}
    assert all(r["source"] == "dmbench" and r["n"] == 39 for r in judge_rows.values())
    assert {(r["metric"], r["element"]) for r in table["rows"] if r["source"] == "dmbench"} >= {
        ("metrik-4", e) for e in judge_rows
    }  # fmt: skip

    models = [r["model"] for r in rows]
    human = {e: np.array([float(r[c]) for r in rows]) for e, c in HUMAN.items()}
    judged = {
        "class": np.array([float(r["ca_ratio"]) for r in rows]),
        "attribute": np.array([float(r["ca_ratio"]) for r in rows]),
        "association": np.array([float(r["la_ratio"]) for r in rows]),
        "overall": np.array([float(r["s_final"]) for r in rows]),
    }
    human["overall"] = (human["class"] + human["attribute"] + human["association"]) / 3
    for element, row in judge_rows.items():
        x, y = judged[element], human[element]
        assert row["pearson_r"] == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)
        assert row["mad"] == pytest.approx(np.mean(np.abs(x - y)), abs=1e-12)
        assert row["bias"] == pytest.approx(np.mean(x - y), abs=1e-12)
        assert row["residual_std"] == pytest.approx(np.std(x - y, ddof=1), abs=1e-12)
        assert row["spearman"] == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-12)
        low, high = _interval(x, y, models)
        assert row["r_ci_low"] == pytest.approx(low, abs=1e-9)
        assert row["r_ci_high"] == pytest.approx(high, abs=1e-9)
    assert judge_rows["class"]["pearson_r"] != judge_rows["association"]["pearson_r"]

    validated = dmbench("validate", str(package))
    assert validated.exit_code == 0, validated.output
    frictionless = subprocess.run(
        [str(FRICTIONLESS), "validate", str(package / "datapackage.json")],
        capture_output=True, text=True, timeout=300, cwd=package,
    )  # fmt: skip
    assert frictionless.returncode == 0, frictionless.stdout
    assert "judge_study" in frictionless.stdout

    again = judge_study(package, fake_ollama.url)  # resumes: nothing left to ask
    assert again.exit_code == 0, again.output
    assert len(fake_ollama.chats()) == 2 * 39 and len(study_csv(package)) == 39


def test_a_study_pair_whose_judgement_fails_is_left_out_and_listed(package, fake_ollama):
    def respond(body):
        if "LabTracker" in body["messages"][1]["content"]:
            return Reply("not json")
        return varied_scores(body)

    fake_ollama.responder = respond
    done = judge_study(package, fake_ollama.url)
    assert done.exit_code == 0, done.output
    failed = [r for r in study_csv(package) if r["failed"] == "true"]
    assert failed and all(r["model"] == "LabTracker" for r in failed)

    table = agreement_json(package)
    judge_rows = [r for r in table["rows"] if r["metric"] == "judge:test-model"]
    assert {r["n"] for r in judge_rows} == {39 - len(failed)}
    left_out = {e["pair"] for e in table["excluded"] if e["metric"] == "judge:test-model"}
    assert left_out == {r["pair_id"] for r in failed}

    # corrupting the stored table is caught
    path = package / JUDGE_STUDY_PATH
    path.write_text(path.read_text("utf-8").replace("LabTracker_0shot", "Nowhere_0shot", 1))
    validated = dmbench("validate", str(package))
    assert validated.exit_code != 0 and "judge_study" in validated.output
