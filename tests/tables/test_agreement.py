"""``dmbench agreement``: the metric study's consistency table against the study's own numbers.

The regression file ``tests/tables/test_agreement/test_numbers_on_the_study.yml`` comes from
``.venv/bin/pytest tests/tables/test_agreement.py --force-regen`` (then review the diff).
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from results_support import UPSTREAM

from dmbench.cli import main
from dmbench.metrics import PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.sources.study import published_comparison, study_pairs
from dmbench.tables.agreement import (
    AGREEMENT_FIELDS,
    agreement_markdown,
    agreement_rows,
    agreement_table,
)

pytestmark = pytest.mark.needs_shared  # the study data are read from ../shared/upstream

STUDY_KEYS = {
    "mad": "mad_{}_delta_f1",
    "residual_std": "residual_std_{}",
    "bias": "bias_{}",
    "abs_bias": "abs_bias_{}",
    "median_abs": "median_abs_{}",
    "pearson_r": "pearson_r_{}",
    "slope": "slope_{}",
    "intercept": "intercept_{}",
}
"""dmbench's statistic -> the key in ``metrics_comparison.json`` (``{}``: the element)."""


def study_key(statistic: str, element: str) -> str:
    if (statistic, element) == ("mad", "overall"):
        return "mad_overall_delta"
    return STUDY_KEYS[statistic].format(element)


def statistics_checked_against_the_study(rows: list[dict]) -> int:
    """Assert every row's statistics equal ``metrics_comparison.json`` within 1e-9 (None where
    the study has no such value); returns how many values were compared."""
    study = published_comparison(UPSTREAM)
    checked = 0
    for row in rows:
        expected = study[row["metric"]]
        assert row["n"] == expected["n_comparisons"] == 39
        for statistic in STUDY_KEYS:
            key = study_key(statistic, row["element"])
            if key in expected:
                assert math.isclose(row[statistic], expected[key], abs_tol=1e-9), (row, key)
                checked += 1
            else:
                assert row[statistic] is None, (row, statistic)
    return checked


@pytest.fixture(scope="module")
def table():
    """Published rows of the five metrics, dmbench rows of metrik-4 and metrik-4-standard."""
    return agreement_table(UPSTREAM, [PUBLISHED_METRIC, STANDARD_METRIC])


