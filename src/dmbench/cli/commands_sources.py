"""Commands that import and check the package: ``sources fetch``, ``build``, ``validate``, ``metadata``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from dmbench.api import DEFAULT_BASE_URL, Package, fetch_sources, write_metadata
from dmbench.cli._options import elapsed, package_option, sources_option


@click.group()
def sources() -> None:
    """Upstream inputs, pinned by commit and sha256."""


@sources.command("fetch")
@click.option(
    "--cache",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to extract the sources (default: $DMBENCH_CACHE or ~/.cache/dmbench/sources).",
)
@click.option(
    "--base-url",
    default=DEFAULT_BASE_URL,
    show_default=True,
    help="Archive server (a mirror of GitHub's codeload).",
)
def sources_fetch(cache: Path | None, base_url: str) -> None:
    """Download the pinned upstream archives and extract the pinned files, hash-checked."""
    target = fetch_sources(cache, base_url)
    click.echo(f"sources ready in {target}")


@click.command()
@sources_option
@package_option
def build(sources_dir: Path | None, package_dir: Path | None) -> None:
    """Build the data package from the pinned sources (all or nothing)."""
    started = time.perf_counter()
    result = Package(package_dir).build(sources_dir)
    click.echo(
        f"built {result.package_dir / 'datapackage.json'}: {result.records} records, "
        f"{result.runs_imported} published runs, {result.runs_carried_over} generated runs kept "
        f"({elapsed(started)})"
    )
    if result.scores_kept:
        click.echo(f"kept the recomputed scores of {result.scores_kept} published runs")
    if result.scores_dropped:
        click.echo(
            f"note: the recomputed scores of {len(result.scores_dropped)} published runs were "
            "dropped because their outputs changed; `dmbench score --runs "
            f"{','.join(result.scores_dropped)}` (per metric) computes them again",
            err=True,
        )


@click.command()
@click.argument("path", type=click.Path(path_type=Path), required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@package_option
def validate(path: Path | None, as_json: bool, package_dir: Path | None) -> None:
    """Validate the package (frictionless plus dmbench's own checks); exit 1 if invalid.

    PATH (the package folder or its datapackage.json) and --package DIR say the same thing.
    """
    if path is not None and package_dir is not None:
        raise click.UsageError("give the package as PATH or as --package DIR, not both")
    report = Package(path or package_dir).validate()
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.render())
    if not report.valid:
        raise SystemExit(1)


@click.command()
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    help="Where CITATION.cff, codemeta.json and .zenodo.json live.",
)
def metadata(root: Path) -> None:
    """Rewrite CITATION.cff, codemeta.json and .zenodo.json from dmbench's one metadata source."""
    for path in write_metadata(root):
        click.echo(f"wrote {path}")
