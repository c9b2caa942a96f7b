"""Judge runs in the package: ``runs/judge__<model>[__<model>...]__<hash>/`` beside the runs.

``run.json`` holds what decides the replies (settings: judges, options, criteria and prompt
hashes, what was judged; their hash is in the id) and how they were obtained (provenance:
model digests, server versions, dmbench commit, one segment per stretch of work).
``judgements.jsonl`` holds one line per judged output, appended and fsynced as soon as it is
done, so a kill loses at most the instances in flight; a torn last line is cut on reopening and
the run resumes with the instances that have no line, never asking about one twice.
``messages.jsonl`` holds the exact messages sent, one line per distinct sha256 (a judgement
names its ``messages_sha256``), written before the judgement that sent them.
``criteria.json`` is a byte copy of the criteria file the run used.

A run is worked on in the run store's work folder (``runs.store.open_aside``) and moved into
``runs/`` when its stretch of work ends (``runs.store.publish_run``), as generated runs are: a
killed judge run leaves the package as it was (and valid); the next command resumes it from
where it was killed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench.core import atomic
from dmbench.core.clock import now_utc
from dmbench.core.hashing import sha256_text
from dmbench.core.inputs import parse_json
from dmbench.core.provenance import code_provenance
from dmbench.errors import PackageError, UnknownNameError
from dmbench.judge.criteria import Criteria, parse_criteria
from dmbench.judge.judging import (
    EMPTY_GENERATED,
    UNREADABLE_GENERATED,
    Instance,
    Judge,
    Judged,
    JudgeOptions,
    Messages,
    judge_all,
    without_reply_text,
)
from dmbench.judge.prompt import DETECT, PROMPT_VERSION, SCORE, template_sha256
from dmbench.judge.views import DEFAULT_VIEW
from dmbench.runs.jsonl import append_line, json_line, read_rows
from dmbench.runs.opened import OpenedPackage
from dmbench.runs.store import (
    JUDGE_RUN_PREFIX,
    RUN_FILE,
    RUNS_DIR,
    Run,
    list_runs,
    model_tag,
    open_aside,
    publish_run,
)
from dmbench.sources.records import BenchmarkRecord

JUDGEMENTS_FILE = "judgements.jsonl"
MESSAGES_FILE = "messages.jsonl"
RUN_REPLY_BYTES = 64 * 2**20
"""Past this size of ``judgements.jsonl`` a run stores its replies' lengths and sha256 only,
no more reply text: a run's stored replies are bounded whatever its judge answers."""
CRITERIA_FILE = "criteria.json"
CONTROLS = ("identity", "detect")
"""identity: each reference against itself; detect: which of output and reference a person drew."""
CORPUS_LABELS = {"ds1": "DS-1", "ds2": "DS-2"}


@dataclass(frozen=True, slots=True)
class Target:
    """A judged output: the instance shown to the judge and where it came from."""

    instance: Instance
    run_id: str | None
    record_id: str


def targets(
    runs: Sequence[Run], records: Sequence[BenchmarkRecord], criteria: Criteria,
    control: str | None = None,
) -> list[Target]:
    """The outputs of ``runs`` as instances (keyed ``run_id/record_id``), in run and record order.

    ``control="identity"`` judges each record those runs cover against its own reference
    instead (keyed ``identity/record_id``): S_final should be 0.5, the spread is the judge's
    noise. ``control="detect"`` asks of each output and its reference which one a person
    drew (keyed ``detect/run_id/record_id``; a control's rows have no run)."""
    by_id = {r.record_id: r for r in records}
    order = {r.record_id: i for i, r in enumerate(records)}
    found: list[Target] = []
    covered: set[str] = set()
    for run in runs:
        for row in sorted(run.outputs(), key=lambda r: order.get(r.record_id, len(order))):
            record = by_id.get(row.record_id)
            if record is None:
                raise PackageError(f"run {run.info.run_id}: record {row.record_id!r} is unknown")
            if control in (None, "detect"):
                key = f"{run.info.run_id}/{row.record_id}"
                found.append(
                    Target(_instance(key if control is None else f"{control}/{key}", record,
                                     row.generated, criteria),
                           run.info.run_id if control is None else None, row.record_id)
                )  # fmt: skip
            elif row.record_id not in covered:
                covered.add(row.record_id)
    if control == "identity":
        for record in records:
            if record.record_id in covered:
                key = f"{control}/{record.record_id}"
                found.append(Target(_instance(key, record, record.reference, criteria), None,
                                    record.record_id))
    return found


