"""``dmbench export-run`` and ``import-run``: a run between packages as a checked bundle."""

from __future__ import annotations

from pathlib import Path

import click

from dmbench.api import Package
from dmbench.cli._options import package_option


@click.command()
@click.argument("run_id")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The bundle to write (a zip): run.json, outputs.jsonl and their checks.",
)
@package_option
def export_run(run_id: str, out: Path, package_dir: Path | None) -> None:
    """Write a stored run as a checked bundle (zip) that `dmbench import-run` takes."""
    written = Package(package_dir).export_run(run_id, out)
    click.echo(f"wrote {written}")


@click.command()
@click.argument("bundle", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@package_option
def import_run(bundle: Path, package_dir: Path | None) -> None:
    """Check a run bundle against this package, store its run and score it here."""
    imported = Package(package_dir).import_run(bundle)
    click.echo(f"imported {imported.run_id}: {imported.records} records")
    for result in imported.scored:
        click.echo(
            f"re-scored with {result.metric}: {result.records} outputs "
            f"({result.errors} scored 0/0/0 with an error)"
        )
