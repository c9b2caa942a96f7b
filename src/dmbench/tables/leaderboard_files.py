"""The judge leaderboard rendered: a flat CSV row per leaderboard row, and Markdown per judge run.

The rows themselves come from :func:`dmbench.judge.leaderboard_rows`, which the deposit and the
report read directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.csvio import csv_text
from dmbench.tables.render import markdown_table

LEADERBOARD_STEM = "leaderboard"
_HEAD = ("judge_run_id", "judge", "candidate", "llm", "overall", "ci_low", "ci_high", "n",
         "failed", "empty_generated")
_TAIL = ("position_bias", "flip_rate", "mean_abs_order_diff", "alpha", "self_preference")


def _columns(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    types = sorted({t for r in rows for t in r["types"]})
    dimensions = list(dict.fromkeys(d for r in rows for d in r["dimensions"]))
    return types, dimensions


def flat_rows(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """(fields, rows) with ``type_<τ>`` and ``dimension_<d>`` columns."""
    types, dimensions = _columns(rows)
    fields = [*_HEAD, *(f"type_{t}" for t in types), *(f"dimension_{d}" for d in dimensions),
              *_TAIL]
    flat = []
    for row in rows:
        item = {k: row[k] for k in (*_HEAD, *_TAIL)}
        item.update({f"type_{t}": row["types"].get(t) for t in types})
        item.update({f"dimension_{d}": row["dimensions"].get(d) for d in dimensions})
        flat.append(item)
    return fields, flat


def leaderboard_csv(rows: Sequence[dict[str, Any]]) -> str:
    fields, flat = flat_rows(rows)
    return csv_text(fields, flat)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def leaderboard_markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "# Judge leaderboard",
        "",
        "S_final = S(generated) / (S(generated) + S(reference)) per output, averaged: 0.5 is "
        "parity with the human reference, above it the judge preferred the output. "
        "95% CI: bootstrap over records (10,000 resamples). `n` judged outputs; `failed` "
        "judgements are counted, not averaged. With both orders: `bias` is the mean of "
        "[S_final with the output shown as A − shown as B], `flips` the share whose preferred "
        "diagram changes with the order, \\|AB−BA\\| the mean absolute difference. `alpha`: "
        "Krippendorff's alpha (interval) between the judges of a panel.",
        "",
    ]
    runs = list(dict.fromkeys(r["judge_run_id"] for r in rows))
    for run_id in runs:
        mine = [r for r in rows if r["judge_run_id"] == run_id]
        types, dimensions = _columns(mine)
        header = ["Candidate", "LLM", "Overall [95% CI]", *types, *dimensions, "n", "failed",
                  "bias", "flips", "\\|AB−BA\\|", "alpha"]
        body = []
        for r in mine:
            ci = f" [{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]" if r["ci_low"] is not None else ""
            body.append(
                [r["candidate"], r["llm"] or "–", _fmt(r["overall"]) + ci,
                 *(_fmt(r["types"].get(t)) for t in types),
                 *(_fmt(r["dimensions"].get(d)) for d in dimensions),
                 str(r["n"]), str(r["failed"]), _fmt(r["position_bias"]), _fmt(r["flip_rate"]),
                 _fmt(r["mean_abs_order_diff"]), _fmt(r["alpha"])]
            )
        lines += [f"## {mine[0]['judge']} (`{run_id}`)", ""]
        lines += markdown_table(header, body, "lll" + "r" * (len(header) - 3))
        warned = [r for r in mine if r["self_preference"]]
        if warned:
            lines += ["", "Self-preference: the judge shares a model family with the LLM of "
                      + ", ".join(f"{r['candidate']}/{r['llm']}" for r in warned)
                      + "; its scores there may favour its own family."]
        lines.append("")
    return "\n".join(lines)


def write_leaderboard(rows: Sequence[dict[str, Any]], out_dir: Path, fmt: str) -> Path:
    path = Path(out_dir) / f"{LEADERBOARD_STEM}.{fmt}"
    text = leaderboard_markdown(rows) if fmt == "md" else leaderboard_csv(rows)
    atomic.write_text(path, text)
    return path
