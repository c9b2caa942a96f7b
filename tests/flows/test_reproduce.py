"""The main job from a machine with nothing but the checkout: it fetches what it needs."""

from __future__ import annotations

import functools
import shutil
import sys
from pathlib import Path

import pytest
from archive_server import ArchiveServer, served
from results_support import deposit_ready_package

from dmbench.core import paths
from dmbench.flows import reproduce
from dmbench.runs.store import list_runs
from dmbench.sources import fetch, verify_all
from dmbench.sources.records import RECORDS_PATH, read_records
from dmbench.tables.errata import errata_markdown


def test_missing_sources_are_downloaded_into_the_fetch_cache(
    upstream_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    """No ../shared and an empty cache: the pinned archives are fetched, checked, then used.

    (NLTK data are given through NLTK_DATA: this machine cannot download them.)
    """
    cache = tmp_path / "cache"
    monkeypatch.setenv(paths.CACHE_ENV, str(cache))
    monkeypatch.delenv(paths.SOURCES_ENV, raising=False)
    monkeypatch.setenv("NLTK_DATA", str(upstream_dir.parent / "nltk_data"))
    monkeypatch.setattr(paths, "shared_dir", lambda root=None: tmp_path / "no-shared")
    with ArchiveServer(served(upstream_dir)) as server:
        monkeypatch.setattr(reproduce, "fetch", functools.partial(fetch, base_url=server.url))
        sources, notes = reproduce.ensure_prerequisites(None, tmp_path / "package")
        assert len(server.requests) == 2
    assert sources == cache
    assert notes.startswith(f"downloaded the pinned sources into {cache}")
    assert verify_all(cache).keys() == verify_all(upstream_dir).keys()


def test_mirrored_sources_are_used_without_download(upstream_dir: Path, tmp_path: Path) -> None:
    sources, notes = reproduce.ensure_prerequisites(upstream_dir, tmp_path)
    assert sources == upstream_dir
    assert notes == f"sources {upstream_dir} verified (60 files)"


def _spy(monkeypatch, function) -> list[tuple]:
    """Count ``function``'s calls wherever dmbench imported it by name; the arguments of each."""
    calls: list[tuple] = []

    def spy(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    for module in [m for name, m in sys.modules.items() if name.startswith("dmbench")]:
        if getattr(module, function.__name__, None) is function:
            monkeypatch.setattr(module, function.__name__, spy)
    return calls


@pytest.mark.needs_nltk
def test_the_main_job_reads_the_records_and_the_runs_once(
    upstream_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    """From the package the build stage opens to the report, every stage reads the one opened
    package: the run store is listed and ``data/records.csv`` read once in the process, though
    the score stage rewrites every score file in between."""
    package = Path(shutil.copytree(deposit_ready_package(), tmp_path / "package"))
    listed, loaded = _spy(monkeypatch, list_runs), _spy(monkeypatch, read_records)
    job = reproduce.Job(
        package, upstream_dir, tmp_path / "results", tmp_path / "errata.md", tmp_path / "report",
        sources=upstream_dir, opened=reproduce.OpenedPackage(package),
    )  # fmt: skip
    after_build = [name for name, _ in reproduce.STAGES][2:]
    for name, stage in reproduce.STAGES[2:]:
        ok, summary, detail = stage(job)
        assert ok, f"{name}: {summary}\n{detail}"
    assert after_build == ["verify", "score", "tables", "errata", "validate", "report"]
    assert listed == [(package, job.package.records())]
    assert loaded == [(package / RECORDS_PATH,)]
    assert (tmp_path / "errata.md").read_text("utf-8") == errata_markdown(package, upstream_dir)
