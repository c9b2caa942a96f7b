"""The ``rule_based`` candidate (spec section A); importing this module registers it."""

from __future__ import annotations

from dmbench.candidates.base import register
from dmbench.candidates.rule_based.candidate import RuleBasedCandidate

__all__ = ["RuleBasedCandidate"]

register("rule_based")(RuleBasedCandidate)
