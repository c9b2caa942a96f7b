"""Commands that turn the package into results: ``score``, ``tables``, ``verify``, ``errata``."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from dmbench.api import SCORE_SOURCES, Package
from dmbench.cli._metric_option import metric_option
from dmbench.cli._options import elapsed, package_option, sources_option, split_ids

workers_option = click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Scoring processes (default: one per CPU when there is enough work).",
)


@click.command()
@metric_option
@click.option(
    "--runs",
    "run_ids",
    multiple=True,
    metavar="RUN_ID",
    help="Score only these runs (repeat the option or separate ids by commas; default: all).",
)
@workers_option
@package_option
def score(
    metric: str, run_ids: tuple[str, ...], workers: int | None, package_dir: Path | None
) -> None:
    """Recompute per-record scores from the stored outputs and store them as `recomputed`."""
    result = Package(package_dir).score(metric, split_ids(run_ids), workers)
    click.echo(
        f"scored {result.records} outputs of {result.runs} runs with {result.metric} "
        f"({result.distinct_pairs} distinct pairs, {result.errors} scored 0/0/0 with an error) "
        f"({result.seconds:.1f} s)"
    )


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json"]),
    default="csv",
    show_default=True,
    help="csv: write CSV and Markdown files to --out; json: print the tables as a JSON list.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("results"),
    show_default=True,
    help="Directory for table1-3 .csv and .md (with --format csv).",
)
@metric_option
@click.option(
    "--scores",
    "source",
    type=click.Choice(list(SCORE_SOURCES)),
    default="published",
    show_default=True,
    help="published: upstream values for imported runs, recomputed ones where a run has none; "
    "recomputed: dmbench's values for every run (run `dmbench score` first).",
)
@package_option
def tables(fmt: str, out: Path, metric: str, source: str, package_dir: Path | None) -> None:
    """Rebuild Table 1 (the corpora, both readings) and Tables 2-3 (scores per candidate, LLM).

    Without --metric and --scores every metric that has scores is written: metrik-4 in OUT,
    metrik-4-standard (recomputed) in OUT/metrik-4-standard."""
    started = time.perf_counter()
    package = Package(package_dir)
    every_metric = fmt == "csv" and not _given("metric") and not _given("source")
    if every_metric:
        written, table = package.write_tables(out)
    else:
        table = package.table_set(metric, source)
    if table.unscored:
        click.echo(
            f"note: {len(table.unscored)} run(s) without {source} {metric} scores left out "
            f"(`dmbench score --runs ...`): {', '.join(table.unscored)}",
            err=True,
        )
    if fmt == "json":
        click.echo(json.dumps(table.records(), indent=2, ensure_ascii=False))
        click.echo(f"tables ({elapsed(started)})", err=True)
        return
    if not every_metric:
        written = table.write(out)
    click.echo(f"wrote {len(written)} files to {out} ({elapsed(started)})")


def _given(name: str) -> bool:
    """Whether the user typed option ``name`` (not just got its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source is not click.core.ParameterSource.DEFAULT


@click.command()
@workers_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@package_option
def verify(workers: int | None, as_json: bool, package_dir: Path | None) -> None:
    """Re-score every published record and re-derive every run summary; exit 1 on a mismatch."""
    report = Package(package_dir).verify(workers)
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.render())
    click.echo(f"verify ({report.seconds:.1f} s)", err=as_json)
    if not report.ok:
        raise SystemExit(1)


@click.command()
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("docs/errata.md"),
    show_default=True,
    help="Where to write the errata.",
)
@sources_option
@package_option
def errata(out: Path, sources_dir: Path | None, package_dir: Path | None) -> None:
    """Write the errata: the paper's claims (Table 1, section 3.3's metric study, the best cells
    of Tables 2-3) and the scoring facts, measured from data."""
    started = time.perf_counter()
    path = Package(package_dir).errata(out, sources_dir)
    click.echo(f"wrote {path} ({elapsed(started)})")
