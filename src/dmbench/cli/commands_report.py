"""Commands that draw the package: ``render`` (diagrams as SVG) and ``report`` (the HTML site)."""

from __future__ import annotations

from pathlib import Path

import click

from dmbench import core
from dmbench.api import (
    LAYOUT,
    PLANTUML_VERSION,
    build_site,
    cache_dir_for,
    package_diagrams,
    refuse_foreign,
    render_diagrams,
    write_drawings,
)
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
    package = core.package_dir(package_dir)
    ids = split_ids(run_ids)
    if out is not None:
        refuse_foreign(out, package, "render")
    sources = package_diagrams(package, ids or None)
    batch = render_diagrams(sources, cache_dir_for(package))
    if out is not None:
        write_drawings(batch, out, package)
    click.echo(
        f"{len(batch.renderings)} distinct diagrams: {batch.drawn} sent to PlantUML "
        f"{PLANTUML_VERSION} ({LAYOUT}), {batch.cached} from the cache; {batch.rejected} rejected "
        f"as written, {batch.repaired} drawn repaired, {batch.failed} not drawn "
        f"({batch.seconds:.1f} s)"
    )


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
    result = build_site(
        core.package_dir(package_dir), out, progress=lambda m: click.echo(m, err=True)
    )
    click.echo(f"{result.summary()} ({result.seconds:.1f} s)")
    for problem in result.check.problems:
        click.echo(f"  {problem}", err=True)
    if not result.ok:
        raise SystemExit(1)