@pytest.fixture(scope="module")
def cli_json():
    metrics = ["--metric", PUBLISHED_METRIC, "--metric", STANDARD_METRIC]
    result = CliRunner().invoke(
        main, ["agreement", "--format", "json", "--sources", str(UPSTREAM), *metrics]
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_every_statistic_equals_the_study(cli_json) -> None:
    """Published rows of M-1..M-5 and dmbench's metrik-4 rows equal metrics_comparison.json
    within 1e-9, every statistic the study defines, every element and the overall columns."""
    rows = [
        r
        for r in cli_json["rows"]
        if r["source"] == "published" or r["metric"] == PUBLISHED_METRIC
    ]
    assert statistics_checked_against_the_study(rows) == 6 * (3 * 8 + 4)
    assert {(r["metric"], r["source"]) for r in cli_json["rows"]} >= {
        *((f"metrik-{i}", "published") for i in range(1, 6)),
        (PUBLISHED_METRIC, "dmbench"),
        (STANDARD_METRIC, "dmbench"),
    }


def test_dmbench_rows_of_all_five_metrics_equal_the_study() -> None:
    """dmbench's own scores of the 39 pairs give, for metrik-1 to metrik-5, every statistic of
    ``metrics_comparison.json`` within 1e-9 (issue 16's acceptance)."""
    metrics = [f"metrik-{i}" for i in range(1, 6)]
    table = agreement_table(UPSTREAM, metrics).to_json()
    rows = [r for r in table["rows"] if r["source"] == "dmbench"]
    assert {r["metric"] for r in rows} == set(metrics)
    assert statistics_checked_against_the_study(rows) == 5 * (3 * 8 + 4)


def test_json_shape(cli_json) -> None:
    """The documented keys, in order, and the bootstrap settings and library versions."""
    assert all(list(row) == list(AGREEMENT_FIELDS) for row in cli_json["rows"])
    assert all(set(c) == {"claim", "holds", "measured"} for c in cli_json["claims"])
    assert cli_json["bootstrap"]["resamples"] >= 10_000
    assert isinstance(cli_json["bootstrap"]["seed"], int)
    assert set(cli_json["versions"]) == {"numpy", "scipy"}


def test_r_interval_contains_r(table) -> None:
    for row in table.rows:
        s = row.stats
        if s.pearson_r is not None:
            assert s.r_ci_low <= s.pearson_r <= s.r_ci_high, row


def test_standard_reading_leaves_out_the_hbms_reference(table) -> None:
    """The standard reading rejects the HBMS reference (an unclosed quote), so its five pairs
    are left out of the metrik-4-standard rows and named with the reason."""
    excluded = table.excluded[STANDARD_METRIC]
    assert sorted(excluded) == sorted(p.pair_id for p in study_pairs(UPSTREAM) if p.model == "HBMS")
    assert all("rejects the reference diagram" in why for why in excluded.values())
    assert {r.stats.n for r in table.rows if r.metric == STANDARD_METRIC} == {34}
    assert PUBLISHED_METRIC not in table.excluded
    assert "metrik-4-standard` HBMS_CoT: metrik-4-standard rejects the reference" in (
        agreement_markdown(table)
    )


def test_section_3_3_claims(table) -> None:
    """Seven claims hold; the "constant" overestimation does not: one delta is negative."""
    verdicts = {c.claim: c.holds for c in table.claims}
    assert len(verdicts) == 8
    assert [claim for claim, holds in verdicts.items() if not holds] == [
        "M-4's \"constant overestimation on relationships\" (every delta positive)"
    ]
    (constant,) = [c for c in table.claims if "constant" in c.claim]
    assert constant.measured.startswith("38 of 39 association deltas are positive")


def test_rows_for_any_rater() -> None:
    """A further rater (an LLM judge) gets rows from its per-pair values; unrated pairs are
    left out. Giving the human F1 itself agrees perfectly."""
    pairs = study_pairs(UPSTREAM)
    values = {p.pair_id: dict(p.human_f1) for p in pairs[:20]}
    rows = agreement_rows("judge", "judge", values, pairs, resamples=500)
    assert [r.element for r in rows] == ["class", "attribute", "association", "overall"]
    for row in rows:
        assert row.stats.n == 20 and row.stats.mad == 0.0 and row.stats.bias == 0.0
    assert rows[0].stats.pearson_r == pytest.approx(1.0)


def test_formats(tmp_path) -> None:
    """csv has the documented header; md the claims section; --out writes a file."""
    runner = CliRunner()
    args = ["agreement", "--sources", str(UPSTREAM), "--metric", PUBLISHED_METRIC]
    out = tmp_path / "agreement.csv"
    result = runner.invoke(main, [*args, "--format", "csv", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text("utf-8").splitlines()[0] == ",".join(AGREEMENT_FIELDS)
    result = runner.invoke(main, args)
    assert result.exit_code == 0 and "## Section 3.3, checked against the published rows" in (
        result.stdout
    )


def test_missing_sources_name_the_file(tmp_path) -> None:
    result = CliRunner().invoke(main, ["agreement", "--sources", str(tmp_path)])
    assert result.exit_code == 1
    assert "combined-data.json: pinned upstream file is missing" in result.output


def test_numbers_on_the_study(table, data_regression) -> None:
    """Every row (to 10 decimals) and claim on the real study data."""
    rows = [
        {k: round(v, 10) if isinstance(v, float) else v for k, v in r.to_record().items()}
        for r in table.rows
    ]
    data_regression.check({"rows": rows, "claims": [c.to_record() for c in table.claims]})


def test_no_values_no_rows() -> None:
    """A rater that scored none of the pairs gives no rows rather than NaNs."""
    assert agreement_rows("judge", "judge", {}, study_pairs(UPSTREAM)) == []
