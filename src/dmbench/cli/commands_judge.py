"""``dmbench judge`` and ``dmbench leaderboard``: the judge model's view beside metrik-4."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import IO, Any

import click

from dmbench.api import JUDGE, JudgeOptions, JudgeRun, Package
from dmbench.cli._options import elapsed, package_option, sources_option, split_ids
from dmbench.cli.commands_generate import ProgressBar
from dmbench.errors import OptionError


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
@click.option("--seed", type=int, default=JUDGE.options.seed, show_default=True,
              help="Seeds the per-instance order (and the judge's sampling).")
@click.option("--single-order", is_flag=True,
              help="Judge each instance in its drawn order only (half the calls; position bias "
              "is then neither measured nor averaged out). Default: both orders, averaged.")
@click.option(
    "--control",
    type=click.Choice(JUDGE.controls),
    default=None,
    help="identity: judge each reference against itself (S_final 0.5, and A − B 0 per "
    "criterion); detect: ask which of output and reference a person drew (chance is 0.5).",
)
@click.option("--view", type=click.Choice(JUDGE.views), default=JUDGE.options.view, show_default=True,
              help="text: the judge reads both diagrams' blind form; image: it sees both drawn "
              "by the pinned PlantUML (Ollama chat images; a vision model), no source in the "
              "prompt.")
@click.option("--criteria", "criteria_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help=f"Criteria file (default: dmbench's {JUDGE.criteria_file}).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Instances judged at once, spread over the hosts.")
@click.option("--offline", is_flag=True,
              help="Replay judge replies from the cache only; fail on one it does not hold.")
@click.option("--think/--no-think", default=JUDGE.options.think, show_default=True,
              help="Let a thinking judge think before answering.")
@click.option("--num-predict", type=click.IntRange(min=1), default=JUDGE.options.num_predict,
              show_default=True, help="Most tokens a judge reply may have.")
@click.option("--num-ctx", type=click.IntRange(min=512), default=JUDGE.options.num_ctx,
              show_default=True,
              help="Smallest context window; raised per call when both diagrams need more.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=JUDGE.timeout,
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
    view: str,
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
    package = Package(package_dir)
    settings: dict[str, Any] = dict(
        hosts=hosts,
        options=JudgeOptions(
            seed, not single_order, JUDGE.options.temperature, num_predict, num_ctx, think, view
        ),
        criteria=criteria_file,
        control=control,
        workers=workers,
        timeout=timeout,
        offline=offline,
    )
    started = time.perf_counter()
    try:
        JUDGE.chosen_mode(pairs=pairs_file is not None, runs=bool(run_ids), canonical=canonical,
                          study=study)  # fmt: skip
        if pairs_file is not None:
            if quiet or retry_failed:
                raise click.UsageError(
                    "--quiet and --retry-failed are for stored judge runs (--runs, --canonical, "
                    "--study)"
                )
            source = getattr(pairs_file, "name", "<stdin>")
            for line in package.judge_pairs(models, pairs_file, source, **settings):
                click.echo(json.dumps(line, ensure_ascii=False))
            return
        bar = None if quiet or not sys.stderr.isatty() else ProgressBar()

        def on_start(run: JudgeRun, total: int) -> None:
            if bar is not None:
                stored = run.rows()
                bar.start_run(run.run_id, total, len(stored), sum(r["failed"] for r in stored))

        on_row = None if bar is None else (lambda row: bar(SimpleNamespace(failed=row["failed"])))
        try:
            run = package.judge(models, split_ids(run_ids), canonical, study, sources_dir,
                                retry_failed=retry_failed, on_start=on_start, on_row=on_row,
                                on_warning=_warn, **settings)  # fmt: skip
        finally:
            if bar is not None:
                bar.close()
    except OptionError as exc:
        raise click.UsageError(str(exc)) from exc
    totals = run.info["totals"]
    click.echo(
        f"{run.run_id}: {totals['n_instances']} instances, {totals['n_failed']} failed, "
        f"{totals['n_empty_generated']} empty, {totals['n_unreadable_generated']} unreadable "
        f"({run.path}) ({elapsed(started)})"
    )
    if study:
        click.echo("its rows against the experts' F1: `dmbench agreement` (judge:<model>)")


def _warn(message: str) -> None:
    click.echo(f"dmbench: warning: {message}", err=True)


@click.command()
@click.option("--judge", "judge_run_id", default=None, metavar="RUN_ID",
              help="One judge run (default: every judge run in the package).")
@click.option("--format", "fmt", type=click.Choice(["md", "csv", "json"]), default="md",
              show_default=True,
              help='md or csv: write leaderboard.md / .csv to --out; json: print {"headline", '
              '"boards", "rows", "comparisons", "detectability", "view_agreement", "tells", '
              '"warnings"}.')
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("results"),
              show_default=True, help="Directory for leaderboard.md / leaderboard.csv.")
@package_option
def leaderboard(judge_run_id: str | None, fmt: str, out: Path, package_dir: Path | None) -> None:
    """The judge leaderboard: candidates ranked per judge by mean S_final, with CIs, rank
    intervals, a size-controlled score, paired comparisons, the controls (identity, detect)
    and warnings (position bias, flips, failures, self-preference, controls)."""
    started = time.perf_counter()
    written = None if fmt == "json" else out
    board = Package(package_dir).leaderboard(judge_run_id, written, fmt,
                                                                strict=True)  # fmt: skip
    if written is None:
        click.echo(json.dumps(board, indent=2, ensure_ascii=False))
        return
    click.echo(f"wrote {out / f'leaderboard.{fmt}'} ({elapsed(started)})")
