"""Each command is one call of the library: its ``--format json`` (or ``--json``) output is the
API's result, printed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from results_support import built_package, deposit_ready_package, full_verification

import dmbench
from dmbench.cli import main


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
