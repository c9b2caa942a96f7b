"""What several commands share (options, elapsed time), defined once so they read alike."""

from __future__ import annotations

import time
from pathlib import Path

import click

from dmbench.metrics import DEFAULT_METRIC, METRICS

package_option = click.option(
    "--package",
    "package_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Package directory (default: the current directory).",
)

sources_option = click.option(
    "--sources",
    "sources_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Directory with the upstream layout (default: $DMBENCH_SOURCES, ../shared/upstream, "
    "or the fetch cache).",
)

metric_option = click.option(
    "--metric",
    type=click.Choice(list(METRICS)),
    default=DEFAULT_METRIC,
    show_default=True,
    help="metrik-4 reads PlantUML as the published scores did (compat reading); "
    "metrik-4-standard as PlantUML means it (standard reading); metrik-1, -2, -3 and -5 "
    "are the metric study's other metrics, read as upstream read them.",
)


def elapsed(started: float) -> str:
    """Seconds since ``started`` (a ``time.perf_counter()``) as every command reports them."""
    return f"{time.perf_counter() - started:.1f} s"
