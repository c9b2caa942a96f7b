"""The judge on the metric study's 39 human-rated pairs (Chen et al. 2023), against the ratings.

The pairs are the 8 DS-2 references times 5 prompt settings (one setting of SHAS has no
output): the study's reference and generated PlantUML, the DS-2 record's text, and the human
experts' F1 per element. Agreement compares the judge with the humans as the study compares
the metrics: S_final with the mean human F1, the CA ratio with the class and attribute F1, the
LA ratio with the association F1; Pearson r with a 95% interval from resampling the 8
reference models (a model's five pairs share one reference).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

from dmbench.judge.judging import Instance, Judged
from dmbench.judge.leaderboard import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from dmbench.sources.records import BenchmarkRecord
from dmbench.sources.study import study_pairs as rated_study_pairs

COMPARISONS = (
    ("overall", "s_final", "mean_f1"),
    ("class", "CA", "class_f1"),
    ("attribute", "CA", "attribute_f1"),
    ("association", "LA", "association_f1"),
)
"""(element, judge value, human value): what the agreement rows compare."""


@dataclass(frozen=True, slots=True)
class StudyPair:
    instance: Instance
    model: str
    setting: str
    human: dict[str, float]


def study_pairs(sources_dir: Path, records: Sequence[BenchmarkRecord]) -> list[StudyPair]:
    """The human-rated pairs (``dmbench.sources.study``, hash-checked) with the DS-2 texts;
    instance ids are the study's pair ids (``<model>_<setting>``), as ``dmbench agreement``'s."""
    texts = {r.upstream_id: r.text for r in records if r.dataset == "ds2"}
    pairs = []
    for rated in rated_study_pairs(sources_dir):
        human = {f"{element}_f1": value for element, value in rated.human_f1.items()}
        human["mean_f1"] = fmean(human.values())
        instance = Instance(
            rated.pair_id,
            texts[rated.model],
            rated.reference,
            rated.generated,
            "ds2",
            f"{rated.model} (DS-2)",
        )
        pairs.append(StudyPair(instance, rated.model, rated.setting, human))
    return pairs


def study_line(pair: StudyPair, judged: Judged) -> dict[str, Any]:
    criteria = judged.criteria or {}
    return {
        "id": pair.instance.id,
        "model": pair.model,
        "setting": pair.setting,
        "failed": judged.failed,
        "error": judged.error,
        "s_final": judged.s_final,
        "CA": criteria.get("CA"),
        "LA": criteria.get("LA"),
        "dimensions": judged.dimensions,
        "human": pair.human,
        "judgements": [
            {k: j[k] for k in ("judge", "reference_shown_as", "s_final", "attempts", "failed",
                               "error")}  # fmt: skip
            for j in judged.judgements
        ],
    }


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    if len(x) < 2 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def study_agreement(lines: Sequence[dict[str, Any]], judge: str) -> list[dict[str, Any]]:
    """One row per comparison: n, Pearson r with its model-resampled 95% CI, MAD and bias."""
    rows = []
    for element, judged_key, human_key in COMPARISONS:
        kept = [line for line in lines if not line["failed"] and line[judged_key] is not None]
        x = np.array([line[judged_key] for line in kept], dtype=float)
        y = np.array([line["human"][human_key] for line in kept], dtype=float)
        models = sorted({line["model"] for line in kept})
        members = [np.array([i for i, line in enumerate(kept) if line["model"] == m])
                   for m in models]  # fmt: skip
        rng = np.random.default_rng(BOOTSTRAP_SEED)
        draws = []
        for _ in range(BOOTSTRAP_RESAMPLES if members else 0):
            picked = np.concatenate([members[i] for i in rng.integers(0, len(members),
                                                                      len(members))])
            draws.append(_pearson(x[picked], y[picked]))
        finite = [d for d in draws if d == d]
        low, high = (np.percentile(finite, [2.5, 97.5]) if finite else (None, None))
        r = _pearson(x, y)
        rows.append(
            {
                "metric": f"judge:{judge}",
                "element": element,
                "source": "dmbench",
                "judge_value": judged_key,
                "human_value": human_key,
                "n": len(kept),
                "failed": len(lines) - len(kept),
                "pearson_r": None if r != r else r,
                "r_ci_low": None if low is None else float(low),
                "r_ci_high": None if high is None else float(high),
                "mad": float(np.mean(np.abs(x - y))) if len(kept) else None,
                "bias": float(np.mean(x - y)) if len(kept) else None,
                "bootstrap": {"resamples": BOOTSTRAP_RESAMPLES, "seed": BOOTSTRAP_SEED,
                              "cluster": "reference model"},  # fmt: skip
            }
        )
    return rows
