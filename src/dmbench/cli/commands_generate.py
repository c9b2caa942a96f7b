"""``dmbench generate``: run a candidate on the benchmark datasets or on a user's own records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO

import click

from dmbench import paths
from dmbench.candidates import CANDIDATES, get_candidate
from dmbench.cli.commands_sources import package_option
from dmbench.runs.jobs import (
    DATASET_CHOICES,
    generate_dataset_runs,
    generate_records,
    read_records_file,
)


@click.command()
@click.option(
    "--candidate",
    type=click.Choice(sorted(CANDIDATES)),
    required=True,
    help="The system under test.",
)
@click.option(
    "--dataset",
    type=click.Choice(DATASET_CHOICES),
    default=None,
    help="Benchmark records to run on; the runs are stored in the package.",
)
@click.option(
    "--records",
    "records_file",
    type=click.File("r", encoding="utf-8"),
    default=None,
    help='Your own records instead: a JSON-lines file ({"id", "text"} per line, - for stdin); '
    'prints {"id", "generated", "failed", "error"} lines.',
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Run indices 1..N per dataset; runs already stored are resumed, not repeated.",
)
@package_option
def generate(
    candidate: str,
    dataset: str | None,
    records_file: IO[str] | None,
    runs: int,
    package_dir: Path | None,
) -> None:
    """Generate PlantUML with a candidate: new runs in the package, or JSON lines on stdout."""
    if dataset is not None and records_file is None:
        system = get_candidate(candidate)
        for run in generate_dataset_runs(paths.package_dir(package_dir), system, dataset, runs):
            totals = run.info.totals
            click.echo(
                f"{run.info.run_id}: {totals['n_records']} records, {totals['n_failed']} failed "
                f"({run.path})"
            )
    elif records_file is not None and dataset is None:
        records = read_records_file(records_file, source=records_file.name)
        for row in generate_records(get_candidate(candidate), records):
            click.echo(json.dumps(row, ensure_ascii=False))
    else:
        raise click.UsageError("give exactly one of --dataset and --records")

COMMANDS = [generate]
