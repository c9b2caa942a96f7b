"""``dmbench quirks``: what the compat reading costs, over the published references and outputs.

Apart from ``parse``, which stays light to import: this one reads the sources through the API.
"""

from __future__ import annotations

from pathlib import Path

import click

from dmbench.api import quirk_tables
from dmbench.cli._options import sources_option


@click.command("quirks")
@sources_option
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help=(
        "Where to write quirk_cost.csv and quirk_cost.md. The default, results/, is relative "
        "to the current directory: the package's results folder when run from the checkout "
        "(the package directory is the current directory, as for every dmbench command)."
    ),
)
def quirks(sources_dir: Path | None, out_dir: Path) -> None:
    """Tabulate what the compat reading loses against the standard one, per dataset/candidate."""
    _csv, markdown = quirk_tables(sources_dir, out_dir)
    click.echo(markdown, nl=False)
    click.echo(f"wrote {out_dir / 'quirk_cost.csv'} and {out_dir / 'quirk_cost.md'}")
