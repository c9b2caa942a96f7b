"""``dmbench errata``: the paper's claims (Table 1, the metric study of section 3.3, the best
cells of Tables 2-3) and the scoring facts, measured from the package and the study's files.

The regression file ``tests/tables/test_results_errata/test_errata_document.md`` comes from
``.venv/bin/pytest tests/tables/test_results_errata.py --force-regen``; ``docs/errata.md`` from
``dmbench reproduce`` (build, score both metrics, errata; the test below fails when it is
stale).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import UPSTREAM, built_package, deposit_ready_package

from dmbench.cli import main
from dmbench.tables.errata import CLAIMS, check_claims, errata_markdown, load_corpus, round_half_up
from dmbench.tables.facts import scoring_facts

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

DOCS_ERRATA = Path(__file__).resolve().parents[2] / "docs" / "errata.md"


@pytest.fixture(scope="module")
def document() -> str:
    """Of the standard-scored package whose diagrams the session drew once (section 6)."""
    return errata_markdown(deposit_ready_package(), UPSTREAM)


@pytest.fixture(scope="module")
def claims():
    return {c.claim.text: c for c in check_claims(load_corpus(built_package()))}


def test_errata_document(document: str, file_regression) -> None:
    """The whole generated document."""
    file_regression.check(document, extension=".md")


def test_committed_errata_is_current(document: str) -> None:
    """docs/errata.md is what ``dmbench errata`` writes now."""
    assert DOCS_ERRATA.read_text("utf-8") == document


def test_command_writes_the_document(tmp_path: Path, document: str) -> None:
    """``dmbench errata --out`` writes the same text and reports its time."""
    out = tmp_path / "errata.md"
    result = CliRunner().invoke(
        main,
        [
            "errata",
            "--out",
            str(out),
            "--package",
            str(deposit_ready_package()),
            "--sources",
            str(UPSTREAM),
        ],
    )
    assert result.exit_code == 0, result.output
    assert out.read_text("utf-8") == document
    assert result.output.startswith(f"wrote {out} (")


class TestClaims:
    def test_every_claim_is_checked(self, claims) -> None:
        """All thirteen quoted claims appear, each measured under both readings."""
        assert len(claims) == len(CLAIMS) == 13
        assert all(set(c.measured) == {"compat", "standard"} for c in claims.values())

    def test_attribute_claims_hold_only_for_what_metrik4_reads(self, claims) -> None:
        """667 attributes and 10.3 per DS-2 record are compat counts; PlantUML reads more."""
        for text in ("667 attributes", "8-record archive: 10.3 attributes per record"):
            assert claims[text].holds("compat") and not claims[text].holds("standard")

    def test_enum_claim_counts_literals(self, claims) -> None:
        """The claimed 184 enums is the number of enum literals, not of enums."""
        check = claims["184 enums"]
        assert not check.holds("compat") and "enum literals" in check.why

    def test_half_up_rounding(self) -> None:
        """10.25 rounds to 10.3 as the paper prints it (Python's round would give 10.2)."""
        assert str(round_half_up(10.25, 1)) == "10.3"


class TestFacts:
    def test_counts_cover_all_published_runs(self) -> None:
        """Facts are counted over the 42 published runs, 30 of them canonical."""
        facts = scoring_facts(built_package())
        assert (facts.runs, facts.canonical_runs) == (42, 30)
        assert sum(g.records for g in facts.groups) == 1113

    def test_failed_with_diagram_scored_normally_is_a_subset(self) -> None:
        """Records scored normally after failing are among those that kept a diagram."""
        for group in scoring_facts(built_package()).groups:
            assert group.failed_scored_normally <= group.failed_with_diagram <= group.failed
            assert group.rejected_not_failed <= group.rejected


class TestStudyAndBestCells:
    def test_section_3_3(self, document: str) -> None:
        """The metric study's claims: seven of eight hold; "constant" overestimation does not."""
        section = document.split("## 3. The metric study")[1].split("## 4.")[0]
        assert "**7 of 8 claims hold.**" in section
        assert "| M-4's \"constant overestimation on relationships\" (every delta positive) | " \
            "**no** | 38 of 39 association deltas are positive" in section
        assert "| Pearson r | M-4 0.4236 | M-3 0.6535 | M-4 0.4175 |" in section

    def test_best_cells(self, document: str) -> None:
        """Of the paper's six best cells only DS-1 attribute (chen/glm) beats the second under
        metrik-4; under the standard reading another cell leads the DS-1 class column."""
        section = document.split("## 4. The paper's")[1]
        assert "**Best cells that hold, of the paper's 6: 1 under metrik-4, 0 under " \
            "metrik-4-standard.**" in section
        assert "| ds1 | attribute | chen/glm-5.1:cloud | yes, chen/glm-5.1:cloud 0.780" in section
        assert "| ds1 | class | chen/glm-5.1:cloud | **no** (tied): chen/glm-5.1:cloud 0.746" \
            in section
        assert "**no**: another cell is best, calamo/glm-5.1:cloud 0.762" in section
