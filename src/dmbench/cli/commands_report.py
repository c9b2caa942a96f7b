"""Commands that draw the package: ``render`` (diagrams as SVG) and ``report`` (the HTML site)."""

from __future__ import annotations

from pathlib import Path

import click

from dmbench.api import Package
from dmbench.cli._options import package_option, split_ids


@click.command()
@click.option(
    "--runs",
    "run_ids",
    multiple=True,
    metavar="RUN_ID",
    help="Render the references and these runs' outputs (repeat the option or separate ids by "
    "commas; default: every run).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write each drawing here as <sha256 of the source>.svg (the folder is replaced "
    "whole; refused unless new, empty or written by an earlier render).",
)
@package_option
def render(run_ids: tuple[str, ...], out: Path | None, package_dir: Path | None) -> None:
    """Draw every reference and generated diagram as SVG with PlantUML, in one Java process.

    SVGs and PlantUML's verdicts are cached by the sha256 of their source under the package's
    .dmbench-cache/render/; a diagram PlantUML rejects is drawn after the least repair that
    makes PlantUML accept it.
    """
    batch = Package(package_dir).render(split_ids(run_ids), out)
    click.echo(batch.summary())


@click.command()
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("report"),
    show_default=True,
    help="Folder of the site (replaced whole when the build succeeds; refused unless new, "
    "empty or an earlier report).",
)
@package_option
def report(out: Path, package_dir: Path | None) -> None:
    """Build the report: a static HTML site (index, one page per record, diagrams, plots).

    It works from file:// with no network; open OUT/index.html in a browser.
    """
    result = Package(package_dir).report(
        out, progress=lambda m: click.echo(m, err=True)
    )
    click.echo(f"{result.summary()} ({result.seconds:.1f} s)")
    for problem in result.check.problems:
        click.echo(f"  {problem}", err=True)
    if not result.ok:
        raise SystemExit(1)
