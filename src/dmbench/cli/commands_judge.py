"""``dmbench judge`` and ``dmbench leaderboard``: the judge model's view beside metrik-4."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import IO

import click

from dmbench import paths
from dmbench.cli._options import elapsed, package_option, sources_option
from dmbench.cli.commands_generate import ProgressBar
from dmbench.errors import PackageError
from dmbench.judge import (
    Instance,
    Judge,
    JudgeOptions,
    judge_pairs,
    load_criteria,
    model_family,
    read_pairs,
)
from dmbench.judge.judging import DEFAULT_NUM_CTX, DEFAULT_NUM_PREDICT
from dmbench.judge.runs import CONTROLS, JudgeRun, select_judged_runs
from dmbench.llm import CACHE_DIR, DEFAULT_TIMEOUT, OllamaChat, ResponseCache
from dmbench.runs.store import Run
from dmbench.tables.leaderboard import judge_leaderboard, write_leaderboard
from dmbench.workflows import judge_stored_runs, judge_study


def _split(values: tuple[str, ...]) -> list[str]:
    return [item for value in values for item in value.replace(",", " ").split()]


@click.command()
@click.option(
    "--pairs",
    "pairs_file",
    type=click.File("rb"),
    default=None,
    help='Your own pairs: JSON lines {"id", "text", "reference", "generated"} (+ "type", '
    '"caption"; - for stdin); prints one result line per pair, in input order.',
)
@click.option(
    "--runs",
    "run_ids",
    multiple=True,
    metavar="RUN_ID",
    help="Judge the outputs of these stored runs (repeat or separate by commas); the judge run "
    "is stored in the package.",
)
@click.option("--canonical", is_flag=True, help="Judge every canonical (published) run.")
@click.option(
    "--study",
    is_flag=True,
    help="Judge the metric study's 39 human-rated pairs into a study run in the package; "
    "`dmbench agreement` then has the judge's rows beside metrik-4.",
)
@sources_option
@click.option(
    "--model",
    "models",
    multiple=True,
    required=True,
    help="Judge model (Ollama); repeat for a panel, whose S_final is averaged over judges.",
)
@click.option(
    "--host",
    "hosts",
    multiple=True,
    help="Ollama server URL; repeat for several (default: $OLLAMA_HOST, else localhost:11434).",
)
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seeds the per-instance order (and the judge's sampling).")
@click.option("--single-order", is_flag=True,
              help="Judge each instance in its drawn order only (half the calls; position bias "
              "is then neither measured nor averaged out). Default: both orders, averaged.")
@click.option(
    "--control",
    type=click.Choice(CONTROLS),
    default=None,
    help="identity: judge each reference against itself (S_final should be 0.5).",
)
@click.option("--criteria", "criteria_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="Criteria file (default: dmbench's criteria-v1.json).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Instances judged at once, spread over the hosts.")
@click.option("--offline", is_flag=True,
              help="Replay judge replies from the cache only; fail on one it does not hold.")
@click.option("--think/--no-think", default=False, show_default=True,
              help="Let a thinking judge think before answering.")
@click.option("--num-predict", type=click.IntRange(min=1), default=DEFAULT_NUM_PREDICT,
              show_default=True, help="Most tokens a judge reply may have.")
@click.option("--num-ctx", type=click.IntRange(min=512), default=DEFAULT_NUM_CTX,
              show_default=True,
              help="Smallest context window; raised per call when both diagrams need more.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
              show_default=True, help="Seconds a judge call may take in all, retries included.")
@click.option("--retry-failed", is_flag=True,
              help="Resuming a stored judge run: ask again about the instances that failed.")
@click.option("--quiet", is_flag=True,
              help="No progress bar (it is drawn only when stderr is a terminal).")
@package_option
def judge(
    pairs_file: IO[str] | None,
    run_ids: tuple[str, ...],
    canonical: bool,
    study: bool,
    sources_dir: Path | None,
    models: tuple[str, ...],
    hosts: tuple[str, ...],
    seed: int,
    single_order: bool,
    control: str | None,
    criteria_file: Path | None,
    workers: int,
    offline: bool,
    think: bool,
    num_predict: int,
    num_ctx: int,
    timeout: float,
    retry_failed: bool,
    quiet: bool,
    package_dir: Path | None,
) -> None:
    """Score outputs against their reference with a judge model, blind (SciDiagBench protocol).

    Each instance shows the text, a caption and the two diagrams as Diagram A and Diagram B
    (one blind form), in both orders; the judge scores both 1-10 per criterion and
    S_final = S(output) / (S(output) + S(reference)), averaged over the orders.
    """
    chosen = [name for name, given in (("--pairs", pairs_file is not None),
                                       ("--runs", bool(run_ids)), ("--canonical", canonical),
                                       ("--study", study))
              if given]  # fmt: skip
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --pairs, --runs, --canonical and --study")
    if len(set(models)) != len(models):
        raise click.UsageError("a --model is given twice")
    package = paths.package_dir(package_dir)
    criteria = load_criteria(criteria_file)
    options = JudgeOptions(seed, not single_order, 0.0, num_predict, num_ctx, think)
    cache = ResponseCache(package / CACHE_DIR)
    judges = [
        Judge(OllamaChat(m, hosts=hosts, timeout=timeout, think=think, cache=cache,
                         offline=offline), criteria, options)
        for m in models
    ]
    started = time.perf_counter()
    if pairs_file is not None:
        if quiet or retry_failed:
            raise click.UsageError(
                "--quiet and --retry-failed are for stored judge runs (--runs, --canonical, "
                "--study)"
            )
        instances = read_pairs(pairs_file, source=getattr(pairs_file, "name", "<stdin>"))
        if control == "identity":
            instances = [_identity(i) for i in instances]
        _check_judges(judges)
        for line in judge_pairs(judges, instances, workers):
            click.echo(json.dumps(line, ensure_ascii=False))
        return
    runs = [] if study else select_judged_runs(package, _split(run_ids), canonical)
    _warn_self_preference(models, runs)
    bar = None if quiet or not sys.stderr.isatty() else ProgressBar()

    def on_start(run: JudgeRun, total: int) -> None:
        if bar is not None:
            stored = run.rows()
            bar.start_run(run.run_id, total, len(stored), sum(r["failed"] for r in stored))

    on_row = None if bar is None else (lambda row: bar(SimpleNamespace(failed=row["failed"])))
    try:
        if study:
            sources = sources_dir or paths.default_sources_dir(package)
            run = judge_study(
                package, judges, criteria, options, sources, control, workers, on_start,
                on_row, retry_failed,
            )
        else:
            run = judge_stored_runs(
                package, judges, criteria, options, runs, control, workers, on_start, on_row,
                retry_failed,
            )
    finally:
        if bar is not None:
            bar.close()
    totals = run.info["totals"]
    click.echo(
        f"{run.run_id}: {totals['n_instances']} instances, {totals['n_failed']} failed, "
        f"{totals['n_empty_generated']} empty, {totals['n_unreadable_generated']} unreadable "
        f"({run.path}) ({elapsed(started)})"
    )
    if study:
        click.echo("its rows against the experts' F1: `dmbench agreement` (judge:<model>)")


def _check_judges(judges: list[Judge]) -> None:
    """Every judge answers (or, offline, the cache knows it) before any instance is sent."""
    for one in judges:
        one.chat.server_info()


def _identity(instance: Instance) -> Instance:
    return Instance(instance.id, instance.text, instance.reference, instance.reference,
                    instance.type, instance.caption)


def _warn_self_preference(models: tuple[str, ...], runs: list[Run]) -> None:
    families = {model_family(m): m for m in models}
    for llm in sorted({run.info.model for run in runs if run.info.model}):
        judge_model = families.get(model_family(llm))
        if judge_model:
            click.echo(
                f"dmbench: warning: judge {judge_model} shares the model family "
                f"{model_family(llm)!r} with {llm}; it may prefer its own family's outputs",
                err=True,
            )


@click.command()
@click.option("--judge", "judge_run_id", default=None, metavar="RUN_ID",
              help="One judge run (default: every judge run in the package).")
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "json"]), default="md",
              show_default=True,
              help='md or csv: write leaderboard.md / .csv to --out; json: print {"rows", '
              '"comparisons", "warnings"}.')
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Directory for leaderboard.md / leaderboard.csv.")
@package_option
def leaderboard(judge_run_id: str | None, fmt: str, out: Path, package_dir: Path | None) -> None:
    """The judge leaderboard: candidates ranked per judge by mean S_final, with CIs, paired
    comparisons and warnings (position bias, flips, failures, self-preference, controls)."""
    started = time.perf_counter()
    board = judge_leaderboard(paths.package_dir(package_dir), judge_run_id)
    if not board["rows"]:
        raise PackageError("no judge runs in the package; run `dmbench judge --runs ...` first")
    if fmt == "json":
        click.echo(json.dumps(board, indent=2, ensure_ascii=False))
        return
    path = write_leaderboard(board, out, fmt)
    click.echo(f"wrote {path} ({elapsed(started)})")


COMMANDS = [judge, leaderboard]
