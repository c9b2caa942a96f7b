"""The report's plots, drawn with matplotlib as self-contained SVG (text as paths, no fonts).

Every plot is computed from the per-output scores of the canonical runs (metrik-4 as published,
metrik-4-standard as recomputed), pooled over each cell's three runs; the alt text carries the
numbers a screen reader needs. Figures are made without pyplot (no global state, no GUI
backend), and the output is deterministic (fixed hash salt, no date). matplotlib is imported
when a plot is drawn: a report rebuilt from unchanged inputs draws none.
"""

from __future__ import annotations

import io
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dmbench.metrics import PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.report.data import Cell, RecordView
from dmbench.tables.results import ELEMENTS

DATASET_NAMES = {"ds1": "DS-1", "ds2": "DS-2"}
if TYPE_CHECKING:
    from matplotlib.figure import Figure

_COLOURS = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3")


@dataclass(frozen=True, slots=True)
class Plot:
    """One figure of the report with its caption and alt text, drawn to SVG once."""
    name: str
    """File name under ``plots/``."""
    title: str
    alt: str
    caption: str
    svg: bytes


def _scores(
    views: list[RecordView], dataset: str, metric: str = PUBLISHED_METRIC
) -> tuple[list[Cell], list[str], dict[tuple[str, str], list[dict[str, float]]]]:
    """Cells, record ids and, per (cell series, record id), the scores of each scored run."""
    chosen = [v for v in views if v.record.dataset == dataset]
    cells = [cell for cell, _ in chosen[0].outputs] if chosen else []
    table: dict[tuple[str, str], list[dict[str, float]]] = {}
    for view in chosen:
        for cell, outputs in view.outputs:
            table[cell.series, view.record.record_id] = [
                {e: getattr(o.scores[metric], f"{e}_score") for e in ELEMENTS}
                for o in outputs
                if metric in o.scores
            ]
    return cells, [v.record.record_id for v in chosen], table


def _svg(figure: Figure) -> bytes:
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "dmbench"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    return buffer.getvalue()


def _figure(columns: int, width: float, height: float):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    return figure, figure.subplots(1, columns, sharey=True) if columns > 1 else figure.subplots()


def _pooled(table, cell: Cell, records: list[str], element: str) -> list[float]:
    return [s[element] for r in records for s in table.get((cell.series, r), [])]


def distribution_plot(views: list[RecordView], dataset: str, element: str) -> Plot:
    """Per cell, the spread of one element's per-record scores: where the medians of Tables 2-3
    hide a wide or skewed spread."""
    cells, records, table = _scores(views, dataset)
    values = [_pooled(table, cell, records, element) for cell in cells]
    figure, axes = _figure(1, 7.5, 3.6)
    axes.boxplot(values, widths=0.5, showfliers=False, medianprops={"color": "black"})
    spread = np.random.default_rng(0)
    for index, points in enumerate(values, start=1):
        jitter = spread.uniform(-0.18, 0.18, len(points))
        axes.scatter(index + jitter, points, s=9, alpha=0.45, color=_COLOURS[index - 1])
    axes.set_xticks(range(1, len(cells) + 1), [c.label for c in cells], rotation=15, ha="right")
    axes.set_ylim(-0.03, 1.03)
    axes.set_ylabel(f"{element} score (metrik-4)")
    axes.grid(axis="y", alpha=0.3)
    name = DATASET_NAMES[dataset]
    medians = "; ".join(
        f"{c.label} median {statistics.median(v):.3f}" for c, v in zip(cells, values) if v
    )
    return Plot(
        name=f"distribution-{dataset}-{element}.svg",
        title=f"{name}: per-record {element} scores",
        alt=f"Box plots with points of the per-record {element} scores on {name}, one box per "
        f"canonical cell, all runs pooled: {medians}.",
        caption=f"Per-record {element} scores (metrik-4, published values) of every output on "
        f"{name}, the three runs of each cell pooled; boxes show quartiles and median.",
        svg=_svg(figure),
    )


def metric_comparison_plot(views: list[RecordView], dataset: str) -> Plot:
    """Each cell's mean under metrik-4 beside metrik-4-standard: what the compat reading changes."""
    cells, records, published = _scores(views, dataset, PUBLISHED_METRIC)
    _, _, standard = _scores(views, dataset, STANDARD_METRIC)
    figure, panels = _figure(len(ELEMENTS), 10, 3.4)
    positions = np.arange(len(cells))
    described = []
    for axes, element in zip(panels, ELEMENTS):
        means = {}
        for offset, (metric, table) in zip(
            (-0.2, 0.2), ((PUBLISHED_METRIC, published), (STANDARD_METRIC, standard))
        ):
            means[metric] = [
                float(np.mean(v)) if (v := _pooled(table, c, records, element)) else 0.0
                for c in cells
            ]
            axes.bar(positions + offset, means[metric], 0.4, label=metric)
        described += [
            f"{element} {c.label} {a:.3f} vs {b:.3f}"
            for c, a, b in zip(cells, means[PUBLISHED_METRIC], means[STANDARD_METRIC])
        ]
        axes.set_title(element)
        axes.set_xticks(positions, [c.label for c in cells], rotation=30, ha="right", fontsize=8)
        axes.set_ylim(0, 1)
        axes.grid(axis="y", alpha=0.3)
    panels[0].set_ylabel("mean score")
    panels[-1].legend(fontsize=8, loc="upper right")
    name = DATASET_NAMES[dataset]
    return Plot(
        name=f"metrics-{dataset}.svg",
        title=f"{name}: metrik-4 against metrik-4-standard",
        alt=f"Paired bars of the mean scores on {name} under metrik-4 and metrik-4-standard "
        f"for each canonical cell: {'; '.join(described)}.",
        caption=f"Mean score over every output of each cell on {name} (three runs pooled): "
        "metrik-4 (published values, upstream's parser) beside metrik-4-standard (recomputed, "
        "PlantUML read as PlantUML means it).",
        svg=_svg(figure),
    )


