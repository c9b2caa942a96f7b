"""Candidates: the systems under test, found by name."""

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

__all__ = [
    "CANDIDATES",
    "Candidate",
    "CandidateInfo",
    "CandidateOutput",
    "Record",
    "generate_many",
    "get_candidate",
    "register",
]
