"""Tables 1-3 as files under ``results/`` (CSV for machines, Markdown for readers) and as JSON.

CSV and JSON carry the rounded values the Markdown prints (three decimals for scores, as the
paper prints them), so every format says the same thing and a regression test can compare
them exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dmbench import atomic
from dmbench.csvio import write_csv
from dmbench.metrics import DEFAULT_METRIC
from dmbench.plantuml import READINGS
from dmbench.plantuml.model import RELATIONSHIP_KINDS
from dmbench.sources.records import DATASETS
from dmbench.tables.corpus import AVERAGED, CorpusRow, corpus_table
from dmbench.tables.results import (
    ELEMENTS,
    PAPER_TABLES,
    RESULT_FIELDS,
    ResultRow,
    aggregate,
    run_summaries,
)

TABLE_TITLES = {
    "table1": "Table 1: the reference diagrams",
    "table2": f"Table 2: scores on DS-1 ({DATASETS['ds1'].expected_records} records)",
    "table3": f"Table 3: scores on DS-2 ({DATASETS['ds2'].expected_records} records)",
}


@dataclass(frozen=True, slots=True)
class TableSet:
    """Everything ``dmbench tables`` writes, and which scores it was made from."""

    corpus: tuple[CorpusRow, ...]
    results: tuple[ResultRow, ...]
    metric: str
    source: str
    unscored: tuple[str, ...]
    """Runs left out of Tables 2-3 because they have no scores of the kind asked for."""

    def records(self) -> list[dict]:
        """The JSON list: Table 1 rows, then one object per (dataset, candidate, LLM)."""
        return [r.to_record() for r in self.corpus] + [r.to_record() for r in self.results]


def build_tables(
    package_dir: Path,
    metric: str = DEFAULT_METRIC,
    source: str = "published",
    readings: tuple[str, ...] = READINGS,
) -> TableSet:
    summaries, unscored = run_summaries(package_dir, metric, source)
    return TableSet(
        corpus=tuple(corpus_table(package_dir, readings)),
        results=tuple(aggregate(summaries, metric)),
        metric=metric,
        source=source,
        unscored=tuple(unscored),
    )


def markdown_table(header: list[str], rows: list[list[str]], align: str) -> list[str]:
    """A Markdown table; ``align`` has one letter per column, ``l`` (text) or ``r`` (numbers)."""
    marks = {"l": ":---", "r": "---:"}
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _fmt(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table1_markdown(rows: list[CorpusRow]) -> str:
    lines = [f"# {TABLE_TITLES['table1']}", ""]
    lines += [
        "Counts of the expert reference diagrams under each PlantUML reading: `compat` is what",
        "metrik-4's parser reads (the reading behind every published score), `standard` what",
        "PlantUML means. Classes are declared classes; implicit ones (only named in a",
        "relationship) are listed apart. An endpoint carries a multiplicity when its cardinality",
        "is non-empty.",
        "",
    ]
    quantities = [
        ("records", "Records"),
        ("classes", "Classes"),
        ("abstract_classes", "  of which abstract"),
        ("implicit_classes", "Implicit classes (not counted above)"),
        ("attributes", "Attributes"),
        ("enums", "Enumerations"),
        ("enum_literals", "Enumeration literals"),
        ("relationships", "Relationships"),
        *((f"rel_{kind}", f"  {kind.replace('_', ' ')}") for kind in RELATIONSHIP_KINDS),
        ("endpoints", "Relationship endpoints"),
        ("endpoints_with_multiplicity", "  with a multiplicity"),
    ]
    for reading in dict.fromkeys(r.reading for r in rows):
        subset = [r for r in rows if r.reading == reading]
        body = [[label] + [str(r.counts[key]) for r in subset] for key, label in quantities]
        body.append(
            ["Endpoints with a multiplicity (%)"] + [_fmt(r.multiplicity_pct, 1) for r in subset]
        )
        body += [
            [f"{field.replace('_', ' ').capitalize()} per record"]
            + [_fmt(r.per_record(field), 2) for r in subset]
            for field in AVERAGED
        ]
        lines += [f"## Reading `{reading}`", ""]
        lines += markdown_table(
            [""] + [r.dataset.upper() for r in subset], body, "l" + "r" * len(subset)
        )
        lines.append("")
    return "\n".join(lines)


def _cell(row: ResultRow, element: str) -> str:
    record = row.to_record()[element]
    return f"{_fmt(record['median'], 3)} ± {_fmt(record['std'], 3)}"


def results_markdown(table: TableSet, dataset: str) -> str:
    name = PAPER_TABLES[dataset]
    rows = [r for r in table.results if r.dataset == dataset]
    header = [
        "Candidate",
        "LLM",
        "Runs",
        "Class",
        "Attribute",
        "Association",
        "Failed %",
        "Rejected %",
        "Scores",
    ]

    def body(selected: list[ResultRow]) -> list[list[str]]:
        return [
            [
                r.candidate,
                r.model or "–",
                str(r.runs),
                *(_cell(r, e) for e in ELEMENTS),
                _fmt(r.to_record()["fail_pct"], 1),
                _fmt(r.to_record()["rejected_pct"], 1),
                r.scores_from,
            ]
            for r in selected
        ]

    lines = [f"# {TABLE_TITLES[name]}", ""]
    lines += [
        f"Metric `{table.metric}`; score rows: `{table.source}` (published values for imported",
        "runs, dmbench's recomputed values where a run has no published ones; the Scores",
        "column names what each row used). Each cell is the median over the runs of the per-run",
        "mean score ± the sample standard deviation (ddof=1) of those means. Failed % is the",
        "median over runs of the share of records whose generation failed; Rejected % the median",
        "share scored 0 because the metric rejected the diagram (not because it was empty).",
        "",
        "## Canonical runs (the paper's table)",
        "",
    ]
    lines += markdown_table(header, body([r for r in rows if r.canonical]), "llrrrrrrl")
    others = [r for r in rows if not r.canonical]
    if others:
        lines += ["", "## Other runs (not in the paper's table)", ""]
        header_other = header[:2] + ["Origin", "Series"] + header[2:]
        lines += markdown_table(
            header_other,
            [
                row[:2] + [r.origin, f"`{r.series}`"] + row[2:]
                for r, row in zip(others, body(others), strict=True)
            ],
            "llllrrrrrrl",
        )
    lines.append("")
    return "\n".join(lines)


def write_tables(table: TableSet, out_dir: Path) -> list[Path]:
    """Write ``table1``-``table3`` as ``.csv`` and ``.md`` into ``out_dir``; return the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    corpus = [r.to_record() for r in table.corpus]
    write_csv(out_dir / "table1.csv", corpus[0].keys(), corpus)
    atomic.write_text(out_dir / "table1.md", table1_markdown(table.corpus))
    written += [out_dir / "table1.csv", out_dir / "table1.md"]
    for dataset, name in PAPER_TABLES.items():
        flat = [r.to_flat() for r in table.results if r.dataset == dataset]
        write_csv(out_dir / f"{name}.csv", RESULT_FIELDS, flat)
        atomic.write_text(out_dir / f"{name}.md", results_markdown(table, dataset))
        written += [out_dir / f"{name}.csv", out_dir / f"{name}.md"]
    return written
