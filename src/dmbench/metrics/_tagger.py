"""NLTK's English averaged perceptron tagger, its model read from dmbench's derived cache.

NLTK's loader scans each model file byte by byte in Python before parsing it (bounds for
untrusted models), and even plain ``json.loads`` of the 5.7 MB of weights builds 75,000 dicts
and 270,000 floats (0.17 s in a fresh process) of which tagging one pair's identifiers reads a
few hundred. So the model files are parsed once and kept as a derived file: the tag dictionary
and classes as they are, the weights as a blob holding each feature's weights as ``marshal``
data, decoded when the tagger first asks for that feature (:class:`LazyWeights`). The file is
keyed by the model files' pinned sha256 (scoring checks the files against their pins before it
tags) and by marshal's format version.
"""

from __future__ import annotations

import json
import marshal
from collections.abc import Iterator, Mapping
from pathlib import Path

from dmbench.core.derived import read_derived, write_derived
from dmbench.core.hashing import sha256_text
from dmbench.core.paths import derived_cache_dir
from dmbench.metrics.nltk_data import RESOURCES
from dmbench.metrics.nltk_pins import NLTK_PINS

_RESOURCE = RESOURCES["averaged_perceptron_tagger_eng"]
#: Bumped when the derived file's layout changes.
_LAYOUT = 1


class LazyWeights(Mapping):
    """The perceptron's weights (feature -> class -> weight), each feature decoded on first use.

    ``starts`` maps each feature to the position of its weights' marshal data in ``blob``.
    """

    def __init__(self, starts: dict[str, int], blob: bytes) -> None:
        self._starts = starts
        self._blob = memoryview(blob)
        self._decoded: dict[str, dict[str, float]] = {}

    def __getitem__(self, feature: str) -> dict[str, float]:
        weights = self._decoded.get(feature)
        if weights is None:
            weights = marshal.loads(self._blob[self._starts[feature] :])  # stops at its end
            self._decoded[feature] = weights
        return weights

    def __contains__(self, feature: object) -> bool:
        return feature in self._starts

    def __iter__(self) -> Iterator[str]:
        return iter(self._starts)

    def __len__(self) -> int:
        return len(self._starts)


def perceptron_tagger(cache_dir: Path | None = None):
    """NLTK's ``PerceptronTagger()`` for English, with the model NLTK's files hold."""
    from nltk.tag.perceptron import PerceptronTagger

    tagger = PerceptronTagger(load=False)
    names = tagger.param_files("eng")
    folder = cache_dir or derived_cache_dir()
    cached = folder / f"perceptron-tagger-eng-{_key(names)}.marshal" if folder else None
    payload = read_derived(cached) if cached else None
    if payload is None:
        payload = _derive(names)
        if cached:
            write_derived(cached, payload)
    tagdict, classes, starts, blob = marshal.loads(payload)
    tagger.decode_json_params((LazyWeights(starts, blob), tagdict, classes))
    return tagger


def _key(names: tuple[str, ...]) -> str:
    inputs = [_LAYOUT, marshal.version, *(NLTK_PINS[f"{_RESOURCE}/{name}"] for name in names)]
    return sha256_text(json.dumps(inputs))


def _derive(names: tuple[str, ...]) -> bytes:
    """The derived file's payload from the model files (weights, tag dictionary, classes)."""
    from nltk.data import find

    folder = find(f"{_RESOURCE}/")
    parsed = []
    for name in names:
        with folder.join(name).open() as stream:
            parsed.append(json.loads(stream.read()))
    weights, tagdict, classes = parsed
    starts: dict[str, int] = {}
    parts: list[bytes] = []
    position = 0
    for feature, feature_weights in weights.items():
        starts[feature] = position
        parts.append(marshal.dumps(feature_weights))
        position += len(parts[-1])
    return marshal.dumps((tagdict, classes, starts, b"".join(parts)))
