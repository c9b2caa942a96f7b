"""The ``rule_based`` candidate (spec section A); importing this module registers it."""

from __future__ import annotations

from dmbench.candidates.base import CandidateSpec, register
from dmbench.candidates.rule_based.candidate import RuleBasedCandidate

__all__ = ["SPEC", "RuleBasedCandidate"]

SPEC = register(
    CandidateSpec(
        name=RuleBasedCandidate.name,
        order=1,
        upstream_name="rule_based",
        uses_llm=False,
        description="spaCy heuristics after Abdelnabi et al. 2020",
        factory=RuleBasedCandidate,
    )
)
