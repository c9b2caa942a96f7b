"""Pair scores kept from one run of the main job to the next, while what they depend on holds.

A second ``dmbench reproduce`` in an unchanged package would score the same ~800 distinct pairs
with six metrics again: two thirds of its time. A score is a pure function of the two texts and
of what ``dmbench.metrics.scoring_fingerprint`` hashes (the scoring code, its libraries'
versions, the Python version, the pinned NLTK data), so the main job keeps every score it
computed in ``.dmbench-cache/scores/pairs.jsonl`` under that fingerprint and reuses it while
the fingerprint is the same. Under another fingerprint the file is ignored and replaced; a line
that does not read as a score is ignored, and its pair scored again. Each stage says how many
pairs it reused; ``reproduce --rescore`` computes every pair. ``verify``, ``score`` and
``check`` never read the file: they always compute.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from dmbench.core.atomic import write_text
from dmbench.core.hashing import sha256_text
from dmbench.metrics import BenchmarkScore
from dmbench.metrics.fingerprint import scoring_fingerprint

CACHE_FILE = ".dmbench-cache/scores/pairs.jsonl"
#: The layout of the file; another one is ignored like another fingerprint.
FORMAT = 1

Key = tuple[str, str, str]
"""(metric, the reference's sha256, the generation's sha256)."""


def pair_key(metric: str, reference: str, generated: str) -> Key:
    return metric, sha256_text(reference), sha256_text(generated)


@dataclass
class PairScores:
    """The kept scores of one package, and those computed since they were read."""

    path: Path
    fingerprint: str
    scores: dict[Key, BenchmarkScore] = field(default_factory=dict)
    added: int = 0

    @classmethod
    def read(cls, package_dir: Path, *, fresh: bool = False) -> PairScores:
        """The package's kept scores (none if ``fresh``, or kept under another fingerprint)."""
        kept = cls(Path(package_dir) / CACHE_FILE, scoring_fingerprint())
        if not fresh:
            kept.scores = _read(kept.path, kept.fingerprint)
        return kept

    def get(self, key: Key) -> BenchmarkScore | None:
        return self.scores.get(key)

    def put(self, key: Key, score: BenchmarkScore) -> None:
        if key not in self.scores:
            self.added += 1
        self.scores[key] = score

    def save(self) -> None:
        """Write every score atomically, if any was added since the last save."""
        if not self.added:
            return
        header = {"format": FORMAT, "fingerprint": self.fingerprint}
        lines = [json.dumps(header)]
        for (metric, reference, generated), score in self.scores.items():
            row = {"metric": metric, "reference": reference, "generated": generated}
            lines.append(json.dumps({**row, **score.to_dict()}))
        write_text(self.path, "\n".join(lines) + "\n")
        self.added = 0


def _read(path: Path, fingerprint: str) -> dict[Key, BenchmarkScore]:
    try:
        lines = path.read_text("utf-8").splitlines()
        header = json.loads(lines[0]) if lines else None
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if header != {"format": FORMAT, "fingerprint": fingerprint}:
        return {}
    scores = {}
    for line in lines[1:]:
        read = _score_line(line)
        if read is not None:
            scores[read[0]] = read[1]
    return scores


def _score_line(line: str) -> tuple[Key, BenchmarkScore] | None:
    """A line's key and score, or ``None`` when it is not one as :meth:`PairScores.save`
    writes it."""
    try:
        row = json.loads(line)
        key = (row["metric"], row["reference"], row["generated"])
        values = (row["class_score"], row["attribute_score"], row["association_score"])
        error = row["error"]
    except (ValueError, TypeError, KeyError):
        return None
    if not all(isinstance(part, str) for part in key):
        return None
    if not all(_is_score(value) for value in values):
        return None
    if error is not None and not isinstance(error, str):
        return None
    return key, BenchmarkScore(*values, error)


def _is_score(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value) and 0.0 <= value <= 1.0
