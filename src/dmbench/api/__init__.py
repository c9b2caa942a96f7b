"""dmbench from Python: one object per data package, and the functions a notebook needs most.

The command line is a thin layer over these calls. Tables come back as pandas DataFrames with
the package's own column names and a plain range index, read fresh on every call.

Every name is loaded on first use (PEP 562): ``dmbench parse`` reaches ``parse`` through this
module without paying for pandas, frictionless or the judge, which ``Package`` needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dmbench.api._diagrams import parse, parse_many
    from dmbench.api._package import Package, fetch_sources, quirk_tables
    from dmbench.api._scoring import download_nltk_data, explain_pair, score_many, score_pair
    from dmbench.judge import JUDGE, JudgeOptions
    from dmbench.judge.runs import JudgeRun
    from dmbench.llm.llm_candidate import CUT
    from dmbench.metrics import METRICS
    from dmbench.package.metadata import write_metadata
    from dmbench.package.zenodo import TOKEN_ENV
    from dmbench.plantuml import READINGS
    from dmbench.sources import DEFAULT_BASE_URL
    from dmbench.sources.records import DATASET_CHOICES
    from dmbench.tables import SCORE_SOURCES

#: Where each name lives, imported when first asked for.
_HOMES = {
    "Package": "dmbench.api._package",
    "fetch_sources": "dmbench.api._package",
    "quirk_tables": "dmbench.api._package",
    "write_metadata": "dmbench.package.metadata",
    "parse": "dmbench.api._diagrams",
    "parse_many": "dmbench.api._diagrams",
    "score_pair": "dmbench.api._scoring",
    "explain_pair": "dmbench.api._scoring",
    "score_many": "dmbench.api._scoring",
    "download_nltk_data": "dmbench.api._scoring",
    "JUDGE": "dmbench.judge",
    "JudgeOptions": "dmbench.judge",
    "JudgeRun": "dmbench.judge.runs",
    "CUT": "dmbench.llm.llm_candidate",
    "DATASET_CHOICES": "dmbench.sources.records",
    "DEFAULT_BASE_URL": "dmbench.sources",
    "METRICS": "dmbench.metrics",
    "READINGS": "dmbench.plantuml",
    "SCORE_SOURCES": "dmbench.tables",
    "TOKEN_ENV": "dmbench.package.zenodo",
}

#: The library API: the verbs, and the values and defaults their arguments and results use.
__all__ = [
    "Package",
    "fetch_sources",
    "parse",
    "parse_many",
    "quirk_tables",
    "score_pair",
    "explain_pair",
    "score_many",
    "download_nltk_data",
    "write_metadata",
    "CUT",
    "DATASET_CHOICES",
    "DEFAULT_BASE_URL",
    "JUDGE",
    "JudgeOptions",
    "JudgeRun",
    "METRICS",
    "READINGS",
    "SCORE_SOURCES",
    "TOKEN_ENV",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'dmbench.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
