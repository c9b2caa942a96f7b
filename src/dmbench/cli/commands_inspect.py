"""``dmbench import-inspect``: eval logs of the inspect_ai task as stored runs."""

from __future__ import annotations

from pathlib import Path

import click

from dmbench.api import Package
from dmbench.cli._options import package_option


@click.command("import-inspect")
@click.argument(
    "logs",
    metavar="LOG...",
    nargs=-1,
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
)
@package_option
def import_inspect(logs: tuple[Path, ...], package_dir: Path | None) -> None:
    """Store the runs of `inspect eval dmbench/domain_modelling` logs (LOG...) in the package."""
    for run in Package(package_dir).import_inspect(logs):
        state = "imported" if run.added else "already imported"
        click.echo(
            f"{run.run_id}: {state} from {run.log.name} "
            f"({run.n_outputs} outputs, {run.n_failed} failed)"
        )
