"""The ``rule_based`` candidate (spec section A); importing this module registers it."""

from __future__ import annotations

from dmbench.candidates.base import register
from dmbench.candidates.rule_based.candidate import RuleBasedCandidate

__all__ = ["RuleBasedCandidate"]


@register("rule_based")
def _build(batch_size: int = 32, **llm_settings: object) -> RuleBasedCandidate:
    """LLM settings (model, host, ...) do not apply to a rule-based system; upstream ignored them."""
    return RuleBasedCandidate(batch_size=batch_size)
