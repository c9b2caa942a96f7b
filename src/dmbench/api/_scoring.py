"""The metric verbs: score one pair or many without opening a package, as ``score-pair`` and
``score-pairs`` do; apart from ``Package`` so that they load the metrics and nothing more."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from dmbench.core.inputs import json_objects, read_text
from dmbench.metrics import (
    DEFAULT_METRIC,
    SCORE_NAMES,
    Scores,
    compute,
    explain,
    score_benchmark_many,
)
from dmbench.metrics import download_nltk_data as download_missing
from dmbench.plantuml import CR_ONLY_LINE_ENDINGS, cr_only_line_endings


def score_pair(reference: str, generated: str, metric: str = DEFAULT_METRIC) -> Scores:
    """The three scores of ``generated`` against ``reference`` (PlantUML strings)."""
    return compute(reference, generated, metric)


def explain_pair(
    reference: str | os.PathLike[str],
    generated: str | os.PathLike[str],
    metric: str = DEFAULT_METRIC,
    intermediates: bool = True,
    on_warning: Callable[[str, str], None] | None = None,
) -> dict[str, Any]:
    """The scores as JSON-ready values, with every intermediate and the class matching unless
    not ``intermediates``: what a reader checks a score by. ``on_warning(side, message)`` hears
    of a text (``reference`` or ``generated``) whose bare-CR line endings read as one line.
    Either text may be given as a path (a ``pathlib.Path``; ``-`` is stdin) to a UTF-8 file."""
    reference, generated = (
        read_text(text) if isinstance(text, os.PathLike) else text for text in (reference, generated)
    )
    if on_warning is not None:
        for side, text in (("reference", reference), ("generated", generated)):
            if cr_only_line_endings(text):
                on_warning(side, CR_ONLY_LINE_ENDINGS)
    result = explain(reference, generated, metric).to_dict()
    return result if intermediates else {key: result[key] for key in SCORE_NAMES}


def score_many(
    pairs: Iterable[tuple[Any, str, str]] | os.PathLike[str],
    metric: str = DEFAULT_METRIC,
    workers: int | None = None,
) -> Iterator[dict[str, Any]]:
    """``{"id", three scores, "error"}`` per ``(id, reference, generated)``, in input order, in
    the benchmark view: an empty generation or a metric error scores 0/0/0 with its reason.
    ``pairs`` may be a path to JSON lines of ``{"id", "reference", "generated"}``."""
    if isinstance(pairs, os.PathLike):
        fields = {"id": object, "reference": str, "generated": str}
        rows = [row for _number, row in json_objects(pairs, fields)]
        pairs = [(row["id"], row["reference"], row["generated"]) for row in rows]
    items = list(pairs)
    scores = score_benchmark_many([(ref, gen) for _id, ref, gen in items], metric, workers)
    for (item_id, _ref, _gen), score in zip(items, scores, strict=True):
        yield {"id": item_id, **score.to_dict()}


def download_nltk_data(target: str | Path | None = None) -> list[str]:
    """Fetch the NLTK data metrik-4 needs (WordNet, stopwords, tagger) into ``target`` (NLTK's
    default folder if None), where it is not already found; the ids it downloaded."""
    return download_missing(Path(target) if target is not None else None)
