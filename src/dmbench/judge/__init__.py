"""The judge: a model scores each output against its reference, blind, on weighted criteria.

After the SciDiagBench protocol (``../shared/spec/judge-protocol.md``): per instance the judge
sees the text, a caption and the two diagrams as "Diagram A" and "Diagram B" in one blind form,
in both orders (the first drawn from a seed), and scores both 1-10 per criterion;
S_final = S(D̂) / (S(D̂) + S(D)), averaged over the orders and the judges of a panel.
"""

from dmbench.judge.blind import BlindForm, blind_form
from dmbench.judge.criteria import Criteria, CriteriaError, load_criteria
from dmbench.judge.judging import (
    EMPTY_GENERATED,
    MAX_ATTEMPTS,
    UNREADABLE_GENERATED,
    Instance,
    Judge,
    Judged,
    JudgeOptions,
    judge_in_order,
    judge_instance,
    model_family,
    raw_reply,
    reference_position,
)
from dmbench.judge.pairs import judge_pairs, read_pairs
from dmbench.judge.protocol_scores import ratio, score
from dmbench.judge.runs import list_judge_runs, open_judge_run, run_judgements, targets
from dmbench.judge.spec import JUDGE, JudgeSpec

__all__ = [
    "EMPTY_GENERATED",
    "JUDGE",
    "MAX_ATTEMPTS",
    "UNREADABLE_GENERATED",
    "BlindForm",
    "Criteria",
    "CriteriaError",
    "Instance",
    "Judge",
    "JudgeOptions",
    "JudgeSpec",
    "Judged",
    "blind_form",
    "judge_in_order",
    "judge_instance",
    "judge_pairs",
    "list_judge_runs",
    "load_criteria",
    "model_family",
    "open_judge_run",
    "ratio",
    "raw_reply",
    "read_pairs",
    "reference_position",
    "run_judgements",
    "score",
    "targets",
]
