"""Scoring facts of the published runs that Tables 2-3 do not show, each counted from the package.

A reader of the score tables needs to know that a record the validator rejected was still scored
from its repaired diagram, that some records score 0 because metrik-4 rejected the diagram while
the candidate reported success, how many attributes metrik-4's parser silently drops from what
the candidates wrote, and what the Chen candidate's 2000-character cuts did and what of that the
artifacts can show. Counts are per (candidate, LLM, dataset) over the published runs (all three
run indices summed), with the canonical runs marked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from dmbench.candidates import CANDIDATES
from dmbench.candidates.chen import NO_PUML as CHEN_NO_PUML
from dmbench.metrics import EMPTY_GENERATED_MODEL, PUBLISHED_METRIC
from dmbench.plantuml import READINGS, ParseError, parse
from dmbench.runs.opened import PackageSource, open_package
from dmbench.runs.scores import ScoreRow
from dmbench.runs.store import OutputRow, RunInfo
from dmbench.tables.results import is_rejection

NEAR_LIMIT = 1900
REFERENCES = "references"


@dataclass(frozen=True, slots=True)
class Scored:
    """One output with its run and score, the unit the scoring facts are counted over."""
    info: RunInfo
    output: OutputRow
    score: ScoreRow


def published_records(package: PackageSource) -> Iterator[Scored]:
    """Every output of every published run with its published metrik-4 score."""
    for run in open_package(package).runs():
        if run.info.origin != "published":
            continue
        scores = {
            s.record_id: s
            for s in run.scores()
            if s.metric == PUBLISHED_METRIC and s.origin == "published"
        }
        for output in run.outputs():
            yield Scored(run.info, output, scores[output.record_id])


@dataclass(slots=True)
class GroupFacts:
    """How one series' outputs on a dataset failed and were scored, for the errata's
    scoring facts."""
    candidate: str
    model: str | None
    dataset: str
    canonical: bool
    records: int = 0
    failed: int = 0
    failed_with_diagram: int = 0
    failed_scored_normally: int = 0
    failed_scored_above_zero: int = 0
    empty: int = 0
    rejected: int = 0
    rejected_not_failed: int = 0
    attributes_standard: int = 0
    attributes_compat: int = 0
    unparsable: dict[str, int] = field(default_factory=lambda: dict.fromkeys(READINGS, 0))
    longest_output: int = 0
    outputs_near_limit: int = 0
    no_puml: int = 0

    @property
    def attributes_dropped(self) -> int:
        return self.attributes_standard - self.attributes_compat

    @property
    def dropped_pct(self) -> float | None:
        if not self.attributes_standard:
            return None
        return 100.0 * self.attributes_dropped / self.attributes_standard


def attribute_count(text: str, reading: str) -> int | None:
    """Attributes of the declared classes of ``text``, or None when it does not parse."""
    try:
        diagram = parse(text, reading)
    except ParseError:
        return None
    return sum(len(c.attributes) for c in diagram.classes)


def _add_attributes(group: GroupFacts, text: str) -> None:
    counts = {reading: attribute_count(text, reading) for reading in READINGS}
    for reading, count in counts.items():
        if count is None:
            group.unparsable[reading] += 1
    compat, standard = counts["compat"], counts["standard"]
    if compat is not None and standard is not None:
        group.attributes_compat += compat
        group.attributes_standard += standard


@dataclass(frozen=True, slots=True)
class ScoringFacts:
    """The scoring facts over every series and the references, summed as the errata state them."""
    groups: tuple[GroupFacts, ...]
    references: tuple[GroupFacts, ...]
    runs: int
    canonical_runs: int

    def total(self, name: str, canonical_only: bool = False) -> int:
        return sum(getattr(g, name) for g in self.groups if g.canonical or not canonical_only)


def scoring_facts(package: PackageSource) -> ScoringFacts:
    """What the errata's scoring facts count, per (candidate, model, dataset) and for the
    references."""
    opened = open_package(package)
    groups: dict[tuple, GroupFacts] = {}
    runs: dict[str, bool] = {}
    for item in published_records(opened):
        info, output, score = item.info, item.output, item.score
        runs[info.run_id] = info.canonical
        key = (info.candidate, info.model, info.dataset)
        group = groups.setdefault(key, GroupFacts(*key, canonical=info.canonical))
        group.records += 1
        has_diagram = bool(output.generated.strip())
        if output.failed:
            group.failed += 1
            group.failed_with_diagram += has_diagram
            group.failed_scored_normally += has_diagram and score.error is None
            group.failed_scored_above_zero += has_diagram and score.class_score > 0
        group.empty += score.error == EMPTY_GENERATED_MODEL
        if is_rejection(score):
            group.rejected += 1
            group.rejected_not_failed += not output.failed
        if has_diagram:
            _add_attributes(group, output.generated)
        group.longest_output = max(group.longest_output, len(output.generated))
        group.outputs_near_limit += len(output.generated) >= NEAR_LIMIT
        group.no_puml += output.error == CHEN_NO_PUML
    references: dict[str, GroupFacts] = {}
    for record in opened.records():
        group = references.setdefault(
            record.dataset, GroupFacts(REFERENCES, None, record.dataset, canonical=True)
        )
        group.records += 1
        _add_attributes(group, record.reference)
    order = {name: index for index, name in enumerate(CANDIDATES)}
    ordered = sorted(
        groups.values(),
        key=lambda g: (not g.canonical, order.get(g.candidate, 9), g.model or "", g.dataset),
    )
    return ScoringFacts(
        tuple(ordered), tuple(references.values()), len(runs), sum(runs.values())
    )
