"""The tables as flat rows for a DataFrame: one scalar per cell, numbers unrounded.

The published files print each cell of Tables 2-3 as ``{median, std, ci_low, ci_high}`` rounded
as the paper does; a notebook wants one numeric column per element and statistic
(``class_median``, ``class_ci_low``, ...), a missing value as None (NaN in pandas), and the
paper's rows unless it asks for all. The LLM column is ``model`` in every frame, as in
``data/runs.csv``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dmbench.errors import UnknownNameError
from dmbench.tables.comparisons import COMPARISON_FIELDS
from dmbench.tables.corpus import AVERAGED, COUNT_FIELDS
from dmbench.tables.leaderboard_files import flat_rows
from dmbench.tables.render import TableSet
from dmbench.tables.results import ELEMENTS, PAPER_TABLES, ResultRow

TABLE_NAMES = ("table1", "table2", "table3", "comparisons")
"""What ``Package.tables(table=...)`` gives: Table 1, Tables 2-3, their paired comparisons."""

CELL_COLUMNS = ("median", "std", "ci_low", "ci_high")

RESULT_COLUMNS = (
    "table", "metric", "dataset", "series", "candidate", "model", "origin", "canonical",
    "scores", "runs", *(f"{e}_{s}" for e in ELEMENTS for s in CELL_COLUMNS),
    "fail_pct", "rejected_pct", "rejected_records",
)  # fmt: skip
TABLE1_COLUMNS = (
    "reading", "dataset", *COUNT_FIELDS, "multiplicity_pct",
    *(f"{field}_per_record" for field in AVERAGED),
)  # fmt: skip
COMPARISON_COLUMNS = tuple(COMPARISON_FIELDS[1:])

LEADERBOARD_RENAMED = {"llm": "model"}
"""The leaderboard's files say ``llm``; its frame says ``model``, as every other frame."""
LEADERBOARD_INTEGERS = ("rank", "n", "failed", "empty_generated", "unreadable_generated", "orders")
LEADERBOARD_FLOATS = (
    "overall", "ci_low", "ci_high", "failed_share", "position_bias", "flip_rate",
    "mean_abs_order_diff", "alpha",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Frame:
    """What a DataFrame is made of: its columns in order, its rows, and the pandas dtype of the
    columns that need one (``float64`` so that a missing number is NaN, ``Int64`` for an
    integer that may be missing)."""

    columns: tuple[str, ...]
    rows: list[dict[str, Any]]
    dtypes: dict[str, str] = field(default_factory=dict)


def _result_row(row: ResultRow) -> dict[str, Any]:
    flat: dict[str, Any] = {
        "table": row.table, "metric": row.metric, "dataset": row.dataset, "series": row.series,
        "candidate": row.candidate, "model": row.model, "origin": row.origin,
        "canonical": row.canonical, "scores": row.scores_from, "runs": row.runs,
    }  # fmt: skip
    for element in ELEMENTS:
        for statistic in CELL_COLUMNS:
            flat[f"{element}_{statistic}"] = getattr(row, statistic)[element]
    flat.update(
        fail_pct=row.fail_pct, rejected_pct=row.rejected_pct, rejected_records=row.rejected_records
    )
    return flat


def _floats(columns: tuple[str, ...]) -> dict[str, str]:
    return {c: "float64" for c in columns}


def table_frame(tables: TableSet, table: str, all_rows: bool = False) -> Frame:
    """One of ``TABLE_NAMES``; Tables 2-3 hold the canonical cells only (the paper's), unless
    ``all_rows`` (the comparisons are made between canonical cells only)."""
    if table == "table1":
        rows = []
        for corpus in tables.corpus:
            row: dict[str, Any] = {"reading": corpus.reading, "dataset": corpus.dataset}
            row |= corpus.counts
            row["multiplicity_pct"] = corpus.multiplicity_pct
            row |= {f"{f}_per_record": corpus.per_record(f) for f in AVERAGED}
            rows.append(row)
        return Frame(TABLE1_COLUMNS, rows, _floats(TABLE1_COLUMNS[-5:]))
    if table == "comparisons":
        rows = [{name: getattr(c, name) for name in COMPARISON_COLUMNS} for c in tables.comparisons]
        return Frame(COMPARISON_COLUMNS, rows)
    if table in PAPER_TABLES.values():
        chosen = [r for r in tables.results if r.table == table and (all_rows or r.canonical)]
        cells = RESULT_COLUMNS[10:-1]
        return Frame(RESULT_COLUMNS, [_result_row(r) for r in chosen], _floats(cells))
    raise UnknownNameError(f"unknown table {table!r}; choose one of {', '.join(TABLE_NAMES)}")


def leaderboard_frame(board: dict[str, Any]) -> Frame:
    """The judge leaderboard (``judge_leaderboard``'s board) as ``leaderboard.csv`` flattens
    it, ranks as integers and the LLM column named ``model``."""
    fields, rows = flat_rows(board["rows"])
    columns = tuple(LEADERBOARD_RENAMED.get(f, f) for f in fields)
    renamed = [{LEADERBOARD_RENAMED.get(k, k): v for k, v in r.items()} for r in rows]
    dtypes = {c: "Int64" for c in LEADERBOARD_INTEGERS}
    scores = (c for c in columns if c.startswith(("type_", "dimension_")))
    dtypes |= {c: "float64" for c in (*LEADERBOARD_FLOATS, *scores)}
    return Frame(columns, renamed, dtypes)
