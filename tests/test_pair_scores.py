"""Pair scores kept between runs of the main job: reused while the scoring code and data are the
same, ignored otherwise, and never trusted when a line does not read as a score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from results_support import copy_package

import dmbench
from dmbench.metrics import PUBLISHED_METRIC, BenchmarkScore
from dmbench.metrics.fingerprint import fingerprint_of, scoring_fingerprint
from dmbench.package import load_records
from dmbench.runs import pair_scores
from dmbench.runs import rescoring as scoring
from dmbench.runs.pair_scores import CACHE_FILE, PairScores, pair_key
from dmbench.runs.rescoring import rescore, select_runs

RULE_BASED_DS2 = [f"rule_based__no-llm__ds2__run{i}" for i in (1, 2, 3)]


def _no_scoring(*args, **kwargs):
    raise AssertionError("scored a pair that was kept")


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return copy_package(tmp_path / "package")


def test_kept_scores_give_the_rows_computing_gives(package: Path, monkeypatch) -> None:
    records, runs = load_records(package), select_runs(package, RULE_BASED_DS2)
    kept = PairScores.read(package)
    assert kept.scores == {}
    computed = rescore(records, runs, PUBLISHED_METRIC, kept=kept)
    assert computed.reused == 0 and kept.added == computed.distinct_pairs
    kept.save()
    assert (package / CACHE_FILE).is_file() and kept.added == 0

    monkeypatch.setattr(scoring, "score_benchmark_many", _no_scoring)
    again = rescore(records, runs, PUBLISHED_METRIC, kept=PairScores.read(package))
    assert again.reused == again.distinct_pairs == computed.distinct_pairs
    assert again.rows == computed.rows
    with pytest.raises(AssertionError, match="kept"):
        rescore(records, runs, PUBLISHED_METRIC, kept=PairScores.read(package, fresh=True))


def test_only_the_missing_pairs_are_computed(package: Path) -> None:
    records, runs = load_records(package), select_runs(package, RULE_BASED_DS2)
    kept = PairScores.read(package)
    first = rescore(records, runs[:1], PUBLISHED_METRIC, kept=kept)
    all_three = rescore(records, runs, PUBLISHED_METRIC, kept=kept)
    assert all_three.reused == first.distinct_pairs
    assert kept.added == all_three.distinct_pairs
    assert all_three.rows == rescore(records, runs, PUBLISHED_METRIC).rows


def _kept_file(package: Path, lines: list[str]) -> Path:
    path = package / CACHE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps({"format": pair_scores.FORMAT, "fingerprint": scoring_fingerprint()})
    path.write_text("\n".join([header, *lines]) + "\n", encoding="utf-8")
    return path


def _line(**changes) -> str:
    row = {
        "metric": "metrik-4",
        "reference": "a" * 64,
        "generated": "b" * 64,
        "class_score": 0.5,
        "attribute_score": 0.25,
        "association_score": 1.0,
        "error": None,
    }
    return json.dumps({**row, **changes})


def test_a_line_that_is_not_a_score_is_not_kept(package: Path) -> None:
    good = _line()
    bad = [
        "{",
        "[]",
        _line(class_score="0.5"),
        _line(class_score=1),
        _line(class_score=True),
        _line(attribute_score=1.5),
        _line(association_score=-0.0625),
        _line(generated="c" * 64).replace("0.5", "NaN"),
        _line(error=3),
        _line(metric=None),
        json.dumps({"metric": "metrik-4", "reference": "a", "generated": "b"}),
    ]
    _kept_file(package, [*bad, good])
    kept = PairScores.read(package)
    assert kept.scores == {("metrik-4", "a" * 64, "b" * 64): BenchmarkScore(0.5, 0.25, 1.0, None)}


@pytest.mark.parametrize(
    "header",
    [
        json.dumps({"format": 1, "fingerprint": "0" * 64}),
        json.dumps({"format": 2, "fingerprint": "{current}"}),
        "not json",
        "",
    ],
)
def test_scores_kept_under_another_fingerprint_are_ignored_and_replaced(
    package: Path, header: str
) -> None:
    path = _kept_file(package, [_line()])
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[0] = header.replace("{current}", scoring_fingerprint())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    kept = PairScores.read(package)
    assert kept.scores == {}
    key = pair_key("metrik-1", "@startuml\n@enduml", "@startuml\n@enduml")
    kept.put(key, BenchmarkScore(0.0, 0.0, 0.0, "empty"))
    kept.save()
    written = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(written[0]) == {"format": 1, "fingerprint": scoring_fingerprint()}
    assert PairScores.read(package).scores == {key: BenchmarkScore(0.0, 0.0, 0.0, "empty")}


def test_an_unreadable_file_is_no_scores(package: Path) -> None:
    path = package / CACHE_FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert PairScores.read(package).scores == {}
    path.unlink()
    path.mkdir()
    assert PairScores.read(package).scores == {}


def test_the_fingerprint_follows_the_scoring_code_only(tmp_path: Path) -> None:
    code = Path(dmbench.__file__).parent
    copy = tmp_path / "dmbench"
    shutil.copytree(code, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert fingerprint_of(copy) == scoring_fingerprint()
    (copy / "cli" / "__init__.py").write_text("# another CLI\n", encoding="utf-8")
    assert fingerprint_of(copy) == scoring_fingerprint()
    for changed in ("metrics/metrik2.py", "plantuml/grammar.lark", "errors.py"):
        path = copy / changed
        original = path.read_bytes()
        path.write_bytes(original + b"\n")
        assert fingerprint_of(copy) != scoring_fingerprint(), changed
        path.write_bytes(original)
    assert fingerprint_of(copy) == scoring_fingerprint()
