"""Each command is one call of the library: its ``--format json`` (or ``--json``) output is the
API's result, printed."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import built_package, deposit_ready_package, full_verification

import dmbench
from dmbench.cli import main

CLI = Path(__file__).resolve().parents[2] / "src" / "dmbench" / "cli"


def _same(printed: str, returned: object) -> None:
    """Equal as JSON (tuples as lists, NaN as NaN), whatever the indentation."""
    assert json.dumps(json.loads(printed), sort_keys=True) == json.dumps(
        json.loads(json.dumps(returned)), sort_keys=True
    )


def _printed(*arguments: str) -> str:
    result = CliRunner().invoke(main, list(arguments))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.needs_nltk
def test_five_commands_print_what_the_api_returns(upstream_dir: Path) -> None:
    path = deposit_ready_package()
    package, at = dmbench.Package(path), ["--package", str(path)]
    _same(_printed("tables", "--format", "json", *at), package.table_set().records())
    _same(_printed("validity", "--format", "json", *at), package.validity().to_json())
    _same(_printed("validate", "--json", *at), package.validate().to_dict())
    _same(
        _printed("agreement", "--format", "json", "--metric", "metrik-4", "--sources",
                 str(upstream_dir), *at),
        package.agreement(upstream_dir, ["metrik-4"]).to_json(),
    )  # fmt: skip
    printed = _printed("verify", "--json", "--package", str(built_package()))
    _same(printed, full_verification().to_dict())  # dmbench.Package(...).verify(), made once


def test_the_api_names_its_verbs_and_their_values_only() -> None:
    assert len(dmbench.api.__all__) <= 20
    assert all(getattr(dmbench.api, name) is not None for name in dmbench.api.__all__)


def test_the_report_commands_import_the_api_and_no_stage() -> None:
    """The commands that draw, tabulate, check and deposit reach the stages through the API."""
    allowed = {"dmbench", "dmbench.api", "dmbench.errors", "dmbench.core"}
    for name in ("commands_report", "commands_validity", "commands_study", "commands_results",
                 "commands_deposit", "commands_reproduce", "commands_sources"):  # fmt: skip
        tree = ast.parse((CLI / f"{name}.py").read_text("utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        stages = {m for m in imported if m and m.startswith("dmbench")} - allowed
        assert {m for m in stages if not m.startswith("dmbench.cli")} == set(), name
