"""The ``rule_based`` candidate: batching, timing and failure handling around the heuristics."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from dmbench.candidates.base import CandidateOutput, Record
from dmbench.candidates.rule_based.emit import postprocess, raw_plantuml
from dmbench.candidates.rule_based.pipeline import Relations, extract, preprocess
from dmbench.candidates.rule_based.spacy_model import (
    MISSING_HINT,
    MODEL_PACKAGES,
    UPSTREAM_MISSING_ERROR,
    LoadedModel,
    load_model,
)

PLURAL_TAGS = frozenset({"NNS", "NNPS"})
PAIR_ORDER = "first-seen"
"""How lines inside one verb's subject x object product are ordered (see ``pipeline``)."""


class RuleBasedCandidate:
    """spaCy heuristics after Abdelnabi et al. 2020, reproducing the upstream benchmark's baseline.

    Records are parsed with ``nlp.pipe`` in batches; the cardinality of a class name comes from
    tagging the lower-cased word alone, which depends only on the word, so it is cached for the
    life of the candidate.
    """

    name = "rule_based"

    def __init__(self, batch_size: int = 32, packages: Sequence[str] = MODEL_PACKAGES) -> None:
        self.batch_size = batch_size
        self.packages = tuple(packages)
        self._cardinalities: dict[str, str] = {}

    @property
    def model(self) -> LoadedModel | None:
        return load_model(self.packages)

    def check(self) -> str | None:
        """Why this candidate cannot run here (one sentence with the fix), or None."""
        return MISSING_HINT if self.model is None else None

    def describe(self) -> dict[str, Any]:
        model = self.model
        provenance = model.provenance() if model is not None else {"spacy_model": None}
        return {
            "settings": {"uses_llm": False, "model": None, "pair_order": PAIR_ORDER},
            "provenance": provenance,
        }

    def generate(self, record: Record) -> CandidateOutput:
        return next(self.generate_many([record]))

    def generate_many(self, records: Iterable[Record]) -> Iterator[CandidateOutput]:
        """Outputs in record order; a record's time includes its share of the batch's parsing."""
        model = self.model
        iterator = iter(records)
        while batch := list(islice(iterator, self.batch_size)):
            if model is None:
                yield from (
                    CandidateOutput(generated="", failed=True, error=UPSTREAM_MISSING_ERROR)
                    for _ in batch
                )
            else:
                yield from self._batch(model, batch)

    def _batch(self, model: LoadedModel, batch: list[Record]) -> Iterator[CandidateOutput]:
        started = time.perf_counter()
        texts = [preprocess(record.text) for record in batch]
        try:
            docs: list[Any] = list(model.nlp.pipe(texts))
        except Exception:  # noqa: BLE001 - find the record that breaks the parser below
            docs = [None] * len(batch)
        shared = (time.perf_counter() - started) / len(batch)
        for record, text, doc in zip(batch, texts, docs, strict=True):
            own = time.perf_counter()
            output = self._one(model, record, text, doc)
            elapsed = round(shared + time.perf_counter() - own, 3)
            yield CandidateOutput(
                generated=output.generated,
                failed=output.failed,
                error=output.error,
                raw=output.raw,
                elapsed_seconds=elapsed,
            )

    def _one(self, model: LoadedModel, record: Record, text: str, doc: Any) -> CandidateOutput:
        """Any exception fails this record only, with upstream's ``exception: Class: message``."""
        try:
            relations = extract(doc if doc is not None else model.nlp(text))
            self._tag(model, relations)
            raw = raw_plantuml(relations, self.cardinality, seed=record.text)
            return CandidateOutput(generated=postprocess(raw), failed=False, raw=raw)
        except Exception as exc:  # noqa: BLE001 - per-record failures are data
            return CandidateOutput(
                generated="", failed=True, error=f"exception: {type(exc).__name__}: {exc}"
            )

    def _tag(self, model: LoadedModel, relations: Relations) -> None:
        """A.6: ``1..*`` when the lower-cased name, tagged alone, is a plural noun; else ``1``."""
        words = sorted({name.lower() for name in relations.names()} - self._cardinalities.keys())
        for word, doc in zip(words, model.nlp.pipe(words), strict=True):
            plural = any(token.tag_ in PLURAL_TAGS for token in doc)
            self._cardinalities[word] = "1..*" if plural else "1"

    def cardinality(self, name: str) -> str:
        return self._cardinalities[name.lower()]
