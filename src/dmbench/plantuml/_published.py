"""Every PlantUML string upstream published, as (id, dataset, candidate, text) rows.

The quirk-cost table and the parity tests read the mirrored upstream files through this one
place, each checked against its pinned sha256 like every other upstream input; a later version
can feed the same rows from the built data package instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from dmbench.candidates.base import CANDIDATES as _CANDIDATES
from dmbench.sources.pins import BENCHMARK_REPO as BENCHMARK
from dmbench.sources.pins import METRICS_REPO as METRICS
from dmbench.sources.pins import pinned, pinned_files, read_verified
from dmbench.sources.records import DATASETS as _DATASETS
from dmbench.sources.records import UPSTREAM_DATASETS as DATASETS

CORPORA = {d.name: f"{BENCHMARK}/{d.source_path}" for d in _DATASETS.values()}
CANDIDATES = {info.upstream_name: name for name, info in _CANDIDATES.items()}
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
        for record in _load(sources, relative):
            yield DiagramRow(record["id"], dataset, REFERENCE, record["puml"])


def _run_files(sources: Path) -> Iterator[tuple[str, dict]]:
    """(file name, artifact) of every published run, in file-name order."""
    pins = sorted((p for p in pinned_files() if p.role == "published-run"), key=lambda p: p.path)
    for pin in pins:
        yield Path(pin.path).name, json.loads(read_verified(sources, pin))


def output_rows(sources: Path) -> Iterator[DiagramRow]:
    """Every generated diagram of the published runs; the id names file and record index."""
    for name, run in _run_files(sources):
        dataset = DATASETS[run["dataset"]]
        candidate = CANDIDATES[run["candidate"]]
        for index, record in enumerate(run["records"]):
            row_id = f"{name}#{index}:{record['id']}"
            yield DiagramRow(row_id, dataset, candidate, record["generated"])


def study_texts(sources: Path) -> Iterator[str]:
    """References and generations of the metric study's 39-pair set (``dmm39`` in the golden)."""
    for model in _load(sources, STUDY_39)["models"].values():
        yield model["reference_plantuml"]
        yield from (t for t in model["generated_plantuml"].values() if isinstance(t, str))


def run_references(sources: Path) -> Iterator[str]:
    """The reference strings as each run record stores them (the golden hashes them too)."""
    for _name, run in _run_files(sources):
        yield from (record["reference"] for record in run["records"])


def _load(sources: Path, relpath: str):
    return json.loads(read_verified(sources, pinned(relpath)))
