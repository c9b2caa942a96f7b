"""The standard reading against PlantUML itself, on every diagram of the package and the corpus.

PlantUML's own model of each diagram comes from the pinned jar, run once for all of them in one
JVM (``oracle_support``). For a diagram PlantUML accepts, the reading must find the same classes
with the same kinds, the same relationships (unordered ends, the multiplicity at each end) and,
per class, the same attribute lines, methods and separators left out as PlantUML leaves them out;
a diagram PlantUML rejects must be refused or read through a named repair (the report's).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle_support import disagreements, plantuml_comparable, plantuml_models, reading_comparable

from dmbench.core.hashing import sha256_text
from dmbench.errors import ParseError
from dmbench.plantuml import parse
from dmbench.sources.published import output_rows, reference_rows

pytestmark = pytest.mark.needs_shared



def _verdicts(texts: dict[str, str]) -> dict[str, str]:
    """Per text: ``agree``, ``refused``, ``repaired`` or what the two models say differently."""
    models = plantuml_models(list(texts.values()))
    verdicts = {}
    for key, text in texts.items():
        model = models[sha256_text(text)]
        verdicts[key] = f"{model['verdict']}/{_verdict(model, text)}"
    return verdicts


def _verdict(model: dict, text: str) -> str:
    try:
        diagram = parse(text, "standard")
    except ParseError:
        return "refused"
    empty = model["verdict"] == "rejected" and model["error"].startswith("Empty description")
    if model["verdict"] == "rejected" and not empty:
        return "repaired" if diagram.repairs else "read what PlantUML rejects"
    if diagram.repairs:
        return f"repaired what PlantUML accepts: {diagram.repairs}"
    found = disagreements(plantuml_comparable(model), reading_comparable(diagram))
    return "; ".join(found) or "agree"


@pytest.fixture(scope="module")
def package_verdicts(upstream_dir: Path) -> dict[str, str]:
    rows = [*reference_rows(upstream_dir), *output_rows(upstream_dir)]
    return _verdicts({sha256_text(r.text): r.text for r in rows if r.text and r.text.strip()})


@pytest.fixture(scope="module")
def corpus_verdicts(shared_dir: Path) -> dict[str, str]:
    files = sorted((shared_dir / "plantuml-corpus").glob("*.puml"))
    return _verdicts({f.name: f.read_text("utf-8", errors="replace") for f in files})


def test_the_package_is_read_as_plantuml_reads_it(package_verdicts) -> None:
    """All 791 distinct diagrams: the 421 PlantUML accepts agree on every point, unrepaired, and
    so does the empty one it calls an "Empty description" (no class at all); the 369 it rejects
    (an empty multiplicity "") are read through that named repair."""
    counts: dict[str, int] = {}
    for verdict in package_verdicts.values():
        counts[verdict] = counts.get(verdict, 0) + 1
    assert counts == {"accepted/agree": 421, "rejected/agree": 1, "rejected/repaired": 369}


def test_the_corpus_is_read_as_plantuml_reads_it(corpus_verdicts) -> None:
    """270 human-written diagrams: PlantUML rejects 6, which the reading refuses too; of the 264
    it accepts, the reading agrees on every point on all (238 did before packages became
    namespaces, ``//`` member text, the elements of other diagrams and names in parentheses
    were read as PlantUML reads them)."""
    rejected = {k: v for k, v in corpus_verdicts.items() if v.startswith("rejected")}
    assert set(rejected.values()) <= {"rejected/refused", "rejected/repaired"}
    assert len(rejected) == 6
    parted = {k: v for k, v in corpus_verdicts.items() if k not in rejected and v != "accepted/agree"}
    assert parted == {}
    assert len(corpus_verdicts) - len(rejected) == 264
