"""Import the published upstream run artifacts (read by ``dmbench.sources``) into the run store.

Each artifact becomes ``runs/<run_id>/`` with ``run.json`` (candidate under its dmbench name,
the settings as they *took effect*, the recorded ones beside them, the upstream file and hash,
the published summary), ``outputs.jsonl`` (the generated PlantUML byte-exact) and
``scores.jsonl`` (the published metrik-4 values, marked ``published``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dmbench.candidates import CANDIDATES, upstream_names
from dmbench.errors import SourceError
from dmbench.llm.llm_candidate import UPSTREAM_OPTIONS, LLMCandidate
from dmbench.metrics import PUBLISHED_METRIC
from dmbench.runs.scores import ScoreRow, write_scores
from dmbench.runs.store import RUNS_DIR, OutputRow, RunInfo, make_run_id, open_run
from dmbench.sources import BENCHMARK_REPO, PinnedFile, repository
from dmbench.sources.published import published_runs
from dmbench.sources.records import UPSTREAM_DATASETS, BenchmarkRecord

CANONICAL_MODELS = {None, "glm-5.1:cloud", "kimi-k2.6:cloud"}


def effective_settings(candidate: str, model: str | None) -> dict[str, Any]:
    """The settings each published run actually ran with (spec B.1, C.1), as its candidate's
    spec says: the candidates were rebuilt with only some settings, the rest (the HTTP timeout
    and thinking among them) were upstream's defaults whatever the artifact records. Every
    published run lists the LLM candidates' keys (``None`` where a candidate has no such
    setting), ``uses_llm`` last."""
    settings = CANDIDATES[candidate].upstream_settings(model)
    keys = [key for key in LLMCandidate.settings_with(None, UPSTREAM_OPTIONS) if key != "uses_llm"]
    return {**{key: settings.get(key) for key in keys}, "uses_llm": settings["uses_llm"]}


def import_published_runs(
    sources_dir: Path, package_dir: Path, records: list[BenchmarkRecord]
) -> list[str]:
    """Import every published artifact; return the run ids."""
    by_upstream = {(r.upstream_dataset, r.upstream_id): r for r in records}
    parsed = published_runs(sources_dir)
    return [_import_one(pin, artifact, package_dir, by_upstream) for pin, artifact in parsed]


def _import_one(
    pin: PinnedFile,
    artifact: dict[str, Any],
    package_dir: Path,
    by_upstream: dict[tuple[str, str], BenchmarkRecord],
) -> str:
    label = pin.relpath
    try:
        candidate = upstream_names()[artifact["candidate"]]
        dataset = UPSTREAM_DATASETS[artifact["dataset"]]
    except KeyError as exc:
        raise SourceError(f"{label}: unknown candidate or dataset {exc}") from exc
    model = artifact["settings"].get("model")
    run_index = int(artifact["run_index"])
    repo = repository(BENCHMARK_REPO)
    info = RunInfo(
        run_id=make_run_id(candidate, model, dataset, run_index, None),
        candidate=candidate,
        model=model,
        dataset=dataset,
        run_index=run_index,
        origin="published",
        canonical=model in CANONICAL_MODELS and 1 <= run_index <= 3,
        settings=effective_settings(candidate, model),
        provenance={
            "upstream_candidate": artifact["candidate"],
            "upstream_run_id": artifact["run_id"],
            "recorded_settings": artifact["settings"],
            "metric": artifact["metric"],
        },
        # Upstream stamps the artifact when it writes it, after the run: a finish time.
        started_utc=None,
        finished_utc=artifact["timestamp_utc"],
        upstream={
            "repository": repo.url,
            "commit": repo.commit,
            "path": pin.path,
            "sha256": pin.sha256,
            "summary": artifact["summary"],
        },
        totals={
            "n_records": artifact["totals"]["n_records"],
            "n_failed": artifact["totals"]["n_failed_generate"],
            "n_failed_score": artifact["totals"]["n_failed_score"],
            "elapsed_seconds": artifact["totals"]["elapsed_seconds_generate"],
        },
    )
    if (Path(package_dir) / RUNS_DIR / info.run_id).exists():
        raise SourceError(f"{label}: a second artifact for run {info.run_id}")
    run = open_run(package_dir, info)  # in runs/ of the package being staged
    scores = []
    for number, item in enumerate(artifact["records"], start=1):
        record = by_upstream.get((artifact["dataset"], item["id"]))
        where = f"{label}, record {number} ({item.get('id')!r})"
        if record is None:
            raise SourceError(f"{where}: not a record of {artifact['dataset']}")
        if item["reference"] != record.reference or item["nlt"] != record.text:
            raise SourceError(f"{where}: text or reference differs from the corpus")
        run.append(
            OutputRow(
                record_id=record.record_id,
                generated=item["generated"],
                failed=bool(item["failed_generate"]),
                error=item["error_generate"],
                elapsed_seconds=float(item["elapsed_seconds"]),
            )
        )
        published = item["scores"]
        scores.append(
            ScoreRow(
                run_id=info.run_id,
                record_id=record.record_id,
                metric=PUBLISHED_METRIC,
                origin="published",
                class_score=published["class_score"],
                attribute_score=published["attribute_score"],
                association_score=published["association_score"],
                error=published["error"],
            )
        )
    write_scores(run.path, scores)
    if len(scores) != artifact["totals"]["n_records"]:
        raise SourceError(f"{label}: totals.n_records does not match the records")
    return info.run_id

