"""The judge leaderboard: ranked rows, paired comparisons between candidates, and warnings.

The rows come from :func:`dmbench.judge.leaderboard.leaderboard_entries` (one board per judge
protocol). Candidates judged on one board are compared record by record with the same paired
bootstrap, sign-flip test and Holm adjustment as Tables 2-3 (:func:`compare_paired`), one Holm
family per board. A warning names the row it concerns and the threshold it crossed; Markdown
(and so the report) shows the warnings beside their rows, JSON and CSV carry the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dmbench.core.escape import markdown_text
from dmbench.core import atomic
from dmbench.core.csvio import csv_text
from dmbench.judge.leaderboard import Entry, leaderboard_entries
from dmbench.tables.comparisons import compare_paired
from dmbench.tables.render import markdown_table

LEADERBOARD_STEM = "leaderboard"
POSITION_BIAS_LIMIT = 0.05
"""|mean S_final with the output as A − as B| above this: the order sways the judge."""
FLIP_RATE_LIMIT = 0.10
"""Share of instances whose preferred diagram changes with the order (GPT-4: ~13 %)."""
FAILED_SHARE_LIMIT = 0.05
IDENTITY_TOLERANCE = 0.05
"""The identity control fails when its mean is further than this from 0.5, or its 95% CI
leaves out 0.5."""

_HEAD = ("board", "rank", "judge", "candidate", "llm", "overall", "ci_low", "ci_high", "n", "failed",
         "failed_share", "empty_generated", "unreadable_generated", "orders")  # fmt: skip
_TAIL = ("position_bias", "flip_rate", "mean_abs_order_diff", "alpha", "self_preference")


def series_name(row: dict[str, Any]) -> str:
    return f"{row['candidate']}/{row['llm']}" if row["llm"] else row["candidate"]


def _warn(row: dict[str, Any], kind: str, message: str, value: float | None = None,
          threshold: float | None = None) -> dict[str, Any]:  # fmt: skip
    return {"kind": kind, "judge": row["judge"], "candidate": row["candidate"], "llm": row["llm"],
            "value": value, "threshold": threshold, "message": message}  # fmt: skip


def row_warnings(row: dict[str, Any]) -> list[dict[str, Any]]:
    """What a reader of ``row`` must know before trusting its rank."""
    found = []
    bias, flips = row["position_bias"], row["flip_rate"]
    if row["orders"] == 1:
        found.append(_warn(row, "single_order", "judged in one order only: position bias is "
                                                "not measured and not averaged out"))
    if bias is not None and abs(bias) > POSITION_BIAS_LIMIT:
        found.append(_warn(row, "position_bias", f"position bias {bias:+.3f} (beyond "
                           f"±{POSITION_BIAS_LIMIT}): the order of the diagrams sways the judge",
                           bias, POSITION_BIAS_LIMIT))  # fmt: skip
    if flips is not None and flips > FLIP_RATE_LIMIT:
        found.append(_warn(row, "flip_rate", f"the preferred diagram changes with the order on "
                           f"{flips:.0%} of instances (> {FLIP_RATE_LIMIT:.0%})", flips,
                           FLIP_RATE_LIMIT))  # fmt: skip
    if row["failed_share"] > FAILED_SHARE_LIMIT:
        total = row["n"] + row["failed"]
        found.append(_warn(row, "failed", f"the judgement of {row['failed']} of {total} outputs "
                           f"failed ({row['failed_share']:.0%} > {FAILED_SHARE_LIMIT:.0%}); they "
                           "are left out of the mean", row["failed_share"],
                           FAILED_SHARE_LIMIT))  # fmt: skip
    if row["self_preference"]:
        found.append(_warn(row, "self_preference", "the judge shares a model family with the "
                           "row's LLM; it may favour its own family"))  # fmt: skip
    if row["rank"] is None and row["overall"] is not None:
        low, high = row["ci_low"], row["ci_high"]
        off = abs(row["overall"] - 0.5) > IDENTITY_TOLERANCE or not low <= 0.5 <= high
        if off:
            found.append(_warn(row, "identity_control", f"identity control fails: a diagram "
                               f"against itself scores {row['overall']:.3f} [{low:.3f}, "
                               f"{high:.3f}], not 0.5", row["overall"], IDENTITY_TOLERANCE))  # fmt: skip
    return found


def _comparisons(board: Sequence[Entry]) -> list[dict[str, Any]]:
    ranked = [e for e in board if not e.control]
    series = [(series_name(e.row), e.record_means) for e in ranked]
    first = board[0].row
    return [{"board": first["board"], "judge": first["judge"], **asdict(p)}
            for p in compare_paired(series)]  # fmt: skip


def judge_leaderboard(package_dir: Path, judge_run_id: str | None = None) -> dict[str, Any]:
    """``{"rows", "comparisons", "warnings"}`` over every judge run (or one)."""
    boards = leaderboard_entries(package_dir, judge_run_id)
    rows = [e.row for board in boards for e in board]
    return {
        "rows": rows,
        "comparisons": [c for board in boards for c in _comparisons(board)],
        "warnings": [w for row in rows for w in row_warnings(row)],
    }


def _columns(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    types = sorted({t for r in rows for t in r["types"]})
    dimensions = list(dict.fromkeys(d for r in rows for d in r["dimensions"]))
    return types, dimensions


def flat_rows(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """(fields, rows) with ``type_<τ>`` and ``dimension_<d>`` columns, the seed and warnings."""
    types, dimensions = _columns(rows)
    fields = [*_HEAD, *(f"type_{t}" for t in types), *(f"dimension_{d}" for d in dimensions),
              *_TAIL, "seed", "criteria_version", "judge_runs", "warnings"]  # fmt: skip
    flat = []
    for row in rows:
        item = {k: row[k] for k in (*_HEAD, *_TAIL)}
        item.update({f"type_{t}": row["types"].get(t) for t in types})
        item.update({f"dimension_{d}": row["dimensions"].get(d) for d in dimensions})
        item.update(seed=row["settings"]["seed"],
                    criteria_version=row["settings"]["criteria_version"],
                    judge_runs=" ".join(row["judge_runs"]),
                    warnings="; ".join(w["kind"] for w in row_warnings(row)))  # fmt: skip
        flat.append(item)
    return fields, flat


def leaderboard_csv(board: dict[str, Any]) -> str:
    fields, flat = flat_rows(board["rows"])
    return csv_text(fields, flat)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


INTRO = (
    "S_final = S(output) / (S(output) + S(reference)) per output, averaged over both orders, "
    "the judges of a panel and the outputs: 0.5 is parity with the human reference, above it "
    "the judge preferred the output. 95% CI: bootstrap over records (10,000 resamples). `n` "
    "judged outputs; `failed` judgements are counted, never averaged. `bias`: mean of "
    "[S_final with the output shown as A − shown as B]; `flips`: share whose preferred diagram "
    "changes with the order. `alpha`: Krippendorff's alpha (interval) between the judges of a "
    f"panel. Warnings: bias beyond ±{POSITION_BIAS_LIMIT}, flips > {FLIP_RATE_LIMIT:.0%}, failed > "
    f"{FAILED_SHARE_LIMIT:.0%}, a judge of the LLM's family, an identity control off 0.5 by "
    f"more than {IDENTITY_TOLERANCE} (or its CI), one order only."
)


def leaderboard_markdown(board: dict[str, Any]) -> str:
    lines = ["# Judge leaderboard", "", INTRO, ""]
    rows = board["rows"]
    for number in dict.fromkeys(r["board"] for r in rows):
        mine = [r for r in rows if r["board"] == number]
        judge, settings = mine[0]["judge"], mine[0]["settings"]
        runs = dict.fromkeys(run for r in mine for run in r["judge_runs"])
        types, dimensions = _columns(mine)
        header = ["#", "Candidate", "LLM", "Overall [95% CI]", *types, *dimensions, "n",
                  "failed", "orders", "bias", "flips", "alpha", "Warnings"]  # fmt: skip
        body = []
        for r in mine:
            ci = f" [{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]" if r["ci_low"] is not None else ""
            body.append(
                [str(r["rank"] or "–"), markdown_text(r["candidate"]),
                 markdown_text(r["llm"]) if r["llm"] else "–", _fmt(r["overall"]) + ci,
                 *(_fmt(r["types"].get(t)) for t in types),
                 *(_fmt(r["dimensions"].get(d)) for d in dimensions),
                 str(r["n"]), str(r["failed"]), str(r["orders"]), _fmt(r["position_bias"]),
                 _fmt(r["flip_rate"]), _fmt(r["alpha"]),
                 "; ".join(w["message"] for w in row_warnings(r)) or "–"]
            )  # fmt: skip
        lines += [
            f"## Board {number}: judge {markdown_text(judge)}",
            "",
            f"Seed {settings['seed']}, criteria {settings['criteria_id']} "
            f"{settings['criteria_version']}, prompt {settings['prompt_version']}, "
            f"{settings['orders']} order(s); judge runs: {', '.join(f'`{r}`' for r in runs)}.",
            "",
        ]
        lines += markdown_table(header, body, "rlll" + "r" * (len(header) - 5) + "l")
        compared = [c for c in board["comparisons"] if c["board"] == number]
        if compared:
            lines += ["", "Paired by record (a − b; bootstrap CI, sign-flip p, Holm-adjusted):",
                      ""]  # fmt: skip
            lines += markdown_table(
                ["a", "b", "n", "diff [95% CI]", "p", "p (Holm)"],
                [[markdown_text(c["a"]), markdown_text(c["b"]), str(c["n"]),
                  f"{c['diff']:+.3f} [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]",
                  _fmt(c["p_value"]), _fmt(c["p_holm"])] for c in compared],
                "llrrrr",
            )  # fmt: skip
        lines.append("")
    return "\n".join(lines)


def write_leaderboard(board: dict[str, Any], out_dir: Path, fmt: str) -> Path:
    path = Path(out_dir) / f"{LEADERBOARD_STEM}.{fmt}"
    text = leaderboard_markdown(board) if fmt == "md" else leaderboard_csv(board)
    atomic.write_text(path, text)
    return path
