"""The protocol's scores, as pure functions of the judge's per-criterion integers.

For a diagram X, S(X) = Σ_d W_{d,τ} · Σ_{c∈d} w_c · s_{X,c}; the instance score is
S_final = S(D̂) / (S(D̂) + S(D)), 0.5 when both are 0 (parity). A dimension's ratio and a
criterion's ratio are the same ratio over that part's weighted sums.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dmbench.judge.criteria import Criteria


def ratio(generated: float, reference: float) -> float:
    """generated / (generated + reference); 0.5 when both are 0."""
    total = generated + reference
    return 0.5 if total == 0 else generated / total


@dataclass(frozen=True, slots=True)
class Scored:
    """The protocol's scores of one judgement: both diagrams' weighted sums and S_final."""
    s_generated: float
    s_reference: float
    s_final: float
    dimensions: dict[str, Any]
    """Per dimension: its two weighted sums, their ratio, and per criterion the two integers
    and their ratio."""


def score(
    criteria: Criteria,
    shown: Mapping[str, Mapping[str, Any]],
    reference_shown_as: str,
    diagram_type: str | None,
) -> Scored:
    """Scores of one valid reply: ``shown`` maps criterion id to ``{"A": int, "B": int}``."""
    generated_as = "B" if reference_shown_as == "A" else "A"
    weights = criteria.weights_for(diagram_type)
    dimensions: dict[str, Any] = {}
    s_generated_parts, s_reference_parts = [], []
    for dimension in criteria.dimensions:
        parts: dict[str, Any] = {}
        generated_sum, reference_sum = [], []
        for criterion in dimension.criteria:
            generated = int(shown[criterion.id][generated_as])
            reference = int(shown[criterion.id][reference_shown_as])
            parts[criterion.id] = {
                "generated": generated,
                "reference": reference,
                "ratio": ratio(generated, reference),
            }
            generated_sum.append(criterion.weight * generated)
            reference_sum.append(criterion.weight * reference)
        generated_total, reference_total = math.fsum(generated_sum), math.fsum(reference_sum)
        dimensions[dimension.id] = {
            "s_generated": generated_total,
            "s_reference": reference_total,
            "ratio": ratio(generated_total, reference_total),
            "criteria": parts,
        }
        s_generated_parts.append(weights[dimension.id] * generated_total)
        s_reference_parts.append(weights[dimension.id] * reference_total)
    s_generated, s_reference = math.fsum(s_generated_parts), math.fsum(s_reference_parts)
    return Scored(s_generated, s_reference, ratio(s_generated, s_reference), dimensions)
