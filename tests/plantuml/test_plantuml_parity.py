"""Golden parity: ``compat`` against upstream's strict parser, the validator against upstream's.

The expected files are ``../shared/golden/parsed.jsonl`` and ``validator.jsonl``, produced by
running the unmodified upstream code (see ``../shared/golden/README.md``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import read_jsonl

from dmbench.plantuml import ParseError, parse, validate
from dmbench.sources.published import (
    output_rows,
    reference_rows,
    run_references,
    study_texts,
)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@pytest.fixture(scope="module")
def texts_by_sha(upstream_dir: Path) -> dict[str, str]:
    texts = [row.text for row in reference_rows(upstream_dir)]
    texts += [row.text for row in output_rows(upstream_dir)]
    texts += list(run_references(upstream_dir)) + list(study_texts(upstream_dir))
    return {_sha(text): text for text in texts}


def _compat_outcome(text: str) -> dict:
    try:
        diagram = parse(text, "compat")
    except ParseError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "model": diagram.to_dict(), "valid": diagram.is_valid()}


def _expected(strict: dict) -> dict:
    if not strict["ok"]:
        return {"ok": False, "error": strict["error"]}
    return {"ok": True, "model": strict["model"], "valid": strict["isValidParsedModel"]}


class TestCompatParity:
    def test_every_golden_string_reads_as_upstream(self, golden_dir, texts_by_sha):
        """All 839 strings: same model, same error, same isValidParsedModel verdict."""
        rows = read_jsonl(golden_dir / "parsed.jsonl")
        assert len(rows) == 839
        mismatched = [
            row["sources"][0]
            for row in rows
            if _compat_outcome(texts_by_sha[row["sha256"]]) != _expected(row["strict"])
        ]
        assert mismatched == []

    def test_golden_covers_errors_and_invalid_models(self, golden_dir):
        """The walk above is meaningful: it includes the empty-string error and invalid models."""
        rows = read_jsonl(golden_dir / "parsed.jsonl")
        assert sum(not r["strict"]["ok"] for r in rows) == 1
        assert sum(r["strict"]["ok"] and not r["strict"]["isValidParsedModel"] for r in rows) == 28


class TestValidatorParity:
    def test_every_golden_input_validates_as_upstream(self, golden_dir):
        """All 810 inputs: same verdict, same repaired text, same error list."""
        rows = read_jsonl(golden_dir / "validator.jsonl")
        assert len(rows) == 810
        mismatched = []
        for row in rows:
            result = validate(row["input"])
            if (result.ok, result.repaired, result.errors) != (
                row["ok"],
                row["repaired"],
                row["errors"],
            ):
                mismatched.append(row["sources"][0])
        assert mismatched == []
