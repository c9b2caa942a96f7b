"""The paper's tables rebuilt from the package: Table 1 (the corpora), Tables 2-3 (the scores)."""

from dmbench.tables.results import SCORE_SOURCES, ResultRow, RunSummary, results_tables

__all__ = ["SCORE_SOURCES", "ResultRow", "RunSummary", "results_tables"]
