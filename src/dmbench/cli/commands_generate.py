"""``dmbench generate``: run a candidate on the benchmark datasets or on a user's own records."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

import dmbench
from dmbench.api import DATASET_CHOICES, Package
from dmbench.cli._options import package_option
from dmbench.errors import OptionError

SPECS = dmbench.candidates.candidate_specs()
OWN_OPTIONS = frozenset(
    {"candidate", "command", "name", "dataset", "records", "runs", "model", "workers", "host",
     "hosts", "offline", "prompts", "quiet", "package"}
)  # fmt: skip
"""The command's own options: a candidate's option of the same name is not offered again."""


def _offered_options() -> dict[str, tuple[Any, dmbench.candidates.OptionDoc]]:
    """Every registered candidate's options, each once (the first spec that has it says its
    default and help), in table order: the command line offers them all."""
    offered: dict[str, tuple[Any, dmbench.candidates.OptionDoc]] = {}
    for spec in SPECS:
        for option, default in spec.options.items():
            if option not in OWN_OPTIONS:
                offered.setdefault(option, (default, spec.option_doc(option)))
    return offered


def _shown_default(option: str, default: Any) -> str:
    """Upstream's value of ``option`` as its help shows it (the specs hold it)."""
    if isinstance(default, bool):
        return f"--{_flag(option)}" if default else f"--no-{_flag(option)}"
    return "not sent" if default is None else str(default)


def _flag(option: str) -> str:
    return option.replace("_", "-")


def _option_type(doc: dmbench.candidates.OptionDoc, default: Any) -> Any:
    """The click type of an option: its doc's kind (else its default's type) and bounds."""
    kind = doc.kind or type(default)
    if kind is int:
        return int if doc.minimum is None else click.IntRange(min=int(doc.minimum))
    if kind is float:
        if doc.minimum is None:
            return float
        return click.FloatRange(min=doc.minimum, min_open=doc.minimum_open)
    return str


def generation_options(command: Callable[..., None]) -> Callable[..., None]:
    """The candidates' options as click options, from their specs: a bool is a
    ``--NAME/--no-NAME`` flag; each defaults to None (not given: the candidate's default)."""
    for option, (default, doc) in reversed(_offered_options().items()):
        help_text = f"{doc.help} [default: {_shown_default(option, default)}]."
        if (doc.kind or type(default)) is bool:
            flags = f"--{_flag(option)}/--no-{_flag(option)}"
            decorator = click.option(flags, option, default=None, help=help_text)
        else:
            decorator = click.option(
                f"--{_flag(option)}", option, type=_option_type(doc, default), default=None,
                help=help_text,
            )  # fmt: skip
        command = decorator(command)
    return command


