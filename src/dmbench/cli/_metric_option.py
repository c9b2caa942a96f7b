"""``--metric``, shared by the scoring commands; apart, since naming the metrics loads them."""

from __future__ import annotations

import click

from dmbench.api import METRICS, score_pair
from dmbench.cli._options import default_of

metric_option = click.option(
    "--metric",
    type=click.Choice(list(METRICS)),
    default=default_of(score_pair, "metric"),
    show_default=True,
    help="metrik-4 reads PlantUML as the published scores did (compat reading); "
    "metrik-4-standard as PlantUML means it (standard reading); metrik-1, -2, -3 and -5 "
    "are the metric study's other metrics, read as upstream read them.",
)