def _instance(key: str, record: BenchmarkRecord, generated: str, criteria: Criteria) -> Instance:
    column = criteria.type_column
    if not hasattr(record, column):
        raise PackageError(f"criteria type_column {column!r} is not a record column")
    corpus = CORPUS_LABELS.get(record.dataset, record.dataset)
    return Instance(
        key,
        record.text,
        record.reference,
        generated,
        str(getattr(record, column)),
        f"{record.upstream_id} ({corpus})",
    )


def select_judged_runs(package_dir: Path, run_ids: Sequence[str], canonical: bool) -> list[Run]:
    """The stored runs named (in the order given, looked up as scoring looks them up, so an
    unknown one is the same error), or every canonical run."""
    if not canonical:
        return OpenedPackage(package_dir).select_runs(run_ids)
    chosen = [run for run in list_runs(package_dir) if run.info.canonical]
    if not chosen:
        raise PackageError(f"{package_dir}: no canonical runs", hint="run `dmbench build`")
    return chosen


def judge_settings(
    judges: Sequence[Judge], criteria: Criteria, options: JudgeOptions,
    judged_runs: Sequence[str], control: str | None, study: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What decides the replies; ``study`` (the metric study's pinned pairs file) only for a
    study run, so that other runs keep their ids."""
    settings = {
        "judges": [judge.model for judge in judges],
        "options": options.to_dict(),
        "criteria_id": criteria.id,
        "criteria_version": criteria.version,
        "criteria_sha256": criteria.sha256,
        "prompt_version": PROMPT_VERSION,
        "prompt_sha256": template_sha256(question_of(control), options.view),
        "judged_runs": sorted(judged_runs),
        "control": control,
    }
    if options.view != DEFAULT_VIEW:  # named only when not the default: text runs keep their ids
        settings["view"] = options.view
    return settings if study is None else settings | {"study": dict(study)}


def question_of(control: str | None) -> str:
    """What a run asks the judge: to score both diagrams, or (detect) which one a person drew."""
    return DETECT if control == "detect" else SCORE


def run_view(run: JudgeRun) -> str:
    """The view a judge run used; runs stored before views existed were text."""
    return run.info["settings"].get("view", DEFAULT_VIEW)


def judge_run_id(settings: dict[str, Any]) -> str:
    """Same settings, same id: what lets the same command find and resume its run."""
    fingerprint = sha256_text(json.dumps(settings, sort_keys=True, ensure_ascii=False))
    models = "__".join(model_tag(m) for m in settings["judges"])
    return f"{JUDGE_RUN_PREFIX}{models}__{fingerprint[:8]}"


class JudgeRun:
    """A judge run's folder and its ``run.json`` info: where judgements are appended,
    resumed and read back for the leaderboard."""

    def __init__(self, path: Path, info: dict[str, Any], package_dir: Path | None = None) -> None:
        self.path = path
        self.info = info
        self.package_dir = package_dir  # while in its work folder: where publish() moves it
        self._sent: set[str] | None = None

    @property
    def run_id(self) -> str:
        return self.info["run_id"]

    @property
    def is_study(self) -> bool:
        """A run over the metric study's human-rated pairs (``judge --study``), not over outputs."""
        return "study" in self.info["settings"]

    @property
    def judgements_path(self) -> Path:
        return self.path / JUDGEMENTS_FILE

    def rows(self) -> list[dict[str, Any]]:
        return list(read_rows(self.judgements_path, _row, "judgement"))

    def messages(self) -> dict[str, list[dict[str, str]]]:
        """The messages sent, by sha256."""
        return {m["sha256"]: m["messages"] for m in read_rows(self.path / MESSAGES_FILE,
                                                              _message, "message")}  # fmt: skip

    def append(self, row: dict[str, Any], messages: Messages | None = None) -> None:
        """One instance, on disk (appended and fsynced) before this returns; the messages it
        sent that the run does not hold yet go first."""
        if self._sent is None:
            self._sent = set(self.messages())
        for digest, sent in (messages or {}).items():
            if digest not in self._sent:
                append_line(self.path / MESSAGES_FILE,
                            json_line({"sha256": digest, "messages": sent}))  # fmt: skip
                self._sent.add(digest)
        if self.judgements_path.exists() and self.judgements_path.stat().st_size > RUN_REPLY_BYTES:
            row = without_reply_text(row)
        append_line(self.judgements_path, json_line(row))

    def save_info(self) -> None:
        atomic.write_json(self.path / RUN_FILE, self.info)

    def drop_failed(self) -> int:
        """Remove the failed instances' lines (atomically), so that they are judged again."""
        rows = self.rows()
        kept = [row for row in rows if not row["failed"]]
        if len(kept) != len(rows):
            atomic.write_text(self.judgements_path, "".join(json_line(row) for row in kept))
        return len(rows) - len(kept)


def run_criteria(run: JudgeRun) -> Criteria:
    """The criteria a judge run used, from its own copy."""
    path = run.path / CRITERIA_FILE
    try:
        return parse_criteria(path.read_bytes(), str(path))
    except OSError as exc:
        raise PackageError(f"{path}: cannot read the run's criteria ({exc.strerror})") from exc


def _message(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise TypeError("expected an object with messages")
    return data


def _row(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or "instance" not in data:
        raise TypeError("expected an object with an instance")
    return data


def is_judge_run(path: Path) -> bool:
    """Whether a folder under ``runs/`` is a judge run rather than a generated run."""
    return path.name.startswith(JUDGE_RUN_PREFIX) and (path / RUN_FILE).is_file()


def load_judge_run(path: Path) -> JudgeRun:
    """A stored judge run, with an unreadable ``run.json`` a one-line package error."""
    run_file = Path(path) / RUN_FILE
    try:
        info = parse_json(run_file.read_text("utf-8"))
    except (OSError, ValueError) as exc:  # not UTF-8, not JSON
        raise PackageError(f"{run_file}: cannot read judge run ({exc})") from None
    if not isinstance(info, dict):
        raise PackageError(f"{run_file}: cannot read judge run (not a JSON object)")
    return JudgeRun(Path(path), info)


def list_judge_runs(package_dir: Path, study: bool = False) -> list[JudgeRun]:
    """The judge runs over stored outputs, or with ``study`` those over the study's pairs."""
    root = Path(package_dir) / RUNS_DIR
    if not root.is_dir():
        return []
    runs = (load_judge_run(p) for p in sorted(root.iterdir()) if is_judge_run(p))
    return [run for run in runs if run.is_study == study]


def find_judge_run(package_dir: Path, run_id: str) -> JudgeRun:
    """The judge run named ``run_id``, or an error listing the judge runs there are."""
    path = Path(package_dir) / RUNS_DIR / run_id
    if not is_judge_run(path):
        known = ", ".join(r.run_id for r in list_judge_runs(package_dir)) or "none"
        raise UnknownNameError(f"{path}: no judge run {run_id!r} (judge runs here: {known})")
    return load_judge_run(path)


def _describe_judges(judges: Sequence[Judge]) -> list[dict[str, Any]]:
    described = []
    for judge in judges:
        info = judge.chat.server_info()
        described.append(
            {
                "model": judge.model,
                "model_digest": info.model_digest,
                "server_version": info.server_version,
                "details": info.details,
                "hosts": list(info.hosts),
                "hosts_dropped": dict(info.dropped_hosts),
                "offline": judge.chat.offline,
                "retries": judge.chat.retries,
            }
        )
    return described


def open_judge_run(
    package_dir: Path, judges: Sequence[Judge], criteria: Criteria, options: JudgeOptions,
    judged_runs: Sequence[str], control: str | None, study: dict[str, str] | None = None,
) -> JudgeRun:
    """Create the run, or reopen it to resume, in its work folder; a changed model digest
    refuses the resume. :func:`publish` moves it into the package."""
    settings = judge_settings(judges, criteria, options, judged_runs, control, study)
    run_id = judge_run_id(settings)
    path = open_aside(package_dir, run_id, (MESSAGES_FILE, JUDGEMENTS_FILE))
    described = _describe_judges(judges)
    digests = {j["model"]: j["model_digest"] for j in described}
    if (path / RUN_FILE).is_file():
        run = load_judge_run(path)
        if run.info.get("settings") != settings:
            raise PackageError(f"{path / RUN_FILE}: a judge run {run_id!r} exists with other settings")
        stored = {j["model"]: j["model_digest"] for j in run.info["provenance"]["judges"]}
        if stored != digests:
            raise PackageError(
                f"{path / RUN_FILE}: the judge models' digests changed since this run began "
                f"({stored} then, {digests} now); one run never mixes model versions"
            )
        return JudgeRun(path, run.info, Path(package_dir))
    atomic.write_bytes(path / CRITERIA_FILE, criteria.text)
    run = JudgeRun(
        path,
        {
            "kind": "judge",
            "run_id": run_id,
            "origin": "generated",
            "settings": settings,
            "provenance": {"judges": described, **code_provenance(), "segments": []},
            "started_utc": now_utc(),
            "finished_utc": None,
            "totals": {},
        },
        Path(package_dir),
    )
    run.save_info()
    return run


def publish(run: JudgeRun) -> JudgeRun:
    """Move the run from its work folder into ``runs/`` (see ``runs.store.publish_run``)."""
    if run.package_dir is None:
        raise ValueError(f"{run.path} is not in a work folder")
    return JudgeRun(publish_run(run.package_dir, run.path), run.info)


def judged_row(target: Target, judged: Judged) -> dict[str, Any]:
    """The stored row of one judged instance of a run's output: what the leaderboard reads."""
    return {
        "instance": target.instance.id,
        "run_id": target.run_id,
        "record_id": target.record_id,
        "type": target.instance.type,
        "failed": judged.failed,
        "error": judged.error,
        "s_final": judged.s_final,
        "dimensions": judged.dimensions,
        "criteria": judged.criteria,
        "unreadable": judged.unreadable,
        "judgements": list(judged.judgements),
    }


Progress = Callable[[dict[str, Any]], None]
RowOf = Callable[[Target, Judged], dict[str, Any]]


def run_judgements(
    run: JudgeRun,
    judges: Sequence[Judge],
    wanted: Sequence[Target],
    workers: int = 1,
    on_row: Progress | None = None,
    retry_failed: bool = False,
    on_start: Callable[[JudgeRun, int], None] | None = None,
    row_of: RowOf = judged_row,
) -> JudgeRun:
    """Judge what has no row yet, storing each instance as soon as it is done (as ``row_of``
    makes its line), then move the run into the package; the run in ``runs/`` is returned.

    A failed instance stays failed when the run resumes (it is part of the record), unless
    ``retry_failed``: then it is asked again (its replies were never cached)."""
    retried = run.drop_failed() if retry_failed else 0
    if on_start is not None:
        on_start(run, len(wanted))
    stored = run.rows()
    done = {row["instance"] for row in stored}
    todo = [t for t in wanted if t.instance.id not in done]
    if todo or not stored:
        run.info["provenance"]["segments"].append(
            {
                "started_utc": now_utc(),
                "stored_before": len(stored),
                "retried_failed": retried,
                "judges": _describe_judges(judges),
                **code_provenance(),
            }
        )
        run.info["finished_utc"] = None
        run.save_info()
    question = question_of(run.info["settings"]["control"])
    for index, judged in judge_all(judges, [t.instance for t in todo], workers, question):
        row = row_of(todo[index], judged)
        run.append(row, judged.messages)
        if on_row is not None:
            on_row(row)
    rows = run.rows()
    run.info["finished_utc"] = now_utc()
    run.info["totals"] = {
        "n_instances": len(rows),
        "n_failed": sum(row["failed"] for row in rows),
        "n_empty_generated": sum(row["error"] == EMPTY_GENERATED for row in rows),
        "n_unreadable_generated": sum(row["error"] == UNREADABLE_GENERATED for row in rows),
    }
    run.save_info()
    return publish(run)
