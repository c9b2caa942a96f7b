"""Pair scores kept between runs of the main job in the user's cache: reused while the scoring
code and libraries are the same, ignored otherwise, never a failure, and never trusted when a
line does not read as a score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from results_support import copy_package

import dmbench
from dmbench.core.derived import read_derived, write_derived
from dmbench.metrics import PUBLISHED_METRIC, BenchmarkScore
from dmbench.metrics.fingerprint import fingerprint_of, scoring_fingerprint
from dmbench.package import load_records
from dmbench.runs import rescoring as scoring
from dmbench.runs.pair_scores import PairScores, kept_scores_path, pair_key
from dmbench.runs.rescoring import rescore, select_runs

RULE_BASED_DS2 = [f"rule_based__no-llm__ds2__run{i}" for i in (1, 2, 3)]


def _no_scoring(*args, **kwargs):
    raise AssertionError("scored a pair that was kept")


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch) -> None:
    """Each test's own user cache, where the kept scores go."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.fixture
def package(tmp_path: Path) -> Path:
    return copy_package(tmp_path / "package")


def test_kept_scores_give_the_rows_computing_gives(package: Path, monkeypatch) -> None:
    records, runs = load_records(package), select_runs(package, RULE_BASED_DS2)
    kept = PairScores.read()
    assert kept.scores == {}
    computed = rescore(records, runs, PUBLISHED_METRIC, kept=kept)
    assert computed.reused == 0 and kept.added == computed.distinct_pairs
    kept.save()
    path = kept_scores_path()
    assert path is not None and path.is_file() and kept.added == 0
    assert package not in path.parents and not list(package.rglob("pair-scores-*"))

    monkeypatch.setattr(scoring, "score_benchmark_many", _no_scoring)
    again = rescore(records, runs, PUBLISHED_METRIC, kept=PairScores.read())
    assert again.reused == again.distinct_pairs == computed.distinct_pairs
    assert again.rows == computed.rows
    with pytest.raises(AssertionError, match="kept"):
        rescore(records, runs, PUBLISHED_METRIC, kept=PairScores.read(fresh=True))


def test_only_the_missing_pairs_are_computed(package: Path) -> None:
    records, runs = load_records(package), select_runs(package, RULE_BASED_DS2)
    kept = PairScores.read()
    first = rescore(records, runs[:1], PUBLISHED_METRIC, kept=kept)
    all_three = rescore(records, runs, PUBLISHED_METRIC, kept=kept)
    assert all_three.reused == first.distinct_pairs
    assert kept.added == all_three.distinct_pairs
    assert all_three.rows == rescore(records, runs, PUBLISHED_METRIC).rows


def _kept_file(lines: list[str]) -> Path:
    path = kept_scores_path()
    assert path is not None
    write_derived(path, ("\n".join(lines) + "\n").encode("utf-8"))
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


def test_a_line_that_is_not_a_score_is_not_kept() -> None:
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
        _line(generated="d" * 64, error="Invalid generated model"),
        _line(metric=None),
        json.dumps({"metric": "metrik-4", "reference": "a", "generated": "b"}),
    ]
    _kept_file([*bad, good])
    assert PairScores.read().scores == {
        ("metrik-4", "a" * 64, "b" * 64): BenchmarkScore(0.5, 0.25, 1.0, None)
    }


def test_a_failure_is_computed_again_in_every_run() -> None:
    kept = PairScores.read()
    failed = pair_key("metrik-4", "@startuml\nclass A\n@enduml", "@startuml\n-->\n@enduml")
    kept.put(failed, BenchmarkScore(0.0, 0.0, 0.0, "Unrecognized line 2"))
    assert kept.scores == {} and kept.added == 0


def test_a_corrupt_file_or_another_fingerprints_file_is_no_scores() -> None:
    path = _kept_file([_line()])
    path.write_bytes(path.read_bytes()[:-20])  # truncated: its sha256 header no longer holds
    assert read_derived(path) is None and PairScores.read().scores == {}
    other = path.with_name(path.name.replace("-1-", "-1-0", 1))
    write_derived(other, (_line() + "\n").encode())
    kept = PairScores.read()
    assert kept.scores == {}
    key = pair_key("metrik-1", "@startuml\n@enduml", "@startuml\n@enduml")
    kept.put(key, BenchmarkScore(0.0, 0.0, 0.0))
    kept.save()
    assert not other.exists(), "another fingerprint's file is removed when this one is written"
    assert PairScores.read().scores == {key: BenchmarkScore(0.0, 0.0, 0.0)}


def test_no_home_keeps_nothing_and_a_relative_cache_home_is_ignored(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.chdir(tmp_path)
    path = kept_scores_path()
    assert path is not None and path.is_absolute()
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: (_ for _ in ()).throw(RuntimeError)))
    kept = PairScores.read()
    assert kept.path is None
    kept.put(pair_key("metrik-1", "a", "b"), BenchmarkScore(1.0, 1.0, 1.0))
    kept.save()
    assert not (tmp_path / "relative").exists()


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
