"""``dmbench validity``: PlantUML's verdict on the canonical outputs, on the whole package."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from results_support import deposit_ready_package

from dmbench.cli import main
from dmbench.core.csvio import csv_text
from dmbench.tables.validity import (
    VALIDITY_FIELDS,
    validity_csv_rows,
    validity_markdown,
    validity_table,
)


@pytest.fixture(scope="module")
def package():
    """The standard-scored package whose diagrams the session drew once (the deposit and
    errata tests share the drawings)."""
    return deposit_ready_package()


@pytest.fixture(scope="module")
def table(package):
    return validity_table(package)


def test_the_json_has_the_rows_and_the_references(package, table) -> None:
    result = CliRunner().invoke(main, ["validity", "--format", "json", "--package", str(package)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data == json.loads(json.dumps(table.to_json()))
    assert set(data) == {"plantuml_version", "layout", "rows", "references"}
    assert (data["plantuml_version"], data["layout"]) == ("1.2025.9", "dot")
    assert all(set(row) == set(VALIDITY_FIELDS) for row in data["rows"])


def test_plantuml_rejects_339_llm_outputs_and_no_rule_based_one(table) -> None:
    """Counted by PlantUML itself over the canonical runs; every rejected one is drawable after
    the repair, and all 53 references are drawn (1 of them repaired: PlantUML 1.2025.9 accepts
    AirTravel and School as written, which 1.2022.6 drew only repaired)."""
    llm, others = table.totals(llm=True), table.totals(llm=False)
    assert (llm["outputs"], llm["plantuml_rejected"], llm["plantuml_repaired"]) == (622, 339, 339)
    assert (others["outputs"], others["plantuml_rejected"]) == (159, 0)
    assert llm["validator_rejected"] == llm["standard_parse_errors"] == 0
    references = table.references
    assert sum(c["outputs"] for c in references.values()) == 53
    assert sum(c["plantuml_not_drawn"] for c in references.values()) == 0
    assert sum(c["plantuml_repaired"] for c in references.values()) == 1


def test_csv_and_markdown_say_the_same(package, table) -> None:
    csv = CliRunner().invoke(main, ["validity", "--format", "csv", "--package", str(package)])
    expected = csv_text(VALIDITY_FIELDS, validity_csv_rows(table))
    assert csv.output.splitlines() == expected.splitlines()
    md = CliRunner().invoke(main, ["validity", "--package", str(package)])
    assert md.output == validity_markdown(table)
    assert "| chen__kimi-k2.6_cloud | ds1 |" in md.output
