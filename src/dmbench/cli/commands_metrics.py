"""Commands over the metrics: ``score-pair``, ``score-pairs`` (JSON lines) and ``setup``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from dmbench.api import download_nltk_data, explain_pair, score_many
from dmbench.cli._metric_option import metric_option


@click.command("score-pair")
@click.argument("reference", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("generated", type=click.Path(dir_okay=False, path_type=Path))
@metric_option
@click.option("--explain", "show_all", is_flag=True, help="Also print every intermediate.")
def score_pair(reference: Path, generated: Path, metric: str, show_all: bool) -> None:
    """Score GENERATED against REFERENCE (two PlantUML files) and print the scores as JSON."""
    path_of = {"reference": reference, "generated": generated}
    warned: set[Path] = set()

    def warn(side: str, message: str) -> None:
        if path_of[side] not in warned:  # one file given twice is warned about once
            warned.add(path_of[side])
            click.echo(f"warning: {path_of[side]}: {message} (read as one line)", err=True)

    result = explain_pair(reference, generated, metric, show_all, on_warning=warn)
    click.echo(json.dumps(result, indent=2, ensure_ascii=False))


@click.command("score-pairs")
@click.option(
    "--jsonl",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help='Read {"id", "reference", "generated"} lines; write one score line per input to stdout.',
)
@metric_option
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Processes to use (default 1: the pairs share a memo that a worker would rebuild).",
)
def score_pairs(jsonl: Path, metric: str, workers: int | None) -> None:
    """Score many pairs in the benchmark view: a failed pair is 0/0/0 with its error."""
    for line in score_many(jsonl, metric, workers):
        click.echo(json.dumps(line, ensure_ascii=False))


@click.command("setup")
@click.option(
    "--nltk-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to put the NLTK data (default: NLTK's own default directory).",
)
def setup(nltk_dir: Path | None) -> None:
    """Download the NLTK data metrik-4 needs (WordNet, stopwords, POS tagger) if missing."""
    downloaded = download_nltk_data(nltk_dir)
    if downloaded:
        click.echo(f"downloaded NLTK data: {', '.join(downloaded)}")
    else:
        click.echo("NLTK data already present")
