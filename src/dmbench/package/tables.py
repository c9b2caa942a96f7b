"""The package's tabular resources derived from the run store (judge runs too) and the prompts.

The CSV conventions (RFC 4180, byte-exact strings, bit-exact floats) are in ``dmbench.core.csvio``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.csvio import csv_text
from dmbench.core.hashing import sha256_text
from dmbench.judge.runs import list_judge_runs
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.store import OutputRow, Run

RUNS_PATH = "data/runs.csv"
OUTPUTS_PATH = "data/outputs.csv"
SCORES_PATH = "data/scores.csv"
JUDGEMENTS_PATH = "data/judgements.csv"
JUDGE_CONTROLS_PATH = "data/judge_controls.csv"
JUDGE_STUDY_PATH = "data/judge_study.csv"

RUN_FIELDS = (
    "run_id", "candidate", "model", "provider", "dataset", "run_index", "origin", "canonical",
    "uses_llm", "temperature", "temperature_translate", "num_predict", "seed", "top_p", "top_k",
    "repeat_penalty", "timeout_seconds", "recorded_timeout_seconds", "enable_translation",
    "think", "truncate", "started_utc", "finished_utc", "complete", "n_records", "n_failed",
    "elapsed_seconds", "n_failed_score", "upstream_run_id", "upstream_path", "upstream_sha256",
    "dmbench_version", "dmbench_commit",
)
OUTPUT_FIELDS = (
    "run_id", "record_id", "generated", "generated_sha256", "failed", "error", "elapsed_seconds",
)
JUDGEMENT_FIELDS = (
    "judge_run_id", "instance", "judgement", "run_id", "record_id", "type", "judge",
    "reference_shown_as", "failed", "error", "attempts", "s_generated", "s_reference", "s_final",
    "instance_failed", "instance_s_final", "dimensions", "criteria",
)
JUDGE_STUDY_FIELDS = (
    "judge_run_id", "pair_id", "record_id", "model", "setting", "judges", "failed", "error",
    "s_final", "ca_ratio", "la_ratio", "human_class_f1", "human_attribute_f1",
    "human_association_f1", "dimensions",
)
SCORE_FIELDS = (
    "run_id", "record_id", "metric", "origin", "class_score", "attribute_score",
    "association_score", "error",
)


def _run_row(run: Run, outputs: list[OutputRow]) -> dict[str, Any]:
    """Counts come from the stored outputs, so an interrupted run is described as it is."""
    info = run.info
    recorded = info.provenance.get("recorded_settings") or {}
    upstream = info.upstream or {}
    return {
        **{k: info.settings.get(k) for k in RUN_FIELDS if k in info.settings},
        "run_id": info.run_id,
        "candidate": info.candidate,
        "model": info.model,
        # an imported inspect_ai run names its provider; every other LLM run went through Ollama
        "provider": info.provenance.get("provider") or ("ollama" if info.model else None),
        "dataset": info.dataset,
        "run_index": info.run_index,
        "origin": info.origin,
        "canonical": info.canonical,
        "recorded_timeout_seconds": recorded.get("timeout_seconds"),
        "started_utc": info.started_utc,
        "finished_utc": info.finished_utc,
        "complete": info.finished_utc is not None,
        "n_records": len(outputs),
        "n_failed": sum(row.failed for row in outputs),
        "elapsed_seconds": info.totals.get(
            "elapsed_seconds", round(sum(row.elapsed_seconds for row in outputs), 3)
        ),
        "n_failed_score": info.totals.get("n_failed_score"),
        "upstream_run_id": info.provenance.get("upstream_run_id"),
        "upstream_path": upstream.get("path"),
        "upstream_sha256": upstream.get("sha256"),
        "dmbench_version": info.provenance.get("dmbench_version"),
        "dmbench_commit": info.provenance.get("dmbench_commit"),
    }


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _criteria_cell(judgement: Mapping[str, Any]) -> str | None:
    if judgement["dimensions"] is None:
        return None
    reasons = judgement["scores"]
    return _json(
        {
            cid: {**part, "reason": reasons[cid]["reason"]}
            for dimension in judgement["dimensions"].values()
            for cid, part in dimension["criteria"].items()
        }
    )


def judgement_rows(package_dir: Path, controls: bool = False) -> list[dict[str, Any]]:
    """One row per judgement of every judge run; one for an instance never sent (empty).

    Judged outputs, or with ``controls`` the control judgements (which have no run)."""
    rows = []
    for run in list_judge_runs(Path(package_dir)):
        for stored in sorted(run.rows(), key=lambda r: r["instance"]):
            if (stored["run_id"] is None) != controls:
                continue
            common = {
                "judge_run_id": run.run_id,
                "instance": stored["instance"],
                "run_id": stored["run_id"],
                "record_id": stored["record_id"],
                "type": stored["type"],
                "instance_failed": stored["failed"],
                "instance_s_final": stored["s_final"],
            }
            if not stored["judgements"]:
                rows.append(
                    {**common, "judgement": 0, "failed": stored["failed"], "error": stored["error"],
                     "attempts": 0, "s_final": stored["s_final"]}
                )
            for number, judgement in enumerate(stored["judgements"], start=1):
                rows.append(
                    {
                        **common,
                        "judgement": number,
                        **{k: judgement[k] for k in (
                            "judge", "reference_shown_as", "failed", "error", "attempts",
                            "s_generated", "s_reference", "s_final",
                        )},
                        "dimensions": _json(
                            None if judgement["dimensions"] is None else {
                                d: part["ratio"] for d, part in judgement["dimensions"].items()
                            }
                        ),
                        "criteria": _criteria_cell(judgement),
                    }
                )
    return rows


def judge_study_rows(package_dir: Path) -> list[dict[str, Any]]:
    """One row per pair of every study run (``judge --study``): what ``dmbench agreement``
    compares (S_final, the CA and LA ratios) beside the experts' F1s."""
    rows = []
    for run in list_judge_runs(Path(package_dir), study=True):
        for stored in sorted(run.rows(), key=lambda r: r["instance"]):
            ratios = stored["criteria"] or {}
            rows.append(
                {
                    "judge_run_id": run.run_id,
                    "pair_id": stored["instance"],
                    "record_id": stored["record_id"],
                    "model": stored["model"],
                    "setting": stored["setting"],
                    "judges": "+".join(run.info["settings"]["judges"]),
                    "failed": stored["failed"],
                    "error": stored["error"],
                    "s_final": stored["s_final"],
                    "ca_ratio": ratios.get("CA"),
                    "la_ratio": ratios.get("LA"),
                    **{f"human_{e}_f1": v for e, v in stored["human_f1"].items()},
                    "dimensions": _json(stored["dimensions"]),
                }
            )
    return rows


