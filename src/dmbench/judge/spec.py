"""The judge's spec: its criteria file, prompt version and defaults, written in one place.

The command line's and the API's defaults read it (``dmbench.api.JUDGE``), as they read the
candidates' specs for generation; a judge run records the values that took effect.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.judge.criteria import DEFAULT_CRITERIA
from dmbench.judge.judging import JudgeOptions
from dmbench.judge.prompt import PROMPT_VERSION
from dmbench.llm import DEFAULT_TIMEOUT


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    criteria_file: str
    """The criteria shipped with dmbench, used unless a run names its own file."""
    prompt_version: str
    options: JudgeOptions
    """Seed, orders, temperature, num_predict, num_ctx, think: all part of a run's id."""
    timeout: float
    """Seconds a judge call may take in all, retries included."""


JUDGE = JudgeSpec(DEFAULT_CRITERIA, PROMPT_VERSION, JudgeOptions(), DEFAULT_TIMEOUT)
