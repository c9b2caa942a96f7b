"""The metric study's inputs (domain-model-metrics v1.0.0): the 39 human-rated pairs and the
published per-pair results and consistency statistics of its five metrics.

Everything is read through the pinned hash check. The pairs come from ``combined-data.json``
(8 reference models times 5 prompt settings, less the one generation the study lacks); the
human rating of each pair is the F1 the study's experts gave per element.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from dmbench.sources.pins import METRICS_REPO, pinned, pinned_files, read_verified

STUDY_DATA = f"{METRICS_REPO}/data/combined-data.json"
STUDY_COMPARISON = f"{METRICS_REPO}/Quantitative-Analysis/Results/metrics_comparison.json"
STUDY_RESULT_ROLE = "metric-study-result"
UPSTREAM_ELEMENTS = MappingProxyType(
    {"class": "Class", "attribute": "Attribute", "association": "Association"}
)
"""dmbench's element names and the study's spelling of them."""
_RESULT_FILE = re.compile(r"results_metrik(\d)\.json$")


@dataclass(frozen=True, slots=True)
class StudyPair:
    """One human-rated comparison: a generated diagram, its reference, the experts' F1s."""

    pair_id: str
    model: str
    setting: str
    reference: str
    generated: str
    human_f1: Mapping[str, float]


def study_pairs(sources: Path) -> tuple[StudyPair, ...]:
    """The study's pairs in its own order (models, then settings); ids ``<model>_<setting>``."""
    data = _load(sources, STUDY_DATA)
    pairs = []
    for model, entry in data["models"].items():
        for setting, generated in entry["generated_plantuml"].items():
            if generated is None:
                continue
            ratings = entry["metrics"][setting]
            pairs.append(
                StudyPair(
                    pair_id=f"{model}_{setting}",
                    model=model,
                    setting=setting,
                    reference=entry["reference_plantuml"],
                    generated=generated,
                    human_f1=MappingProxyType(
                        {e: float(ratings[u]["f1"]) for e, u in UPSTREAM_ELEMENTS.items()}
                    ),
                )
            )
    return tuple(pairs)


def published_study_scores(sources: Path) -> dict[str, dict[str, dict[str, float]]]:
    """metric name (``metrik-N``) -> pair id -> element -> the score the study published."""
    published = {}
    for pin in sorted(pinned_files(), key=lambda p: p.path):
        match = _RESULT_FILE.search(pin.path)
        if pin.role != STUDY_RESULT_ROLE or not match:
            continue
        comparisons = json.loads(read_verified(sources, pin))["comparisons"]
        published[f"metrik-{match.group(1)}"] = {
            pair_id: {e: float(c["metric_results"][f"{e}_score"]) for e in UPSTREAM_ELEMENTS}
            for pair_id, c in comparisons.items()
        }
    return published


def published_comparison(sources: Path) -> dict[str, dict[str, float]]:
    """The study's own consistency statistics, keyed ``metrik-N`` (upstream: ``Metrik-N``)."""
    data = _load(sources, STUDY_COMPARISON)
    return {name.lower(): values for name, values in data.items()}


def _load(sources: Path, relpath: str):
    """Parsed JSON; the hash check guarantees the pinned, well-formed bytes."""
    return json.loads(read_verified(sources, pinned(relpath)))
