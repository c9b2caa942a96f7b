"""The prompts table and its loader: the four upstream files, pinned by sha256, never altered."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from dmbench.errors import SourceError, UnknownNameError
from dmbench.sources.prompts import PROMPTS, install_prompts, load_prompt, load_prompts

pytestmark = pytest.mark.needs_shared  # builds or reads from ../shared/upstream

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream"
BENCHMARK = UPSTREAM / "Automated-DomainModel-Benchmark"


class TestTable:
    def test_four_prompts_with_upstream_paths_roles_and_hashes(self):
        """Each entry names a pinned upstream file whose bytes have the listed sha256."""
        assert sorted(PROMPTS) == [
            "calamo_system.txt",
            "chen_system.txt",
            "chen_task.txt",
            "chen_translate.txt",
        ]
        for prompt in PROMPTS.values():
            data = (BENCHMARK / prompt.upstream_path).read_bytes()
            assert hashlib.sha256(data).hexdigest() == prompt.sha256
            assert prompt.candidate in {"chen", "calamo"} and prompt.role

    def test_lengths_of_the_spec(self):
        """Characters as spec section 0 lists them: 78, 784, 4834 (one "§") and 1309."""
        lengths = {name: len(load_prompt(UPSTREAM, name)) for name in PROMPTS}
        assert lengths == {
            "chen_system.txt": 78,
            "chen_task.txt": 784,
            "chen_translate.txt": 4834,
            "calamo_system.txt": 1309,
        }
        assert load_prompt(UPSTREAM, "chen_translate.txt").endswith("\n")
        assert not load_prompt(UPSTREAM, "chen_task.txt").endswith("\n")


class TestLoader:
    def test_reads_sources_repository_or_package(self, tmp_path):
        """The same text from a sources folder, the repository folder, or a built package."""
        from_sources = load_prompt(UPSTREAM, "chen_task.txt")
        assert load_prompt(BENCHMARK, "chen_task.txt") == from_sources
        written = install_prompts(UPSTREAM, tmp_path)
        assert [path.name for path in written] == list(PROMPTS)
        assert load_prompt(tmp_path, "chen_task.txt") == from_sources

    def test_crlf_is_not_translated(self, tmp_path):
        """Bytes are decoded as they are: a changed line ending is a changed prompt."""
        install_prompts(UPSTREAM, tmp_path)
        path = tmp_path / "prompts" / "chen_task.txt"
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
        with pytest.raises(SourceError, match="differs from the pinned"):
            load_prompt(tmp_path, "chen_task.txt")

    def test_missing_and_unknown(self, tmp_path):
        """A missing file says how to get it; an unknown name lists the known ones."""
        with pytest.raises(SourceError, match="dmbench build"):
            load_prompt(tmp_path, "calamo_system.txt")
        with pytest.raises(UnknownNameError, match="known: calamo_system.txt"):
            load_prompt(UPSTREAM, "nope.txt")

    def test_load_prompts_returns_texts_and_hashes(self):
        """What a candidate records: the texts it sends and their pinned sha256s."""
        texts, hashes = load_prompts(UPSTREAM, ("calamo_system.txt",))
        assert hashes == {"calamo_system.txt": PROMPTS["calamo_system.txt"].sha256}
        assert hashlib.sha256(texts["calamo_system.txt"].encode()).hexdigest() == hashes[
            "calamo_system.txt"
        ]
