"""Commands over the metrics: ``score-pair``, ``score-pairs`` (JSON lines) and ``setup``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from dmbench import core
from dmbench.cli._metric_option import metric_option
from dmbench.metrics import (
    SCORE_NAMES,
    download_nltk_data,
    explain,
    score_benchmark_many,
)
from dmbench.plantuml import CR_ONLY_LINE_ENDINGS, cr_only_line_endings


@click.command("score-pair")
@click.argument("reference", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("generated", type=click.Path(dir_okay=False, path_type=Path))
@metric_option
@click.option("--explain", "show_all", is_flag=True, help="Also print every intermediate.")
def score_pair(reference: Path, generated: Path, metric: str, show_all: bool) -> None:
    """Score GENERATED against REFERENCE (two PlantUML files) and print the scores as JSON."""
    texts = {path: core.read_text(path) for path in (reference, generated)}
    for path, text in texts.items():
        if cr_only_line_endings(text):
            click.echo(f"warning: {path}: {CR_ONLY_LINE_ENDINGS} (read as one line)", err=True)
    explanation = explain(texts[reference], texts[generated], metric)
    result = explanation.to_dict()
    if not show_all:
        result = {key: result[key] for key in SCORE_NAMES}
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
    fields = {"id": object, "reference": str, "generated": str}
    records = [record for _number, record in core.json_objects(jsonl, fields)]
    ids = [record["id"] for record in records]
    pairs = [(record["reference"], record["generated"]) for record in records]
    for item_id, score in zip(ids, score_benchmark_many(pairs, metric, workers), strict=True):
        click.echo(json.dumps({"id": item_id, **score.to_dict()}, ensure_ascii=False))


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
