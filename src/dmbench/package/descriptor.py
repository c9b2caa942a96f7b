"""``datapackage.json``: Data Package v2, every file listed with its byte size and sha256.

v2 because it is the current standard, declares its version in ``$schema`` instead of leaving
readers to guess, and frictionless 5 validates it. Hashes are written ``sha256:<hex>`` (a bare
hex string would be read as MD5). The non-tabular files (prompt texts, the run store, schemas)
are listed in the ``files`` resource with their hashes, which ``dmbench validate`` checks,
because frictionless never reads the content of non-tabular resources.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.csvio import write_csv
from dmbench.core.escape import markdown_text
from dmbench.core.hashing import file_sha256
from dmbench.core.paths import PACKAGE_NLTK_DIR
from dmbench.package.facts import describe, package_facts
from dmbench.package.metadata import Citation, package_header
from dmbench.package.tables import (
    JUDGE_CONTROLS_PATH,
    JUDGE_STUDY_PATH,
    JUDGEMENTS_PATH,
    OUTPUTS_PATH,
    RUNS_PATH,
    SCORES_PATH,
)
from dmbench.runs.store import RUNS_DIR
from dmbench.sources.prompts import PROMPTS, PROMPTS_DIR
from dmbench.sources.records import DATASETS

DESCRIPTOR = "datapackage.json"
SCHEMAS_DIR = "schemas"
LICENSES_DIR = "licenses"
RESULTS_DIR = "results"
REPORT_DIR = "report"
PROMPTS_PATH = "data/prompts.csv"
FILES_PATH = "data/files.csv"
FILE_FIELDS = ("path", "kind", "bytes", "sha256")
_DS1, _DS2 = (DATASETS[name].expected_records for name in ("ds1", "ds2"))


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    """One table of the package as ``datapackage.json`` declares it, with its schema file."""
    name: str
    path: str
    title: str
    description: str

    @property
    def schema(self) -> str:
        return f"{SCHEMAS_DIR}/{self.name}.schema.json"


RESOURCES = (
    ResourceSpec(
        "records",
        "data/records.csv",
        "Benchmark records",
        f"The {_DS1 + _DS2} records ({_DS1} DS-1, {_DS2} DS-2): text and reference PlantUML, "
        "byte-identical to upstream.",
    ),
    ResourceSpec(
        "prompts",
        PROMPTS_PATH,
        "Prompts",
        "The upstream prompt files of the LLM candidates, stored verbatim under prompts/.",
    ),
    ResourceSpec("runs", RUNS_PATH, "Runs", "Every generation run with its effective settings."),
    ResourceSpec(
        "outputs", OUTPUTS_PATH, "Outputs", "Generated PlantUML per run and record, byte-exact."
    ),
    ResourceSpec(
        "scores",
        SCORES_PATH,
        "Scores",
        "Published and recomputed scores per output, one row per metric and origin.",
    ),
    ResourceSpec(
        "judgements",
        JUDGEMENTS_PATH,
        "Judgements",
        "Judge-model scores of outputs against their reference (dmbench judge), per judgement.",
    ),
    ResourceSpec(
        "judge_controls",
        JUDGE_CONTROLS_PATH,
        "Judge controls",
        "Judge-model scores of each reference against itself (dmbench judge --control).",
    ),
    ResourceSpec(
        "judge_study",
        JUDGE_STUDY_PATH,
        "Judge on the metric study",
        "Judge-model scores of the metric study's 39 human-rated pairs (dmbench judge --study), "
        "per pair, beside the experts' F1s.",
    ),
    ResourceSpec(
        "files",
        FILES_PATH,
        "Files",
        "Every non-tabular file of the package (prompt texts, run store, schemas) with its hash.",
    ),
)


def write_prompts_table(package_dir: Path) -> None:
    """``data/prompts.csv``: each prompt file with its candidate, role and sha256, so a run's
    prompt hashes can be traced to the files."""
    rows = []
    for prompt in PROMPTS.values():
        path = Path(package_dir) / PROMPTS_DIR / prompt.name
        rows.append(
            {
                "name": prompt.name.removesuffix(".txt"),
                "path": f"{PROMPTS_DIR}/{prompt.name}",
                "candidate": prompt.candidate,
                "role": prompt.role,
                "bytes": path.stat().st_size,
                "sha256": file_sha256(path),
                "upstream_path": prompt.upstream_path,
            }
        )
    fields = ("name", "path", "candidate", "role", "bytes", "sha256", "upstream_path")
    write_csv(Path(package_dir) / PROMPTS_PATH, fields, rows)


FILE_FOLDERS = (
    (PROMPTS_DIR, "prompt"),
    (RUNS_DIR, "run"),
    (SCHEMAS_DIR, "schema"),
    (LICENSES_DIR, "license"),
)
#: Folders only a deposit carries: the published tables (their CSVs are tabular resources, the
#: Markdown beside them listed files), the NLTK data metrik-4 reads, the HTML report.
DEPOSIT_FOLDERS = ((RESULTS_DIR, "result"), (PACKAGE_NLTK_DIR, "nltk"), (REPORT_DIR, "report"))
DEPOSIT_FOLDER_NAMES = tuple(folder for folder, _ in DEPOSIT_FOLDERS)


def listed_files(
    package_dir: Path,
    folders: Iterable[str] = (),
    tabular: Iterable[str] = (),
    root_files: Iterable[str] = (),
) -> list[tuple[str, str]]:
    """The non-tabular files of the package and their kind; ``folders`` names the deposit
    folders it holds, ``tabular`` the paths that are tabular resources (hashed in the
    descriptor instead), ``root_files`` the deposit's files beside the descriptor."""
    chosen = set(folders)
    skip = set(tabular)
    found = [(name, "about") for name in sorted(root_files)]
    for folder, kind in (*FILE_FOLDERS, *((f, k) for f, k in DEPOSIT_FOLDERS if f in chosen)):
        root = package_dir / folder
        if root.is_dir():
            found += [
                (rel, kind)
                for p in sorted(root.rglob("*"))
                if p.is_file()
                and not p.name.startswith(".")
                and (rel := p.relative_to(package_dir).as_posix()) not in skip
            ]
    return found


