"""The upstream artifacts: the published run files, and every PlantUML string in them.

The build, the quirk-cost table and the parity tests read the mirrored upstream files through
this one place, each checked against its pinned sha256 like every other upstream input. The
upstream names of the candidates are kept; each candidate's spec says its upstream name
(``dmbench.candidates.upstream_names``), and a caller above this layer maps them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from dmbench.core.hashing import sha256_text
from dmbench.sources.pins import BENCHMARK_REPO as BENCHMARK
from dmbench.sources.pins import METRICS_REPO as METRICS
from dmbench.sources.pins import PinnedFile, pinned, pinned_files, read_verified
from dmbench.sources.records import DATASETS as _DATASETS
from dmbench.sources.records import UPSTREAM_DATASETS as DATASETS

CORPORA = {d.name: f"{BENCHMARK}/{d.source_path}" for d in _DATASETS.values()}
STUDY_39 = f"{METRICS}/data/combined-data.json"
REFERENCE = "reference"


class DiagramRow(NamedTuple):
    """One diagram of the published data, reference or output, with its dataset and candidate: the
    unit the quirk tables and the oracle read."""
    id: str
    dataset: str
    candidate: str
    text: str


def reference_rows(sources: Path) -> Iterator[DiagramRow]:
    """The 53 expert reference diagrams, candidate ``reference``."""
    for dataset, relative in CORPORA.items():
        for record in _load(sources, relative):
            yield DiagramRow(record["id"], dataset, REFERENCE, record["puml"])


def published_run_pins() -> list[PinnedFile]:
    """The pinned upstream files that hold published runs."""
    return [p for p in pinned_files() if p.role == "published-run"]


def published_runs(sources: Path) -> list[tuple[PinnedFile, dict[str, Any]]]:
    """(pin, parsed artifact) of every published run, each file checked before it is parsed."""
    return [(pin, json.loads(read_verified(sources, pin))) for pin in published_run_pins()]


def _run_files(sources: Path) -> Iterator[tuple[str, dict]]:
    """(file name, artifact) of every published run, in file-name order."""
    for pin, artifact in sorted(published_runs(sources), key=lambda item: item[0].path):
        yield Path(pin.path).name, artifact


def output_rows(sources: Path, names: Mapping[str, str] | None = None) -> Iterator[DiagramRow]:
    """Every generated diagram of the published runs; the id names file and record index. The
    candidate is named as ``names`` (upstream name -> dmbench's) maps it, else as upstream did."""
    for name, run in _run_files(sources):
        dataset = DATASETS[run["dataset"]]
        candidate = (names or {}).get(run["candidate"], run["candidate"])
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


def texts_by_sha256(sources: Path) -> dict[str, str]:
    """Every published PlantUML string by the sha256 of its UTF-8, as the golden files key pairs."""
    texts = [
        *(row.text for row in reference_rows(sources)),
        *(row.text for row in output_rows(sources)),
        *run_references(sources),
        *study_texts(sources),
    ]
    # some run records store no generation at all
    return {sha256_text(text): text for text in texts if isinstance(text, str)}


def _load(sources: Path, relpath: str):
    return json.loads(read_verified(sources, pinned(relpath)))
