"""The main job from a machine with nothing but the checkout: it fetches what it needs."""

from __future__ import annotations

import functools
from pathlib import Path

from archive_server import ArchiveServer, served

from dmbench.core import paths
from dmbench.flows import reproduce
from dmbench.sources import fetch, verify_all


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