def write_files_table(
    package_dir: Path,
    folders: Iterable[str] = (),
    tabular: Iterable[str] = (),
    root_files: Iterable[str] = (),
) -> None:
    """``data/files.csv``: every file of the package with its kind and sha256, so a copy can be
    checked file by file."""
    rows = [
        {
            "path": rel,
            "kind": kind,
            "bytes": (package_dir / rel).stat().st_size,
            "sha256": file_sha256(package_dir / rel),
        }
        for rel, kind in listed_files(package_dir, folders, tabular, root_files)
    ]
    write_csv(package_dir / FILES_PATH, FILE_FIELDS, rows)


def resource_descriptor(package_dir: Path, spec: ResourceSpec) -> dict[str, Any]:
    """A table's entry in ``datapackage.json``: its schema, format and the file's hash and size."""
    path = Path(package_dir) / spec.path
    return {
        "name": spec.name,
        "type": "table",
        "path": spec.path,
        "title": spec.title,
        "description": spec.description,
        "format": "csv",
        "mediatype": "text/csv",
        "encoding": "utf-8",
        "bytes": path.stat().st_size,
        "hash": f"sha256:{file_sha256(path)}",
        "schema": spec.schema,
    }


def write_descriptor(
    package_dir: Path,
    doi: str | None = None,
    tables: Sequence[ResourceSpec] = (),
    folders: Iterable[str] = (),
    licenses: Sequence[dict[str, str]] = (),
    citation: Citation | None = None,
    build: dict[str, str] | None = None,
    root_files: Iterable[str] = (),
    sources: Sequence[dict[str, str]] = (),
    created: str | None = None,
) -> dict[str, Any]:
    """Rewrite the files table and ``datapackage.json`` from what is on disk now; the
    description is counted from the package's tables.

    A deposit adds its ``tables`` (the published results, each with its schema under
    ``schemas/``), the deposit ``folders`` it carries, the ``licenses`` of what they hold, the
    reserved ``doi``, the ``sources`` of its extra data, the ``citation`` it credits, the
    ``build`` (dmbench version and commit)
    and the ``root_files`` beside the descriptor (README, citation, errata, Croissant), and the
    date it was ``created`` (its build date); a package in a checkout has none of them.
    """
    package_dir = Path(package_dir)
    write_files_table(package_dir, folders, [spec.path for spec in tables], root_files)
    description = describe(package_facts(package_dir), markdown_text)
    descriptor = package_header(
        doi, licenses, description, citation, sources, **({"created": created} if created else {})
    )
    if build:
        descriptor["dmbench_build"] = build
    descriptor["resources"] = [
        resource_descriptor(package_dir, spec) for spec in (*RESOURCES, *tables)
    ]
    atomic.write_json(package_dir / DESCRIPTOR, descriptor)
    return descriptor
