"""How sure Tables 2-3 are: cell intervals, paired comparisons, Holm, and what is set in bold.

The regression file ``tests/tables/test_comparisons/test_comparisons_on_the_published_runs.yml`` comes
from ``.venv/bin/pytest tests/tables/test_comparisons.py --force-regen`` (then review the diff).
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import scipy.stats
from click.testing import CliRunner
from results_support import built_package

from dmbench.cli import main
from dmbench.tables.comparisons import ALPHA, COMPARISON_FIELDS, column_verdicts
from dmbench.tables.render import build_tables, write_tables
from dmbench.tables.results import ELEMENTS


@pytest.fixture(scope="module")
def package() -> Path:
    return built_package()


@pytest.fixture(scope="module")
def records(package: Path) -> list[dict]:
    result = CliRunner().invoke(main, ["tables", "--format", "json", "--package", str(package)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def per_record(package: Path) -> dict[tuple[str, str], dict[str, list[float]]]:
    """(series, dataset) -> record -> the published element scores of its runs, read straight
    from data/scores.csv."""
    scores: dict = defaultdict(lambda: defaultdict(list))
    with (package / "data" / "scores.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if (row["metric"], row["origin"]) != ("metrik-4", "published"):
                continue
            candidate, model, dataset, _ = row["run_id"].split("__", 3)
            key = (f"{candidate}__{model}", dataset)
            scores[key][row["record_id"]].append([float(row[f"{e}_score"]) for e in ELEMENTS])
    return scores


def test_every_canonical_cell_contains_its_median(records) -> None:
    cells = [r for r in records if r["table"] in ("table2", "table3") and r["canonical"]]
    assert len(cells) == 10
    for record in cells:
        for element in ELEMENTS:
            cell = record[element]
            assert cell["ci_low"] <= cell["median"] <= cell["ci_high"], (record["series"], cell)


def test_comparison_rows(records, per_record) -> None:
    """Each row's diff is the mean per-record difference of the run means recomputed from
    data/scores.csv; its p-value agrees with scipy's sign-flip permutation test to 0.02."""
    rows = [r for r in records if r["table"] == "comparisons"]
    assert len(rows) == 2 * 3 * 10
    for row in rows:
        assert list(row) == list(COMPARISON_FIELDS)
        index = ELEMENTS.index(row["element"])
        a, b = per_record[(row["a"], row["dataset"])], per_record[(row["b"], row["dataset"])]
        shared = sorted(set(a) & set(b))
        d = np.array([np.mean(a[r], axis=0)[index] - np.mean(b[r], axis=0)[index] for r in shared])
        assert row["n"] == len(shared) == {"ds1": 45, "ds2": 8}[row["dataset"]]
        assert row["diff"] == pytest.approx(d.mean(), abs=1e-12)
        assert row["ci_low"] <= row["diff"] <= row["ci_high"]
        expected = scipy.stats.permutation_test(
            (d,), np.mean, permutation_type="samples", n_resamples=10_000,
            rng=np.random.default_rng(1),
        ).pvalue
        assert row["p_value"] == pytest.approx(expected, abs=0.02), row
        assert row["p_value"] <= row["p_holm"] <= 1.0


def test_holm_within_each_dataset_and_element(records) -> None:
    """The smallest p of a family of 10 is multiplied by 10 (or capped at 1)."""
    families = defaultdict(list)
    for row in records:
        if row["table"] == "comparisons":
            families[(row["metric"], row["dataset"], row["element"])].append(row)
    assert len(families) == 6
    for rows in families.values():
        smallest = min(rows, key=lambda r: r["p_value"])
        assert smallest["p_holm"] == pytest.approx(min(1.0, 10 * smallest["p_value"]))


def test_statistics_record(records) -> None:
    (stats,) = [r for r in records if r["table"] == "statistics"]
    assert stats["resamples"] >= 10_000 and isinstance(stats["seed"], int)
    assert set(stats["versions"]) == {"numpy", "scipy"}


def test_bold_only_where_the_best_beats_the_second(package: Path, tmp_path: Path) -> None:
    """Bold medians are exactly the columns whose best cell beats the second with Holm
    p < 0.05, the text under the table says so, and ties are named."""
    tables = build_tables(package)
    write_tables(tables, tmp_path)
    for dataset, name in (("ds1", "table2"), ("ds2", "table3")):
        text = (tmp_path / f"{name}.md").read_text("utf-8")
        verdicts = column_verdicts(tables.results, tables.comparisons, dataset)
        assert len(re.findall(r"\*\*\d\.\d{3}\*\*", text)) == sum(v.clear for v in verdicts)
        assert f"Holm-adjusted\np < {ALPHA}" in text
        for v in verdicts:
            if not v.clear:
                assert "statistically tied with" in text
    table2 = (tmp_path / "table2.md").read_text("utf-8")
    assert "| chen | glm-5.1:cloud | 3 | 0.746 ± 0.006 [" in table2
    assert "**0.780** ± 0.006 [" in table2
    assert "- Attribute: best chen/glm-5.1:cloud (0.780), ahead of chen/kimi-k2.6:cloud" in table2
    assert "- Class: best chen/glm-5.1:cloud (0.746), statistically tied with" in table2
    table3 = (tmp_path / "table3.md").read_text("utf-8")
    assert "**" not in table3.split("## Canonical runs")[1].split("A column's")[0]


def test_comparisons_files(package: Path, tmp_path: Path) -> None:
    tables = build_tables(package)
    write_tables(tables, tmp_path)
    header = (tmp_path / "comparisons.csv").read_text("utf-8").splitlines()[0]
    assert header == ",".join(COMPARISON_FIELDS)
    assert json.loads((tmp_path / "statistics.json").read_text("utf-8"))["table"] == "statistics"
    assert "## Table 3: scores on DS-2 (8 records)" in (tmp_path / "comparisons.md").read_text(
        "utf-8"
    )


def test_comparisons_on_the_published_runs(package: Path, data_regression) -> None:
    """Every comparison of the canonical cells (to 10 decimals)."""
    rows = [
        {k: round(v, 10) if isinstance(v, float) else v for k, v in c.to_record().items()}
        for c in build_tables(package).comparisons
    ]
    data_regression.check({"comparisons": rows})