def failure_plot(views: list[RecordView], dataset: str) -> Plot:
    """Per cell, the share of failed generations and of metric rejections, the two kinds of 0."""
    chosen = [v for v in views if v.record.dataset == dataset]
    cells = [cell for cell, _ in chosen[0].outputs] if chosen else []
    failed, rejected = [], []
    for index, cell in enumerate(cells):
        outputs = [o for v in chosen for o in v.outputs[index][1]]
        failed.append(100.0 * sum(o.failed for o in outputs) / max(len(outputs), 1))
        rejected.append(100.0 * sum(o.rejected for o in outputs) / max(len(outputs), 1))
    figure, axes = _figure(1, 7.5, 3.4)
    positions = np.arange(len(cells))
    axes.bar(positions - 0.2, failed, 0.4, label="generation failed", color="#c44e52")
    axes.bar(positions + 0.2, rejected, 0.4, label="rejected by metrik-4", color="#8172b3")
    axes.set_xticks(positions, [c.label for c in cells], rotation=15, ha="right")
    axes.set_ylabel("% of outputs")
    axes.set_ylim(0, max([*failed, *rejected, 10.0]) * 1.15)
    axes.legend()
    axes.grid(axis="y", alpha=0.3)
    name = DATASET_NAMES[dataset]
    described = "; ".join(
        f"{c.label} failed {f:.1f}%, rejected {r:.1f}%" for c, f, r in zip(cells, failed, rejected)
    )
    return Plot(
        name=f"failures-{dataset}.svg",
        title=f"{name}: failed generations and metric rejections",
        alt=f"Bars of the share of outputs on {name} whose generation failed and that metrik-4 "
        f"rejected (scored 0 with an error), per canonical cell: {described}.",
        caption=f"Share of all outputs of each cell on {name} (three runs pooled) whose "
        "generation failed, and share the metric rejected (scored 0/0/0 because metrik-4 "
        "raised, not because the output was empty). The tables give the median over runs.",
        svg=_svg(figure),
    )


def heatmap_plot(views: list[RecordView], dataset: str) -> Plot:
    """Per record and cell, the mean score: which records are hard for every candidate."""
    cells, records, table = _scores(views, dataset)
    figure, panels = _figure(len(ELEMENTS), 10, 1.2 + 0.2 * len(records))
    for axes, element in zip(panels, ELEMENTS):
        grid = np.array(
            [
                [np.mean(v) if (v := _pooled(table, c, [r], element)) else np.nan for c in cells]
                for r in records
            ]
        )
        image = axes.imshow(grid, aspect="auto", cmap="viridis", vmin=0, vmax=1)
        axes.set_title(element)
        axes.set_xticks(range(len(cells)), [c.label for c in cells], rotation=40, ha="right")
    panels[0].set_yticks(range(len(records)), [r.split("-", 1)[1] for r in records], fontsize=7)
    figure.colorbar(image, ax=panels, shrink=0.6, label="mean score over runs (metrik-4)")
    name = DATASET_NAMES[dataset]
    return Plot(
        name=f"heatmap-{dataset}.svg",
        title=f"{name}: per-record scores of each cell",
        alt=f"Heatmaps of the {len(records)} records of {name} (rows) against the canonical "
        "cells (columns), one panel per score, coloured from 0 (dark) to 1 (yellow); the "
        "numbers are on each record's page.",
        caption=f"Mean over the three runs of each record's score on {name} (metrik-4, "
        "published values), per canonical cell. The records table below holds the same "
        "numbers, each linking to its record's runs; it shades them in one blue, darker the "
        "higher, not in these colours.",
        svg=_svg(figure),
    )


def all_plots(views: list[RecordView]) -> list[Plot]:
    """The report's plots, per dataset in the order the index shows them."""
    datasets = list(dict.fromkeys(v.record.dataset for v in views))
    plots = []
    for dataset in datasets:
        plots += [distribution_plot(views, dataset, e) for e in ELEMENTS]
        plots += [
            metric_comparison_plot(views, dataset),
            failure_plot(views, dataset),
            heatmap_plot(views, dataset),
        ]
    return plots
