"""The judge leaderboard: ranked rows, paired comparisons between candidates, and warnings.

The rows come from :func:`dmbench.judge.leaderboard.leaderboard_boards` (one board per judge
protocol, with a stable id; one of them the headline). Candidates judged on one board are compared record by record with the same paired
bootstrap, sign-flip test and Holm adjustment as Tables 2-3 (:func:`compare_paired`), one Holm
family per board. A warning names the row it concerns and the threshold it crossed; Markdown
(and so the report) shows the warnings beside their rows, JSON and CSV carry the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.csvio import csv_text
from dmbench.core.escape import markdown_text
from dmbench.judge.leaderboard import (
    Board,
    detectability,
    headline,
    judged_tells,
    leaderboard_boards,
    view_agreement,
)
from dmbench.runs.opened import PackageSource, open_package
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

DETECT_CHANCE = 0.5
"""A judge naming the person's diagram at random is right half the time."""

_HEAD = ("board", "rank", "rank_low", "rank_high", "judge", "candidate", "llm", "overall",
         "ci_low", "ci_high", "size_controlled", "size_controlled_ci_low",
         "size_controlled_ci_high", "n", "failed", "failed_share", "empty_generated",
         "unreadable_generated", "orders")  # fmt: skip
_TAIL = ("position_bias", "flip_rate", "mean_abs_order_diff", "alpha", "self_preference")


def series_name(row: dict[str, Any]) -> str:
    """A leaderboard row's series as the files name it: candidate, with its LLM when it has one."""
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


def _comparisons(board: Board) -> list[dict[str, Any]]:
    ranked = [e for e in board.entries if not e.control]
    series = [(series_name(e.row), e.record_means) for e in ranked]
    return [{"board": board.id, "judge": board.entries[0].row["judge"], **asdict(p)}
            for p in compare_paired(series)]  # fmt: skip


def _board_warning(kind: str, judge: str, board: str, message: str, value: float | None = None,
                   threshold: float | None = None) -> dict[str, Any]:  # fmt: skip
    return {"kind": kind, "judge": judge, "candidate": None, "llm": None, "board": board,
            "value": value, "threshold": threshold, "message": message}  # fmt: skip


def identity_warning(board_id: str, identity: dict[str, Any] | None) -> dict[str, Any] | None:
    """When the identity control's A − B interval leaves out 0 on some criterion: with the
    same diagram in both places, the judge scores one place higher."""
    if identity is None:
        return None
    off = {cid: part for cid, part in identity["criteria"].items()
           if part["ci_low"] is not None and not part["ci_low"] <= 0 <= part["ci_high"]}  # fmt: skip
    if not off:
        return None
    worst = max(off.values(), key=lambda part: abs(part["diff"]))
    shown = ", ".join(f"{cid} {part['diff']:+.2f} [{part['ci_low']:+.2f}, {part['ci_high']:+.2f}]"
                      for cid, part in off.items())  # fmt: skip
    return _board_warning(
        "identity_position", identity["judge"], board_id,
        f"identity control: the same diagram in both places scores differently by position "
        f"(A − B: {shown}); the judge favours a position", worst["diff"], 0.0,
    )  # fmt: skip


def detect_warning(entry: dict[str, Any]) -> dict[str, Any] | None:
    """When the detectability interval lies above chance."""
    if entry["ci_low"] is None or entry["ci_low"] <= DETECT_CHANCE:
        return None
    return _board_warning(
        "detectable", entry["judge"], entry["id"],
        f"this judge can tell the reference apart ({entry['share_correct']:.0%} right "
        f"[{entry['ci_low']:.0%}, {entry['ci_high']:.0%}] in the {entry['view']} view); "
        "S_final mixes quality and style", entry["share_correct"], DETECT_CHANCE,
    )  # fmt: skip


