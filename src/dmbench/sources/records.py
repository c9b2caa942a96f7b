"""The 53 benchmark records: DS-1 (45, community-curated corpus), DS-2 (8, Chen et al. 2023).

Read from the pinned corpora by the build, stored in and read back from the package.

Texts and reference diagrams are kept byte-identical to upstream: the metric reads every
character, trailing newlines included, so nothing here strips or normalises.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench.core.csvio import read_csv, write_csv
from dmbench.core.hashing import sha256_text
from dmbench.errors import PackageError, UnknownNameError
from dmbench.sources.pins import (
    BENCHMARK_REPO,
    pinned,
    read_verified,
    repository,
)


@dataclass(frozen=True, slots=True)
class Dataset:
    """One upstream corpus and how many records it must yield, so a short import fails."""
    name: str
    upstream_name: str
    source_path: str
    expected_records: int


DATASETS: dict[str, Dataset] = {
    "ds1": Dataset("ds1", "kaiser_clean", "Data/data-source-1/kaiser_clean.json", 45),
    "ds2": Dataset("ds2", "reference_clean", "Data/data-source-2/reference_clean.json", 8),
}
UPSTREAM_DATASETS = {d.upstream_name: d.name for d in DATASETS.values()}
ALL_DATASETS = "all"
DATASET_CHOICES = (*DATASETS, ALL_DATASETS)
"""What ``--dataset`` accepts: each dataset, or ``all`` of them."""

RECORDS_PATH = "data/records.csv"
RECORD_FIELDS = (
    "record_id",
    "dataset",
    "position",
    "upstream_id",
    "upstream_dataset",
    "source_repository",
    "source_commit",
    "source_path",
    "source_sha256",
    "text",
    "text_sha256",
    "reference",
    "reference_sha256",
)


@dataclass(frozen=True, slots=True)
class BenchmarkRecord:
    """One benchmark record as ``data/records.csv`` holds it: text, reference and where
    upstream both came from, pinned by commit and sha256."""
    record_id: str
    dataset: str
    position: int
    upstream_id: str
    upstream_dataset: str
    source_repository: str
    source_commit: str
    source_path: str
    source_sha256: str
    text: str
    text_sha256: str
    reference: str
    reference_sha256: str

    @property
    def id(self) -> str:
        return self.record_id


def records_from_sources(sources_dir: Path) -> list[BenchmarkRecord]:
    """Read both corpora from a sources directory, each file checked against its pin."""
    repo = repository(BENCHMARK_REPO)
    records: list[BenchmarkRecord] = []
    for dataset in DATASETS.values():
        pin = pinned(f"{BENCHMARK_REPO}/{dataset.source_path}")
        items = json.loads(read_verified(sources_dir, pin).decode("utf-8"))
        if len(items) != dataset.expected_records:
            raise PackageError(
                f"{pin.relpath}: expected {dataset.expected_records} records, found {len(items)}"
            )
        for position, item in enumerate(items, start=1):
            records.append(
                BenchmarkRecord(
                    record_id=f"{dataset.name}-{item['id']}",
                    dataset=dataset.name,
                    position=position,
                    upstream_id=item["id"],
                    upstream_dataset=dataset.upstream_name,
                    source_repository=repo.url,
                    source_commit=repo.commit,
                    source_path=dataset.source_path,
                    source_sha256=pin.sha256,
                    text=item["nlt"],
                    text_sha256=sha256_text(item["nlt"]),
                    reference=item["puml"],
                    reference_sha256=sha256_text(item["puml"]),
                )
            )
    return records


def write_records(path: Path, records: list[BenchmarkRecord]) -> None:
    """``data/records.csv`` from the records, in the package's column order."""
    write_csv(path, RECORD_FIELDS, ({n: getattr(r, n) for n in RECORD_FIELDS} for r in records))


def read_records(path: Path) -> list[BenchmarkRecord]:
    """The records of ``records.csv``, each text and reference checked against its sha256."""
    try:
        rows = read_csv(path)
    except FileNotFoundError:
        raise PackageError(f"{path}: no records; run `dmbench build` first") from None
    if not rows:
        raise PackageError(f"{path}: holds no records", hint="rebuild the package")
    records = []
    for line, row in rows:
        where = f"{path}, line {line}, record {row.get('record_id')!r}"
        try:
            fields: dict[str, Any] = {**row, "position": int(row["position"])}
            record = BenchmarkRecord(**fields)
        except (TypeError, ValueError, KeyError) as exc:
            raise PackageError(f"{where}: {exc}") from exc
        for column in ("text", "reference"):
            if sha256_text(getattr(record, column)) != getattr(record, f"{column}_sha256"):
                raise PackageError(
                    f"{where}: {column} does not match {column}_sha256; rebuild the package"
                )
        records.append(record)
    return records


def load_records(package_dir: Path, dataset: str = ALL_DATASETS) -> list[BenchmarkRecord]:
    """The package's records of one dataset (``ds1``, ``ds2``) or ``all``, in run order."""
    require_dataset(dataset)
    return of_dataset(read_records(Path(package_dir) / RECORDS_PATH), dataset)


def require_dataset(dataset: str) -> None:
    """A dataset name a command was given must be one of ``DATASET_CHOICES``."""
    if dataset not in DATASET_CHOICES:
        raise UnknownNameError(
            f"unknown dataset {dataset!r}; choose one of {', '.join(DATASET_CHOICES)}"
        )


def of_dataset(records: list[BenchmarkRecord], dataset: str) -> list[BenchmarkRecord]:
    """The records of ``dataset`` (``all``: every one), in their order."""
    return [r for r in records if dataset in (ALL_DATASETS, r.dataset)]
