"""The ``dmbench`` command line: thin commands over the library, one module per stage.

Commands are listed here by name, module and one-line summary and imported only when run, so
``dmbench --help`` or ``dmbench parse`` do not pay for pandas, frictionless, NLTK or the LLM
client that other commands need (``tests/cli/test_cli_lazy.py`` holds each summary to its command).
"""

from __future__ import annotations

import os

import click

from dmbench import __version__
from dmbench.cli._group import DmbenchGroup, LazyCommand

# numpy's OpenBLAS keeps a thread per core that spins while it waits for work: on two cores that
# was 1.5 of a warm main job's 9 s of CPU. No dmbench command multiplies a matrix large enough to
# gain from threads. Set for the command's process only (a library user keeps numpy's default);
# a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

LAZY_COMMANDS = (
    LazyCommand("sources", "commands_sources", "Upstream inputs, pinned by commit and sha256."),
    LazyCommand(
        "build",
        "commands_sources",
        "Build the data package from the pinned sources (all or nothing).",
    ),
    LazyCommand(
        "validate",
        "commands_sources",
        "Validate the package (frictionless plus dmbench's own checks); exit 1 if invalid.",
    ),
    LazyCommand(
        "metadata",
        "commands_sources",
        "Rewrite CITATION.cff, codemeta.json and .zenodo.json from dmbench's one metadata source.",
    ),
    LazyCommand(
        "generate",
        "commands_generate",
        "Generate PlantUML with a candidate: new runs in the package, or JSON lines on stdout.",
    ),
    LazyCommand(
        "export-run",
        "commands_bundle",
        "Write a stored run as a checked bundle (zip) that `dmbench import-run` takes.",
    ),
    LazyCommand(
        "import-run",
        "commands_bundle",
        "Check a run bundle against this package, store its run and score it here.",
    ),
    LazyCommand(
        "import-inspect",
        "commands_inspect",
        "Store the runs of `inspect eval dmbench/domain_modelling` logs (LOG...) in the package.",
    ),
    LazyCommand(
        "judge",
        "commands_judge",
        "Score outputs against their reference with a judge model, blind (SciDiagBench protocol).",
    ),
    LazyCommand(
        "leaderboard",
        "commands_judge",
        "The judge leaderboard: candidates ranked per judge by mean S_final, with CIs, rank "
        "intervals, a size-controlled score, paired comparisons, the controls (identity, "
        "detect) and warnings (position bias, flips, failures, self-preference, controls).",
    ),
    LazyCommand(
        "parse",
        "commands_plantuml",
        "Print the model of a PlantUML class diagram as JSON (parsed.jsonl's model shape).",
    ),
    LazyCommand(
        "quirks",
        "commands_quirks",
        "Tabulate what the compat reading loses against the standard one, per dataset/candidate.",
    ),
    LazyCommand(
        "score-pair",
        "commands_metrics",
        "Score GENERATED against REFERENCE (two PlantUML files) and print the scores as JSON.",
    ),
    LazyCommand(
        "score-pairs",
        "commands_metrics",
        "Score many pairs in the benchmark view: a failed pair is 0/0/0 with its error.",
    ),
    LazyCommand(
        "setup",
        "commands_metrics",
        "Download the NLTK data metrik-4 needs (WordNet, stopwords, POS tagger) if missing.",
    ),
    LazyCommand(
        "score",
        "commands_results",
        "Recompute per-record scores from the stored outputs and store them as `recomputed`.",
    ),
    LazyCommand(
        "tables",
        "commands_results",
        "Rebuild Table 1 (the corpora, both readings) and Tables 2-3 (scores per candidate, LLM).",
    ),
    LazyCommand(
        "verify",
        "commands_results",
        "Re-score every published record and re-derive every run summary; exit 1 on a mismatch.",
    ),
    LazyCommand(
        "errata",
        "commands_results",
        "Write the errata: the paper's claims (Table 1, section 3.3's metric study, the best "
        "cells of Tables 2-3) and the scoring facts, measured from data.",
    ),
    LazyCommand(
        "agreement",
        "commands_study",
        "Recompute the study's consistency table (39 human-rated pairs) and check section 3.3.",
    ),
    LazyCommand(
        "render",
        "commands_report",
        "Draw every reference and generated diagram as SVG with PlantUML, in one Java process.",
    ),
    LazyCommand(
        "report",
        "commands_report",
        "Build the report: a static HTML site (index, one page per record, diagrams, plots).",
    ),
    LazyCommand(
        "validity",
        "commands_validity",
        "Count, per series and dataset, the outputs PlantUML rejects, repairs and cannot draw.",
    ),
    LazyCommand(
        "reproduce",
        "commands_reproduce",
        "Fetch what is missing, build, verify the published scores, re-score, tabulate, "
        "validate, and build the HTML report.",
    ),
    LazyCommand(
        "deposit",
        "commands_deposit",
        "Build the Zenodo deposit reproducibly (and, with --upload, upload it as a draft).",
    ),
    LazyCommand(
        "check",
        "commands_deposit",
        "Check a package folder or zip offline: anchor, validate, re-score, recompute Tables 1-3.",
    ),
)


@click.group(cls=DmbenchGroup, lazy_commands=LAZY_COMMANDS)
@click.version_option(__version__, prog_name="dmbench")
def main() -> None:
    """Reproduce, extend and validate the dmbench domain-modelling benchmark."""
