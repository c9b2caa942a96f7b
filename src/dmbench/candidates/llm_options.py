"""How the command line offers the generation options both LLM candidates take (their specs
hold these docs beside upstream's defaults, ``llm.llm_candidate.UPSTREAM_OPTIONS``)."""

from __future__ import annotations

from dmbench.candidates.base import OptionDoc
from dmbench.llm.llm_candidate import CUT

LLM_OPTION_DOCS = {
    "temperature": OptionDoc("LLM sampling temperature", float),
    "num_predict": OptionDoc("Most tokens an LLM reply may have", int, minimum=-2),
    "seed": OptionDoc("LLM sampling seed", int),
    "top_p": OptionDoc("LLM top_p", float),
    "top_k": OptionDoc("LLM top_k", int),
    "repeat_penalty": OptionDoc("LLM repeat_penalty", float),
    "timeout": OptionDoc(
        "Seconds an LLM call may take in all, retries included, or a --command may take per "
        "record",
        float,
        minimum=0,
        minimum_open=True,
    ),
    "think": OptionDoc("Let a thinking model think before answering", bool),
}

TRUNCATE_DOC = OptionDoc(
    f"--no-truncate is a deviation (recorded): do not cut LLM replies to {CUT} characters as "
    "upstream did",
    bool,
)
