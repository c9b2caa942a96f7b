"""Every PlantUML string upstream published, as (id, dataset, candidate, text) rows.

The quirk-cost table and the parity tests read the mirrored upstream files through this one
place; a later version can feed the same rows from the built data package instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from dmbench.candidates.base import CANDIDATES as _CANDIDATES
from dmbench.sources.pins import BENCHMARK_REPO as BENCHMARK
from dmbench.sources.pins import METRICS_REPO as METRICS
from dmbench.sources.records import DATASETS as _DATASETS
from dmbench.sources.records import UPSTREAM_DATASETS as DATASETS

CORPORA = {d.name: f"{BENCHMARK}/{d.source_path}" for d in _DATASETS.values()}
CANDIDATES = {info.upstream_name: name for name, info in _CANDIDATES.items()}
RUNS_DIR = f"{BENCHMARK}/Workflow/Results/runs"
STUDY_39 = f"{METRICS}/data/combined-data.json"
REFERENCE = "reference"


class DiagramRow(NamedTuple):
    id: str
    dataset: str
    candidate: str
    text: str


def reference_rows(sources: Path) -> Iterator[DiagramRow]:
    """The 53 expert reference diagrams, candidate ``reference``."""
    for dataset, relative in CORPORA.items():
        for record in _load(sources / relative):
            yield DiagramRow(record["id"], dataset, REFERENCE, record["puml"])


def output_rows(sources: Path) -> Iterator[DiagramRow]:
    """Every generated diagram of the published runs; the id names file and record index."""
    for path in sorted((sources / RUNS_DIR).glob("*.json")):
        run = _load(path)
        dataset = DATASETS[run["dataset"]]
        candidate = CANDIDATES[run["candidate"]]
        for index, record in enumerate(run["records"]):
            row_id = f"{path.name}#{index}:{record['id']}"
            yield DiagramRow(row_id, dataset, candidate, record["generated"])


def study_texts(sources: Path) -> Iterator[str]:
    """References and generations of the metric study's 39-pair set (``dmm39`` in the golden)."""
    for model in _load(sources / STUDY_39)["models"].values():
        yield model["reference_plantuml"]
        yield from (t for t in model["generated_plantuml"].values() if isinstance(t, str))


def run_references(sources: Path) -> Iterator[str]:
    """The reference strings as each run record stores them (the golden hashes them too)."""
    for path in sorted((sources / RUNS_DIR).glob("*.json")):
        yield from (record["reference"] for record in _load(path)["records"])


def _load(path: Path):
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)
