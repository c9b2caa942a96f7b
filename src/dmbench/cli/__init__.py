"""The ``dmbench`` command line: thin commands over the library, one module per stage."""

from __future__ import annotations

import click

from dmbench._version import __version__
from dmbench.cli import (
    commands_deposit,
    commands_generate,
    commands_judge,
    commands_metrics,
    commands_plantuml,
    commands_report,
    commands_reproduce,
    commands_results,
    commands_sources,
    commands_study,
    commands_validity,
)
from dmbench.cli._errors import DmbenchGroup


@click.group(cls=DmbenchGroup)
@click.version_option(__version__, prog_name="dmbench")
def main() -> None:
    """Reproduce, extend and validate the dmbench domain-modelling benchmark."""


for _module in (
    commands_sources,
    commands_generate,
    commands_judge,
    commands_plantuml,
    commands_metrics,
    commands_results,
    commands_study,
    commands_report,
    commands_validity,
    commands_reproduce,
    commands_deposit,
):
    for _command in _module.COMMANDS:
        main.add_command(_command)
