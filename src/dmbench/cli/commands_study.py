"""``dmbench agreement``: the metric study's consistency table and the section 3.3 claims."""

from __future__ import annotations

import time
from pathlib import Path

import click

from dmbench.api import METRICS, Package
from dmbench.cli._options import elapsed, package_option, sources_option


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "csv", "json"]),
    default="md",
    show_default=True,
    help="md: the table and the claims for reading; csv: the rows; json: rows, claims, excluded "
    "pairs and the bootstrap settings.",
)
@click.option(
    "--metric",
    "metrics",
    type=click.Choice(list(METRICS)),
    multiple=True,
    help="dmbench rows only for these metrics (repeatable; default: every registered metric).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file instead of standard output.",
)
@sources_option
@package_option
def agreement(
    fmt: str,
    metrics: tuple[str, ...],
    out: Path | None,
    sources_dir: Path | None,
    package_dir: Path | None,
) -> None:
    """Recompute the study's consistency table (39 human-rated pairs) and check section 3.3.

    Judge rows (judge:<model>) come from the package's `dmbench judge --study` runs."""
    started = time.perf_counter()
    package = Package(package_dir)
    table = package.agreement(sources_dir, metrics, strict=package_dir is not None)
    if out is None:
        click.echo(table.text(fmt), nl=False)
    else:
        table.write(out, fmt)
    click.echo(f"agreement ({elapsed(started)})", err=True)
