"""``dmbench reproduce``: the README's main job in one command."""

from __future__ import annotations

import time
from pathlib import Path

import click

from dmbench.api import Package
from dmbench.cli._options import elapsed, package_option, sources_option


@click.command()
@sources_option
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Directory for Tables 1-3.",
)
@click.option(
    "--errata",
    "errata_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("docs/errata.md"),
    show_default=True,
    help="Where to write the errata.",
)
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("report"),
    show_default=True,
    help="Folder of the HTML report (every diagram drawn; open index.html).",
)
@click.option("--workers", type=click.IntRange(min=1), default=None, help="Scoring processes.")
@click.option(
    "--rescore",
    is_flag=True,
    help="Compute every pair score, reusing none an earlier run kept in the user cache.",
)
@package_option
def reproduce(
    sources_dir: Path | None,
    out: Path,
    errata_path: Path,
    report_dir: Path,
    workers: int | None,
    rescore: bool,
    package_dir: Path | None,
) -> None:
    """Fetch what is missing, build, verify the published scores, re-score, tabulate, validate,
    and build the HTML report."""
    started = time.perf_counter()
    failed = None
    stages = Package(package_dir).reproduce(
        sources_dir, out, errata_path, report_dir, workers, rescore_all=rescore
    )
    for stage in stages:
        if stage.name == "verify" or not stage.ok:
            click.echo(stage.detail)
        click.echo(f"[{stage.name:<8}] {stage.seconds:6.1f} s  {stage.summary}")
        if not stage.ok:
            failed = stage.name
    click.echo(f"total {elapsed(started)}")
    if failed:
        raise click.ClickException(f"stage {failed} failed; see its report above")