def run_table_rows(
    package: PackageSource, record_order: Mapping[str, int]
) -> dict[str, list[dict[str, Any]]]:
    """The rows of runs, outputs, scores and judgements as ``runs/`` defines them, typed."""
    run_rows = []
    outputs = []
    scores: list[dict[str, Any]] = []
    origin_order = {"published": 0, "recomputed": 1}
    opened = open_package(package)
    package_dir = opened.path
    for run in opened.runs():
        stored = sorted(run.outputs(), key=lambda r: record_order[r.record_id])
        run_rows.append(_run_row(run, stored))
        for row in stored:
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
        run_scores = sorted(
            run.scores(),
            key=lambda s: (record_order[s.record_id], s.metric, origin_order.get(s.origin, 2)),
        )
        scores.extend({name: getattr(s, name) for name in SCORE_FIELDS} for s in run_scores)
    return {
        RUNS_PATH: run_rows,
        OUTPUTS_PATH: outputs,
        SCORES_PATH: scores,
        JUDGEMENTS_PATH: judgement_rows(package_dir),
        JUDGE_CONTROLS_PATH: judgement_rows(package_dir, controls=True),
        JUDGE_STUDY_PATH: judge_study_rows(package_dir),
    }


TABLE_FIELDS = {
    RUNS_PATH: RUN_FIELDS,
    OUTPUTS_PATH: OUTPUT_FIELDS,
    SCORES_PATH: SCORE_FIELDS,
    JUDGEMENTS_PATH: JUDGEMENT_FIELDS,
    JUDGE_CONTROLS_PATH: JUDGEMENT_FIELDS,
    JUDGE_STUDY_PATH: JUDGE_STUDY_FIELDS,
}


def run_tables(package: PackageSource, record_order: Mapping[str, int]) -> dict[str, str]:
    """The CSV text of runs, outputs, scores and judgements as ``runs/`` defines them."""
    rows = run_table_rows(package, record_order)
    return {path: csv_text(TABLE_FIELDS[path], rows[path]) for path in TABLE_FIELDS}


def write_run_tables(package: PackageSource, record_order: Mapping[str, int]) -> None:
    """Rewrite runs, outputs, scores and judgements from ``runs/`` (outputs in record order)."""
    folder = open_package(package).path
    for path, text in run_tables(package, record_order).items():
        atomic.write_text(folder / path, text)