@click.command()
@click.option(
    "--candidate",
    type=click.Choice([spec.name for spec in SPECS]),
    default=None,
    help="The system under test (built in or a plug-in); or give --command and --name.",
)
@click.option(
    "--command",
    default=None,
    help="A candidate in any language: run once per record, the text on stdin and the id in "
    "$DMBENCH_RECORD_ID; its stdout is the PlantUML (non-zero exit, timeout: a failed output).",
)
@click.option(
    "--name",
    default=None,
    help="The name of a --command candidate's runs (1-32 of a-z 0-9 _ -).",
)
@click.option(
    "--dataset",
    type=click.Choice(DATASET_CHOICES),
    default=None,
    help="Benchmark records to run on; the runs are stored in the package.",
)
@click.option(
    "--records",
    "records_file",
    type=click.File("rb"),
    default=None,
    help='Your own records instead: a JSON-lines file ({"id", "text"} per line, - for stdin); '
    'prints {"id", "generated", "failed", "error"} lines.',
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Run indices 1..N per dataset; runs already stored are resumed, not repeated.",
)
@click.option(
    "--model",
    default=None,
    help=f"Ollama model of an LLM candidate ({', '.join(s.name for s in SPECS if s.uses_llm)}).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Records generated at once (LLM candidates), spread over the hosts.",
)
@click.option(
    "--host",
    "hosts",
    multiple=True,
    help="Ollama server URL; repeat for several (default: $OLLAMA_HOST, else localhost:11434).",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Replay LLM replies from the cache only; fail on a reply it does not hold.",
)
@click.option(
    "--prompts",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="A prompt variant: a folder with the candidate's prompt files under their pinned "
    "names; the run records its name and hashes, and gets its own id.",
)
@click.option(
    "--quiet", is_flag=True, help="No progress bar (it is drawn only when stderr is a terminal)."
)
@generation_options
@package_option
def generate(
    candidate: str | None,
    command: str | None,
    name: str | None,
    dataset: str | None,
    records_file: IO[str] | None,
    runs: int,
    model: str | None,
    workers: int,
    hosts: tuple[str, ...],
    offline: bool,
    prompts: Path | None,
    quiet: bool,
    package_dir: Path | None,
    **generation: Any,
) -> None:
    """Generate PlantUML with a candidate: new runs in the package, or JSON lines on stdout.

    The generation options (--temperature ... and any a plug-in declares) are the candidates'
    own, offered from their specs; each one given becomes part of the run's settings, hence of
    its id.
    """
    package = Package(package_dir)
    settings = dict(model=model, hosts=hosts, offline=offline, workers=workers, **generation)
    if prompts is not None:
        settings["prompts"] = prompts
    if (candidate is None) == (command is None):
        raise click.UsageError("give exactly one of --candidate and --command")
    if command is not None:
        settings.update(command=command, name=name)
    elif name is not None:
        raise click.UsageError("--name names a --command candidate's runs")
    try:
        if dataset is not None and records_file is None:
            progress = None if quiet or not sys.stderr.isatty() else ProgressBar()
            done = package.generate(candidate, dataset=dataset, runs=runs, on_output=progress,
                                    **settings)  # fmt: skip
            if progress is not None:
                progress.close()
            for run in done:
                totals = run.info.totals
                click.echo(
                    f"{run.info.run_id}: {totals['n_records']} records, "
                    f"{totals['n_failed']} failed ({run.path})"
                )
        elif records_file is not None and dataset is None:
            _reject_for_records(runs=runs > 1 or _given("runs"), quiet=quiet)
            source = getattr(records_file, "name", "<stdin>")
            for row in package.generate_records(candidate, records_file, source, **settings):
                click.echo(json.dumps(row, ensure_ascii=False))
        else:
            raise click.UsageError("give exactly one of --dataset and --records")
    except OptionError as exc:
        raise click.UsageError(str(exc)) from exc


def _given(name: str) -> bool:
    """Whether the user typed option ``name`` (not just got its default)."""
    source = click.get_current_context().get_parameter_source(name)
    return source is not None and source is not click.core.ParameterSource.DEFAULT


def _reject_for_records(**given: bool) -> None:
    """--records prints one line per record: no run indices, no progress bar to silence."""
    wrong = [f"--{name}" for name, was_given in given.items() if was_given]
    if wrong:
        raise click.UsageError(
            f"{' and '.join(wrong)} {'applies' if len(wrong) == 1 else 'apply'} to --dataset "
            "runs, not to --records"
        )


class ProgressBar:
    """Per run on a terminal's stderr: records done (stored ones included), failures, time left.

    Only drawn on a terminal, like click's own bar, so logs and captured output stay clean.
    """

    WIDTH = 30

    def __init__(self) -> None:
        self.label = ""
        self.total = self.done = self.failed = self.new = 0
        self.started = time.monotonic()

    def start_run(self, run_id: str, total: int, stored: int, failed: int = 0) -> None:
        """A run begins; ``stored`` records (``failed`` of them failed) were done before."""
        self.close()
        self.label, self.total, self.done, self.failed = run_id, total, stored, failed
        self.new = 0
        self.started = time.monotonic()
        self._render()

    def __call__(self, row: Any) -> None:
        self.done += 1
        self.new += 1
        self.failed += bool(row.failed)
        self._render()

    def _render(self) -> None:
        filled = self.WIDTH * self.done // self.total if self.total else self.WIDTH
        rate = self.new / (time.monotonic() - self.started) if self.new else 0.0
        left = (self.total - self.done) / rate if rate else None
        eta = time.strftime("%H:%M:%S", time.gmtime(left)) if left is not None else "--:--:--"
        line = (
            f"{self.label} [{'#' * filled}{'.' * (self.WIDTH - filled)}] "
            f"{self.done}/{self.total} failed {self.failed} ETA {eta}"
        )
        click.echo(f"\r{line}", err=True, nl=False)

    def close(self) -> None:
        if self.label:
            click.echo("", err=True)
        self.label = ""