def judge_leaderboard(package: PackageSource, judge_run_id: str | None = None) -> dict[str, Any]:
    """``{"headline", "boards", "rows", "comparisons", "detectability", "view_agreement",
    "tells", "warnings"}`` over every judge run (or one)."""
    opened = open_package(package)
    boards = leaderboard_boards(opened, judge_run_id)
    detect = detectability(opened, judge_run_id)
    rows = [e.row for board in boards for e in board.entries]
    warnings = [w for row in rows for w in row_warnings(row)]
    warnings += [w for b in boards if (w := identity_warning(b.id, b.identity)) is not None]
    warnings += [w for d in detect if (w := detect_warning(d)) is not None]
    return {
        "headline": headline(boards),
        "boards": [
            {"id": b.id, "title": b.title, "judge_runs": [run.run_id for run in b.runs],
             "identity": b.identity}
            for b in boards
        ],  # fmt: skip
        "rows": rows,
        "comparisons": [c for board in boards for c in _comparisons(board)],
        "detectability": detect,
        "view_agreement": view_agreement(boards),
        "tells": judged_tells(opened, boards, detect) if rows or detect else None,
        "warnings": warnings,
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
    """The leaderboard's rows flattened for ``leaderboard.csv``."""
    fields, flat = flat_rows(board["rows"])
    return csv_text(fields, flat)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def rank_label(row: dict[str, Any]) -> str:
    """The rank as the board prints it: ``1-2`` when its interval spans ranks (tied), else
    the rank, ``–`` for a control."""
    if row["rank"] is None:
        return "–"
    low, high = row["rank_low"], row["rank_high"]
    if low is None or low == high:
        return str(row["rank"])
    return f"{low}-{high}"


def _interval(value: float | None, low: float | None, high: float | None) -> str:
    return _fmt(value) + (f" [{_fmt(low)}, {_fmt(high)}]" if low is not None else "")


INTRO = (
    "S_final = S(output) / (S(output) + S(reference)) per output, averaged over both orders, "
    "the judges of a panel and the outputs: 0.5 is parity with the human reference, above it "
    "the judge preferred the output. 95% CI: bootstrap over records (10,000 resamples). `#`: "
    "the rank, or `1-2` when the row's 95% rank interval (over record resamples) spans ranks: "
    "those rows are tied. `Size-controlled`: S_final at size parity (the row's intercept in a "
    "regression of S_final on log((output classes + 1) / (reference classes + 1)), one slope "
    "per board); a row that gains from drawing more (or fewer) classes than the expert loses "
    "it here. `n` judged outputs; `failed` judgements are counted, never averaged. `bias`: mean "
    "of [S_final with the output shown as A − shown as B]; `flips`: share whose preferred "
    "diagram changes with the order. `alpha`: Krippendorff's alpha (interval) between the "
    f"judges of a panel. Warnings: bias beyond ±{POSITION_BIAS_LIMIT}, flips > "
    f"{FLIP_RATE_LIMIT:.0%}, failed > {FAILED_SHARE_LIMIT:.0%}, a judge of the LLM's family, an "
    f"identity control off 0.5 by more than {IDENTITY_TOLERANCE} (or its CI) or favouring a "
    "position on a criterion, a judge that can tell the reference apart, one order only."
)


def _board_markdown(board: dict[str, Any], summary: dict[str, Any], head: str | None) -> list[str]:
    rows = [r for r in board["rows"] if r["board"] == summary["id"]]
    if not rows:
        return []
    settings = rows[0]["settings"]
    types, dimensions = _columns(rows)
    header = ["#", "Candidate", "LLM", "Overall [95% CI]", "Size-controlled [95% CI]", *types,
              *dimensions, "n", "failed", "orders", "bias", "flips", "alpha", "Warnings"]  # fmt: skip
    body = [
        [rank_label(r), markdown_text(r["candidate"]), markdown_text(r["llm"]) if r["llm"] else "–",
         _interval(r["overall"], r["ci_low"], r["ci_high"]),
         _interval(r["size_controlled"], r["size_controlled_ci_low"], r["size_controlled_ci_high"]),
         *(_fmt(r["types"].get(t)) for t in types),
         *(_fmt(r["dimensions"].get(d)) for d in dimensions),
         str(r["n"]), str(r["failed"]), str(r["orders"]), _fmt(r["position_bias"]),
         _fmt(r["flip_rate"]), _fmt(r["alpha"]),
         "; ".join(w["message"] for w in row_warnings(r)) or "–"]
        for r in rows
    ]  # fmt: skip
    mark = " (headline)" if summary["id"] == head else ""
    lines = [
        f"## {markdown_text(summary['title'])}{mark}",
        "",
        f"Board `{summary['id']}`: seed {settings['seed']}, criteria {settings['criteria_id']} "
        f"{settings['criteria_version']}, prompt {settings['prompt_version']}, "
        f"{settings['view']} view, {settings['orders']} order(s); judge runs: "
        f"{', '.join(f'`{r}`' for r in summary['judge_runs'])}.",
        "",
        *markdown_table(header, body, "rlll" + "r" * (len(header) - 5) + "l"),
    ]
    identity = summary["identity"]
    if identity is not None:
        lines += ["", f"Identity control ({identity['n']} judgements, the same diagram as A and "
                  "as B): mean score(A) − score(B) per criterion [95% CI]; a fair judge's "
                  "intervals hold 0.", ""]  # fmt: skip
        lines += markdown_table(
            ["criterion", "A − B [95% CI]"],
            [[cid, f"{part['diff']:+.3f} [{part['ci_low']:+.3f}, {part['ci_high']:+.3f}]"]
             for cid, part in identity["criteria"].items()],
            "lr",
        )  # fmt: skip
    compared = [c for c in board["comparisons"] if c["board"] == summary["id"]]
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
    detect = {d["id"] for d in board["detectability"]
              if d["judge"] == rows[0]["judge"] and d["view"] == settings["view"]}  # fmt: skip
    board_warnings = [w for w in board["warnings"]
                      if w.get("board") == summary["id"] or w.get("board") in detect]  # fmt: skip
    if board_warnings:
        lines += ["", *(f"Warning: {w['message']}." for w in board_warnings)]
    return lines


def _controls_markdown(board: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if board["detectability"]:
        lines += ["## Detectability control", "",
                  "Share of judgements in which the judge, asked which of the two diagrams a "
                  "person drew, names the reference [95% CI, bootstrap over records]. 0.5 is "
                  "chance; an interval above 0.5 means the judge can tell the reference from "
                  "the output, and its S_final mixes quality with style.", ""]  # fmt: skip
        lines += markdown_table(
            ["Judge", "View", "n", "Right [95% CI]", "Per candidate", "Warning"],
            [[markdown_text(d["judge"]), d["view"], str(d["n"]),
              _interval(d["share_correct"], d["ci_low"], d["ci_high"]),
              "; ".join(f"{markdown_text(series_name(c))} {c['share_correct']:.2f}" for c in d["by_candidate"]),
              (w["message"] if (w := detect_warning(d)) else "–")] for d in board["detectability"]],
            "llrrll",
        )  # fmt: skip
        lines.append("")
    if board["view_agreement"]:
        lines += ["## Text view against image view", "",
                  "The same judge on the same pairs, reading the text or seeing the drawings: "
                  "Krippendorff's alpha (interval) of S_final and Spearman's rank correlation of "
                  "the candidates' overall scores.", ""]  # fmt: skip
        lines += markdown_table(
            ["Text board", "Image board", "n", "alpha", "candidates", "rank correlation"],
            [[f"`{v['text_board']}`", f"`{v['image_board']}`", str(v["n"]), _fmt(v["alpha"]),
              str(v["candidates"]), _fmt(v["rank_correlation"])] for v in board["view_agreement"]],
            "llrrrr",
        )  # fmt: skip
        lines.append("")
    tells = board["tells"]
    if tells and tells["n_pairs"]:
        lines += ["## Tells: notation only the reference has", "",
                  f"Of the {tells['n_pairs']} judged pairs, {tells['n_pairs_with_reference_tell']}"
                  " show the judge something only the reference has; per feature the share of "
                  "references and of outputs that have it and the pairs where only the "
                  "reference does (per pair: `leaderboard --format json`, `tells`).", ""]  # fmt: skip
        lines += markdown_table(
            ["Feature", "references", "outputs", "pairs: reference only"],
            [[t["feature"], _fmt(t["reference_share"], 2), _fmt(t["generated_share"], 2),
              str(t["reference_only_pairs"])] for t in tells["summary"]],
            "lrrr",
        )  # fmt: skip
        lines.append("")
    return lines


def leaderboard_markdown(board: dict[str, Any]) -> str:
    """``leaderboard.md``: every board, then the controls, for reading."""
    lines = ["# Judge leaderboard", "", INTRO, ""]
    for summary in board["boards"]:
        lines += _board_markdown(board, summary, board["headline"])
        lines.append("")
    lines += _controls_markdown(board)
    return "\n".join(lines)


def write_leaderboard(board: dict[str, Any], out_dir: Path, fmt: str) -> Path:
    """The board as ``leaderboard.md`` or ``leaderboard.csv`` in ``out_dir``, written atomically."""
    path = Path(out_dir) / f"{LEADERBOARD_STEM}.{fmt}"
    text = leaderboard_markdown(board) if fmt == "md" else leaderboard_csv(board)
    atomic.write_text(path, text)
    return path
