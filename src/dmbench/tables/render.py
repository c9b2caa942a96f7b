"""Tables 1-3 as files under ``results/`` (CSV for machines, Markdown for readers) and as JSON.

CSV and JSON carry the rounded values the Markdown prints (three decimals for scores, as the
paper prints them), so every format says the same thing and a regression test can compare
them exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dmbench.core import atomic
from dmbench.core.csvio import write_csv
from dmbench.core.escape import markdown_text, one_line
from dmbench.metrics import DEFAULT_METRIC
from dmbench.plantuml import READINGS
from dmbench.plantuml.model import RELATIONSHIP_KINDS
from dmbench.runs.opened import PackageSource
from dmbench.sources.records import DATASETS
from dmbench.tables.comparisons import (
    ALPHA,
    COMPARISON_FIELDS,
    ColumnVerdict,
    Comparison,
    column_verdicts,
    compare_cells,
)
from dmbench.tables.corpus import AVERAGED, CorpusRow, corpus_table
from dmbench.tables.results import (
    ELEMENTS,
    PAPER_TABLES,
    RESULT_FIELDS,
    ResultRow,
    aggregate,
    run_summaries,
)
from dmbench.tables.statistics import CONFIDENCE, RESAMPLES, SEED, library_versions

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
    comparisons: tuple[Comparison, ...]

    def write(self, out_dir: Path) -> list[Path]:
        """table1-3 and the comparisons as .csv and .md in ``out_dir`` (``write_tables``)."""
        return write_tables(self, out_dir)

    def records(self) -> list[dict]:
        """The JSON list: Table 1 rows, one object per (dataset, candidate, LLM), the paired
        comparisons, and how the intervals and p-values were made."""
        return (
            [r.to_record() for r in self.corpus]
            + [r.to_record() for r in self.results]
            + [c.to_record() for c in self.comparisons]
            + [statistics_record()]
        )


def statistics_record() -> dict:
    """The settings and library versions behind every interval and p-value of the tables."""
    return {
        "table": "statistics",
        "seed": SEED,
        "resamples": RESAMPLES,
        "confidence": CONFIDENCE,
        "alpha": ALPHA,
        "versions": library_versions(),
    }


def build_tables(
    package: PackageSource,
    metric: str = DEFAULT_METRIC,
    source: str = "published",
    readings: tuple[str, ...] = READINGS,
) -> TableSet:
    """Tables 1-3 and their comparisons from the package's ``source`` scores of ``metric``."""
    summaries, unscored = run_summaries(package, metric, source)
    results = tuple(aggregate(summaries, metric))
    return TableSet(
        corpus=tuple(corpus_table(package, readings)),
        results=results,
        metric=metric,
        source=source,
        unscored=tuple(unscored),
        comparisons=tuple(compare_cells(results)),
    )


def markdown_table(header: list[str], rows: list[list[str]], align: str) -> list[str]:
    """A Markdown table; ``align`` has one letter per column, ``l`` (text) or ``r`` (numbers)."""
    marks = {"l": ":---", "r": "---:"}
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    return lines + ["| " + " | ".join(_cell_text(cell) for cell in row) + " |" for row in rows]


def _cell_text(cell: str) -> str:
    """A cell kept to its cell: a line break or an unescaped ``|`` that text brought along
    (names are escaped where they enter, this is the table's own guard) cannot end it."""
    return re.sub(r"(?<!\\)\|", r"\|", one_line(cell))


