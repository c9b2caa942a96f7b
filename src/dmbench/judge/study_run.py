"""The judge on the metric study's 39 human-rated pairs (Chen et al. 2023), stored as a run.

The pairs are the 8 DS-2 references times 5 prompt settings (one setting of SHAS has no
output): the study's reference and generated PlantUML, shown with the DS-2 record's text. A
study run is a judge run whose settings name the study's pinned pairs file; its lines carry
the pair's model, setting and the experts' F1s beside the judgement, and ``data/judge_study.csv``
holds one row per pair. ``dmbench agreement`` compares them with the human ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench.judge.judging import Instance, Judged
from dmbench.judge.runs import Target, judged_row
from dmbench.sources.pins import pinned
from dmbench.sources.records import BenchmarkRecord
from dmbench.sources.study import STUDY_DATA
from dmbench.sources.study import study_pairs as rated_study_pairs

JUDGED_ELEMENTS = {"class": "CA", "attribute": "CA", "association": "LA"}
"""Per element of the human rating, the criterion whose ratio is compared with it."""


@dataclass(frozen=True, slots=True)
class StudyPair:
    """One human-rated pair of the metric study as a judge target, with the experts' F1,
    so the judge's S_final can be set beside it."""
    target: Target
    model: str
    setting: str
    human_f1: dict[str, float]


def study_source() -> dict[str, str]:
    """What a study run judged: the pinned pairs file (part of its settings, hence its id)."""
    return {"source": STUDY_DATA, "sha256": pinned(STUDY_DATA).sha256}


def study_pairs(sources_dir: Path, records: Sequence[BenchmarkRecord]) -> list[StudyPair]:
    """The human-rated pairs (``dmbench.sources.study``, hash-checked) with the DS-2 texts;
    instance ids are the study's pair ids (``<model>_<setting>``), as ``dmbench agreement``'s."""
    ds2 = {r.upstream_id: r for r in records if r.dataset == "ds2"}
    pairs = []
    for rated in rated_study_pairs(sources_dir):
        record = ds2[rated.model]
        instance = Instance(
            rated.pair_id,
            record.text,
            rated.reference,
            rated.generated,
            "ds2",
            f"{rated.model} (DS-2)",
        )
        pairs.append(
            StudyPair(Target(instance, None, record.record_id), rated.model, rated.setting,
                      dict(rated.human_f1))
        )  # fmt: skip
    return pairs


def study_row_maker(pairs: Sequence[StudyPair]):
    """``run_judgements``' ``row_of`` for a study run: the judged row plus the pair it rates."""
    by_id = {p.target.instance.id: p for p in pairs}

    def row_of(target: Target, judged: Judged) -> dict[str, Any]:
        pair = by_id[target.instance.id]
        return judged_row(target, judged) | {
            "model": pair.model, "setting": pair.setting, "human_f1": pair.human_f1,
        }

    return row_of


def judged_values(
    rows: Sequence[dict[str, Any]],
) -> tuple[dict[str, float], dict[str, dict[str, float]], dict[str, str]]:
    """From a study run's rows: S_final per pair, the criterion ratio compared with each
    element's F1 per pair, and the pairs left out with the reason (a failed judgement, or no
    criterion ratios because the generated diagram was empty)."""
    overall, values, excluded = {}, {}, {}
    for row in rows:
        pair = row["instance"]
        ratios = row["criteria"] or {}
        if row["failed"] or any(c not in ratios for c in JUDGED_ELEMENTS.values()):
            excluded[pair] = f"judge: {row['error'] or 'no criterion ratios'}"
            continue
        overall[pair] = row["s_final"]
        values[pair] = {e: ratios[c] for e, c in JUDGED_ELEMENTS.items()}
    return overall, values, excluded
