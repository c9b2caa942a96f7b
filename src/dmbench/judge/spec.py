"""The judge's spec: its criteria file, prompt version, defaults and choices, written in one place.

The command line's and the API's defaults read it (``dmbench.api.JUDGE``), as they read the
candidates' specs for generation; a judge run records the values that took effect.
"""

from __future__ import annotations

from dataclasses import dataclass

from dmbench.errors import OptionError
from dmbench.judge.criteria import DEFAULT_CRITERIA
from dmbench.judge.judging import JudgeOptions
from dmbench.judge.prompt import PROMPT_VERSION
from dmbench.judge.runs import CONTROLS
from dmbench.judge.views import VIEWS
from dmbench.llm import DEFAULT_TIMEOUT


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    """The judge's fixed facts and defaults in one value, read by the command line, the API
    and a judge run's record alike."""
    criteria_file: str
    """The criteria shipped with dmbench, used unless a run names its own file."""
    prompt_version: str
    options: JudgeOptions
    """Seed, orders, temperature, num_predict, num_ctx, think: all part of a run's id."""
    timeout: float
    """Seconds a judge call may take in all, retries included."""
    controls: tuple[str, ...] = CONTROLS
    """The control runs a judge can be put through (``identity``, ``detect``)."""
    views: tuple[str, ...] = VIEWS
    """How the judge sees the diagrams (``text``, ``image``)."""

    def chosen_mode(self, **given: bool) -> str:
        """The one mode given (option names without ``--``, ``_`` for ``-``), else the error
        naming them all: the command line's four and the library's three say it alike."""
        named = [f"--{name.replace('_', '-')}" for name in given]
        chosen = [option for option, on in zip(named, given.values(), strict=True) if on]
        if len(chosen) != 1:
            listed = f"{', '.join(named[:-1])} and {named[-1]}"
            raise OptionError(f"give exactly one of {listed}")
        return chosen[0]


JUDGE = JudgeSpec(DEFAULT_CRITERIA, PROMPT_VERSION, JudgeOptions(), DEFAULT_TIMEOUT)
