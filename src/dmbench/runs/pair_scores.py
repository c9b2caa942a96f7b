"""Pair scores kept from one run of the main job to the next, while what they depend on holds.

A second ``dmbench reproduce`` in an unchanged package would score the same ~800 distinct pairs
with six metrics again: two thirds of its time. A score is a pure function of the two texts and
of what ``dmbench.metrics.scoring_fingerprint`` hashes (the scoring code, its libraries'
versions, the Python version, the pinned NLTK data), so the main job keeps every score it
computed in the user's derived cache (``dmbench.core.paths.derived_cache_dir``), in a file named
by that fingerprint, keyed by the two texts' sha256, and reuses it while the fingerprint holds.

The file is never part of a package, so a package folder cannot bring scores with it; another
fingerprint's file is deleted when this one is written. Only scores are kept: a pair the metric
failed on (an unreadable diagram, a missing prerequisite, a memory error) is computed again in
every run, so a passing failure never lasts. A corrupt or truncated file reads as empty, a line
that does not read as a score is ignored, and a cache that cannot be written is left as it is.
Each stage says how many pairs it reused; ``reproduce --rescore`` computes every pair.
``verify``, ``score`` and ``check`` never read the file: they always compute.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from dmbench.core.derived import read_derived, write_derived
from dmbench.core.hashing import sha256_text
from dmbench.core.paths import derived_cache_dir
from dmbench.metrics import BenchmarkScore
from dmbench.metrics.fingerprint import scoring_fingerprint

#: The layout of a line; part of the file name, so another layout is another file.
FORMAT = 1
_PREFIX = "pair-scores-"

Key = tuple[str, str, str]
"""(metric, the reference's sha256, the generation's sha256)."""


def pair_key(metric: str, reference: str, generated: str) -> Key:
    """The memo key of one scored pair: the metric and both texts' hashes, so a pair seen in two
    runs is scored once."""
    return metric, sha256_text(reference), sha256_text(generated)


def kept_scores_path(folder: Path | None = None) -> Path | None:
    """The file of this fingerprint's scores (None when there is no user cache)."""
    folder = folder or derived_cache_dir()
    if folder is None:
        return None
    return folder / f"{_PREFIX}{FORMAT}-{scoring_fingerprint()}.jsonl"


@dataclass
class PairScores:
    """The kept scores, and those computed since they were read."""

    path: Path | None
    scores: dict[Key, BenchmarkScore] = field(default_factory=dict)
    added: int = 0

    @classmethod
    def read(cls, *, fresh: bool = False, folder: Path | None = None) -> PairScores:
        """The scores kept under this fingerprint (none if ``fresh``); ``folder`` replaces the
        user's derived cache."""
        kept = cls(kept_scores_path(folder))
        if kept.path is not None and not fresh:
            kept.scores = _read(kept.path)
        return kept

    def get(self, key: Key) -> BenchmarkScore | None:
        return self.scores.get(key)

    def put(self, key: Key, score: BenchmarkScore) -> None:
        """Keep ``score`` unless the metric failed on the pair (see the module docstring)."""
        if score.error is not None:
            return
        if key not in self.scores:
            self.added += 1
        self.scores[key] = score

    def save(self) -> None:
        """Write every score atomically, if any was added since the last save; best effort."""
        if self.path is None or not self.added:
            return
        lines = []
        for (metric, reference, generated), score in self.scores.items():
            row = {"metric": metric, "reference": reference, "generated": generated}
            lines.append(json.dumps({**row, **score.to_dict()}))
        write_derived(self.path, ("\n".join(lines) + "\n").encode("utf-8"))
        try:
            for other in self.path.parent.glob(f"{_PREFIX}*.jsonl"):
                if other != self.path:
                    other.unlink(missing_ok=True)
        except OSError:
            pass  # an old file left behind is never read: its name holds another fingerprint
        self.added = 0


def _read(path: Path) -> dict[Key, BenchmarkScore]:
    payload = read_derived(path)
    try:
        lines = payload.decode("utf-8").splitlines() if payload else []
    except UnicodeDecodeError:
        return {}
    scores = {}
    for line in lines:
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
    if not all(isinstance(part, str) for part in key) or error is not None:
        return None
    if not all(_is_score(value) for value in values):
        return None
    return key, BenchmarkScore(*values)


def _is_score(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value) and 0.0 <= value <= 1.0
