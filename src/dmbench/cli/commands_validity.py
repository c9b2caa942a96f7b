"""``dmbench validity``: PlantUML's verdict on the canonical outputs and the references."""

from __future__ import annotations

import json
from pathlib import Path

import click

from dmbench.api import Package
from dmbench.cli._options import package_option


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "csv", "json"]),
    default="md",
    show_default=True,
    help="Print the table as Markdown, CSV or JSON.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write validity.csv, .md and .json here (e.g. results/).",
)
@package_option
def validity(fmt: str, out: Path | None, package_dir: Path | None) -> None:
    """Count, per series and dataset, the outputs PlantUML rejects, repairs and cannot draw.

    Also what upstream's validator rejects and what the standard reading cannot parse; the
    references get the same counts. Diagrams not drawn yet are drawn (and cached) first.
    """
    table = Package(package_dir).validity(out)
    if fmt == "json":
        click.echo(json.dumps(table.to_json(), indent=2))
    else:
        click.echo(table.csv() if fmt == "csv" else table.markdown(), nl=False)

