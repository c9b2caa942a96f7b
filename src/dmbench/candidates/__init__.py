"""Candidates: the systems under test, found by name."""

from dmbench.candidates import rule_based as _rule_based  # noqa: F401  (registers)
from dmbench.candidates.base import (
    CANDIDATES,
    Candidate,
    CandidateInfo,
    CandidateOutput,
    Record,
    generate_many,
    get_candidate,
    register,
)
from dmbench.candidates.calamo import Calamo
from dmbench.candidates.chen import Chen

__all__ = [
    "CANDIDATES",
    "Calamo",
    "Candidate",
    "CandidateInfo",
    "CandidateOutput",
    "Chen",
    "Record",
    "generate_many",
    "get_candidate",
    "register",
]
