"""The release and the downloader's check: ``deposit`` and ``check``."""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from dmbench.api import TOKEN_ENV, Package
from dmbench.cli._options import elapsed, package_option
from dmbench.errors import MissingPrerequisiteError

API_URL_ENV = "DMBENCH_ZENODO_API"


@click.command()
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for the deposit's files (package zip, code zip, metadata, SHA256SUMS).",
)
@click.option("--doi", default=None, help="The DOI reserved for the record (10.5281/zenodo.N).")
@click.option(
    "--draft",
    is_flag=True,
    help="A trial: allow uncommitted changes (left out of the code zip) and the placeholder DOI.",
)
@click.option(
    "--upload",
    is_flag=True,
    help=f"Create a Zenodo draft with a reserved DOI, build with it, upload (token: ${TOKEN_ENV}).",
)
@click.option("--sandbox", is_flag=True, help="With --upload: use sandbox.zenodo.org.")
@click.option(
    "--new-version-of",
    type=int,
    default=None,
    metavar="ID",
    help="With --upload: a new version of the published record ID instead of a new record.",
)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The git checkout whose HEAD the code zip archives (default: the package directory).",
)
@click.option(
    "--wheels",
    is_flag=True,
    help="Also write a zip of the wheels the code needs (Linux x86_64, CPython 3.11-3.13, "
    "fetched from PyPI), for an install with no network.",
)
@package_option
def deposit(
    out_dir: Path,
    doi: str | None,
    draft: bool,
    upload: bool,
    sandbox: bool,
    new_version_of: int | None,
    repo: Path | None,
    wheels: bool,
    package_dir: Path | None,
) -> None:
    """Build the Zenodo deposit reproducibly (and, with --upload, upload it as a draft)."""
    started = time.perf_counter()
    if not upload:
        if sandbox or new_version_of is not None:
            raise click.UsageError("--sandbox and --new-version-of go with --upload")
        result = Package(package_dir).deposit(out_dir, doi, draft, repo, wheels)
    else:
        if doi:
            raise click.UsageError("--upload takes the DOI Zenodo reserves; leave out --doi")
        token = os.environ.get(TOKEN_ENV)
        if not token:
            raise MissingPrerequisiteError(
                f"${TOKEN_ENV} is not set: create a token with the deposit:write scope on "
                "Zenodo (Applications > Personal access tokens) and export it"
            )
        target = os.environ.get(API_URL_ENV) or ("sandbox" if sandbox else "zenodo")
        uploaded = Package(package_dir).upload(
            out_dir, token, target, new_version_of, draft, repo, progress=click.echo,
            wheels=wheels,
        )
        result = uploaded.deposit
    for path in result.files:
        click.echo(f"{path}  ({path.stat().st_size} bytes)")
    click.echo(
        f"deposit of {result.commit[:12]} with DOI {result.doi}"
        f"{' (draft)' if result.draft else ''}: {len(result.files)} files, the package zip "
        f"holds {result.package_files} ({elapsed(started)})"
    )
    if upload:
        click.echo(f"draft ready to review and publish: {uploaded.draft.html}")


@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--sha256", default=None, metavar="HEX", help="The zip's sha256 as the record lists it.")
@click.option("--md5", default=None, metavar="HEX", help="The zip's md5 as Zenodo lists it.")
@click.option(
    "--no-anchor",
    is_flag=True,
    help="Accept a check no outside checksum anchors (a folder, a zip without SHA256SUMS): "
    "exit 0 instead of 3 when it holds together.",
)
@click.option(
    "--plantuml",
    is_flag=True,
    help="Also redraw PlantUML's verdict (results/validity.*): needs Java and Graphviz dot.",
)
def check(path: Path, sha256: str | None, md5: str | None, no_anchor: bool, plantuml: bool) -> None:
    """Check a package folder or zip offline: anchor, validate, re-score, recompute Tables 1-3.

    A zip is first compared with SHA256SUMS beside it and with --sha256/--md5 when given.
    Exit 0: it holds and is anchored; 1: it does not hold; 3: it holds but nothing outside
    it anchored it (--no-anchor accepts that).
    """
    report = Package(path).check(sha256, md5, plantuml, no_anchor)
    click.echo(report.render())
    click.echo(f"check ({report.seconds:.1f} s)")
    if report.exit_code:
        raise SystemExit(report.exit_code)
