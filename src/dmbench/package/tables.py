"""The package's tabular resources derived from the run store and the prompts.

CSV is written with Python's csv module (``\\n`` line ends, minimal quoting): every string,
multi-line PlantUML included, reads back byte-identical, floats are written with ``repr`` so
they read back bit-identical, ``true``/``false`` for booleans and an empty cell for null.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dmbench.sources.records import sha256_text
from dmbench.runs.scores import read_scores
from dmbench.runs.store import list_runs

RUNS_PATH = "data/runs.csv"
OUTPUTS_PATH = "data/outputs.csv"
SCORES_PATH = "data/scores.csv"

RUN_FIELDS = (
    "run_id", "candidate", "model", "dataset", "run_index", "origin", "canonical", "uses_llm",
    "temperature", "temperature_translate", "num_predict", "seed", "top_p", "top_k",
    "repeat_penalty", "timeout_seconds", "recorded_timeout_seconds", "enable_translation",
    "think", "truncate", "started_utc", "finished_utc", "n_records", "n_failed",
    "elapsed_seconds", "n_failed_score", "upstream_run_id", "upstream_path", "upstream_sha256",
    "dmbench_version", "dmbench_commit",
)
OUTPUT_FIELDS = (
    "run_id", "record_id", "generated", "generated_sha256", "failed", "error", "elapsed_seconds",
)
SCORE_FIELDS = (
    "run_id", "record_id", "metric", "origin", "class_score", "attribute_score",
    "association_score", "error",
)


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_csv(path: Path, fields: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> None:
    fields = tuple(fields)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(fields)
        for row in rows:
            writer.writerow([cell(row.get(name)) for name in fields])


def _run_row(run) -> dict[str, Any]:
    info = run.info
    recorded = info.provenance.get("recorded_settings") or {}
    upstream = info.upstream or {}
    return {
        **{k: info.settings.get(k) for k in RUN_FIELDS if k in info.settings},
        "run_id": info.run_id,
        "candidate": info.candidate,
        "model": info.model,
        "dataset": info.dataset,
        "run_index": info.run_index,
        "origin": info.origin,
        "canonical": info.canonical,
        "recorded_timeout_seconds": recorded.get("timeout_seconds"),
        "started_utc": info.started_utc,
        "finished_utc": info.finished_utc,
        "n_records": info.totals.get("n_records"),
        "n_failed": info.totals.get("n_failed"),
        "elapsed_seconds": info.totals.get("elapsed_seconds"),
        "n_failed_score": info.totals.get("n_failed_score"),
        "upstream_run_id": info.provenance.get("upstream_run_id"),
        "upstream_path": upstream.get("path"),
        "upstream_sha256": upstream.get("sha256"),
        "dmbench_version": info.provenance.get("dmbench_version"),
        "dmbench_commit": info.provenance.get("dmbench_commit"),
    }


def write_run_tables(package_dir: Path, record_order: Mapping[str, int]) -> None:
    """Rewrite runs.csv, outputs.csv and scores.csv from ``runs/`` (outputs in record order)."""
    package_dir = Path(package_dir)
    runs = list_runs(package_dir)
    write_csv(package_dir / RUNS_PATH, RUN_FIELDS, (_run_row(run) for run in runs))
    outputs = []
    scores = []
    for run in runs:
        for row in sorted(run.outputs(), key=lambda r: record_order[r.record_id]):
            outputs.append(
                {
                    "run_id": run.info.run_id,
                    "record_id": row.record_id,
                    "generated": row.generated,
                    "generated_sha256": sha256_text(row.generated),
                    "failed": row.failed,
                    "error": row.error,
                    "elapsed_seconds": row.elapsed_seconds,
                }
            )
        order = {"published": 0, "recomputed": 1}
        run_scores = sorted(
            read_scores(run.path),
            key=lambda s: (record_order[s.record_id], s.metric, order.get(s.origin, 2)),
        )
        scores.extend(
            {name: getattr(s, name) for name in SCORE_FIELDS} for s in run_scores
        )
    write_csv(package_dir / OUTPUTS_PATH, OUTPUT_FIELDS, outputs)
    write_csv(package_dir / SCORES_PATH, SCORE_FIELDS, scores)
