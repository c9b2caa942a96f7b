"""``--metric``, shared by the scoring commands; apart, since naming the metrics loads them."""

from __future__ import annotations

import click

from dmbench.metrics import DEFAULT_METRIC, METRICS

metric_option = click.option(
    "--metric",
    type=click.Choice(list(METRICS)),
    default=DEFAULT_METRIC,
    show_default=True,
    help="metrik-4 reads PlantUML as the published scores did (compat reading); "
    "metrik-4-standard as PlantUML means it (standard reading); metrik-1, -2, -3 and -5 "
    "are the metric study's other metrics, read as upstream read them.",
)