def _fmt(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table1_markdown(rows: Sequence[CorpusRow]) -> str:
    """Table 1 (the corpora under both readings) as ``table1.md``, with what its columns count."""
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


def _cell(row: ResultRow, element: str, bold: bool = False) -> str:
    record = row.to_record()[element]
    median = _fmt(record["median"], 3)
    text = f"{f'**{median}**' if bold else median} ± {_fmt(record['std'], 3)}"
    if record["ci_low"] is None:
        return text
    return f"{text} [{_fmt(record['ci_low'], 3)}, {_fmt(record['ci_high'], 3)}]"


def cell_label(row: ResultRow) -> str:
    """``candidate/model`` (and the prompt variant) as Markdown text (a model name may hold
    any character)."""
    model = row.model_label
    return markdown_text(f"{row.candidate}/{model}" if model else row.candidate)


def _p(value: float) -> str:
    return f"{value:.3f}" if value >= 0.001 else f"{value:.1e}"


def verdict_lines(verdicts: list[ColumnVerdict]) -> list[str]:
    """One line per column: the best cell, whether it is clearly best, what it is tied with."""
    lines = []
    for v in verdicts:
        median = v.best.median[v.element]
        line = f"- {v.element.capitalize()}: best {cell_label(v.best)} ({median:.3f})"
        second = v.against_second
        if v.clear and v.second is not None and second is not None:
            line += f", ahead of {cell_label(v.second)} (p_holm {_p(second.p_holm)})"
        elif second is not None and v.second is not None and not v.tied:
            line += (
                f", not ahead of {cell_label(v.second)}: the mean per-record difference points "
                f"the other way (p_holm {_p(second.p_holm)})"
            )
        if v.tied:
            line += ("; " if v.clear else ", ") + "statistically tied with " + ", ".join(
                f"{cell_label(r)} (p_holm {_p(c.p_holm)})" for r, c in v.tied
            )
        lines.append(line + ".")
    return lines


def results_markdown(table: TableSet, dataset: str) -> str:
    """Table 2 (ds1) or 3 (ds2) as Markdown: medians with spread, failures and rejections."""
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

    verdicts = column_verdicts(table.results, table.comparisons, dataset)
    clear = {(v.element, v.best.series) for v in verdicts if v.clear}

    def body(selected: list[ResultRow]) -> list[list[str]]:
        return [
            [
                markdown_text(r.candidate),
                markdown_text(r.model_label) if r.model_label else "–",
                str(r.runs),
                *(_cell(r, e, (e, r.series) in clear and r.canonical) for e in ELEMENTS),
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
        f"In brackets, a {CONFIDENCE:.0%} bootstrap interval of the cell over records (records",
        f"resampled with their runs kept together; {RESAMPLES:,} resamples, seed {SEED}).",
        "",
        "## Canonical runs (the paper's table)",
        "",
    ]
    lines += markdown_table(header, body([r for r in rows if r.canonical]), "llrrrrrrl")
    lines += [
        "",
        "A column's best median is bold only where it beats the second best with Holm-adjusted",
        f"p < {ALPHA} (paired sign-flip permutation test of the per-record mean difference over",
        "the records both ran; Holm over the comparisons of the column; `comparisons.md` has",
        "them all).",
        "",
        *verdict_lines(verdicts),
        "",
        "Intervals and p-values: "
        + ", ".join(f"{k} {v}" for k, v in library_versions().items())
        + ".",
    ]
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
    write_csv(
        out_dir / "comparisons.csv",
        COMPARISON_FIELDS,
        [c.to_record() for c in table.comparisons],
    )
    atomic.write_text(out_dir / "comparisons.md", comparisons_markdown(table))
    statistics_json = json.dumps(statistics_record(), indent=2) + "\n"
    atomic.write_text(out_dir / "statistics.json", statistics_json)
    written += [out_dir / f"comparisons.{ext}" for ext in ("csv", "md")]
    written.append(out_dir / "statistics.json")
    return written


def comparisons_markdown(table: TableSet) -> str:
    """Every paired comparison of the canonical cells, per dataset and element."""
    by_series = {(r.dataset, r.series): r for r in table.results}
    lines = [
        "# Paired comparisons of the canonical cells of Tables 2-3",
        "",
        f"Metric `{table.metric}`, score rows `{table.source}`. diff = mean over the records both",
        "cells ran of (the record's mean over a's runs − the same for b); a",
        f"{CONFIDENCE:.0%} paired bootstrap interval of diff ({RESAMPLES:,} resamples), the",
        f"two-sided sign-flip permutation p-value ({RESAMPLES:,} random flips, or all 2^n when",
        f"fewer) and Holm's adjustment over the comparisons of one dataset and element; seed {SEED};",
        ", ".join(f"{k} {v}" for k, v in library_versions().items()) + ".",
        "",
    ]
    header = ["Element", "a", "b", "n", "diff [95% CI]", "p", "p_holm"]
    for dataset, name in PAPER_TABLES.items():
        chosen = [c for c in table.comparisons if c.dataset == dataset]
        if not chosen:
            continue
        rows = [
            [
                c.element,
                cell_label(by_series[(dataset, c.a)]),
                cell_label(by_series[(dataset, c.b)]),
                str(c.n),
                f"{c.diff:+.3f} [{c.ci_low:+.3f}, {c.ci_high:+.3f}]",
                _p(c.p_value),
                f"**{_p(c.p_holm)}**" if c.p_holm < ALPHA else _p(c.p_holm),
            ]
            for c in chosen
        ]
        lines += [f"## {TABLE_TITLES[name]}", ""]
        lines += markdown_table(header, rows, "lllrrrr") + [""]
    return "\n".join(lines)
