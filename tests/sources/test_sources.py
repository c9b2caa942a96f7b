"""The pinned sources: hash checks, and the download path against a real local HTTP server."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest
from archive_server import ArchiveServer, make_archive, served
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.errors import SourceError
from dmbench.sources import pinned_files, read_verified, repositories, verify_all
from dmbench.sources.fetch import extract_pinned


class TestPins:
    def test_every_pinned_file_of_the_mirror_verifies(self, upstream_dir: Path) -> None:
        """The mirrored sources are exactly the pinned bytes (52 + 8 files)."""
        files = verify_all(upstream_dir)
        assert len(files) == 60
        for pin in pinned_files():
            assert len(files[pin.relpath]) == pin.bytes

    def test_altered_file_names_file_and_both_hashes(self, upstream_dir: Path, tmp_path) -> None:
        """One flipped byte is reported with the file, expected and actual sha256."""
        pin = next(p for p in pinned_files() if p.path.endswith("kaiser_clean.json"))
        copy = tmp_path / pin.relpath
        copy.parent.mkdir(parents=True)
        data = bytearray((upstream_dir / pin.relpath).read_bytes())
        data[100] ^= 1
        copy.write_bytes(bytes(data))
        with pytest.raises(SourceError) as error:
            read_verified(tmp_path, pin)
        message = str(error.value)
        assert str(copy) in message
        assert pin.sha256 in message
        assert hashlib.sha256(bytes(data)).hexdigest() in message

    def test_missing_file_is_named(self, tmp_path) -> None:
        pin = pinned_files()[0]
        with pytest.raises(SourceError, match="missing"):
            read_verified(tmp_path, pin)


class TestFetch:
    def test_fetch_from_local_mirror_gives_the_pinned_files(self, upstream_dir, tmp_path) -> None:
        """`sources fetch --base-url` downloads both archives over HTTP and extracts only pins."""
        cache = tmp_path / "cache"
        with ArchiveServer(served(upstream_dir)) as server:
            result = CliRunner().invoke(
                main, ["sources", "fetch", "--cache", str(cache), "--base-url", server.url]
            )
        assert result.exit_code == 0, result.output
        assert len(server.requests) == 2
        assert verify_all(cache).keys() == verify_all(upstream_dir).keys()
        extracted = sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*") if p.is_file())
        assert extracted == sorted(pin.relpath for pin in pinned_files())

    def test_tampered_member_stops_fetch_and_writes_nothing(self, upstream_dir, tmp_path) -> None:
        """An archive member whose bytes differ from its pin is refused before any file lands."""
        cache = tmp_path / "cache"
        tampered = "Data/data-source-2/reference_clean.json"
        with ArchiveServer(served(upstream_dir, tamper=tampered)) as server:
            result = CliRunner().invoke(
                main, ["sources", "fetch", "--cache", str(cache), "--base-url", server.url]
            )
        assert result.exit_code == 1
        assert "reference_clean.json: sha256 mismatch" in result.output
        assert not (cache / "Automated-DomainModel-Benchmark").exists()

    def test_unreachable_mirror_is_one_clear_error(self, tmp_path) -> None:
        with ArchiveServer({}) as server:
            result = CliRunner().invoke(
                main, ["sources", "fetch", "--cache", str(tmp_path), "--base-url", server.url]
            )
        assert result.exit_code == 1
        assert "download failed" in result.output
        assert "Traceback" not in result.output


def _member(name: str, kind: bytes = tarfile.REGTYPE, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def _archive_with(upstream: Path, repo, member: tarfile.TarInfo, replaces: str | None = None):
    """The repository's archive plus ``member`` (instead of the pinned file ``replaces``)."""
    data = None if member.type != tarfile.REGTYPE else b""
    archive = make_archive(upstream, repo, extra=[(member, data)])
    if replaces is None:
        return archive
    buffer = io.BytesIO()
    with (
        tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as source,
        tarfile.open(fileobj=buffer, mode="w:gz") as tar,
    ):
        for info in source:
            if info.name.endswith(replaces) and info.isfile():
                continue
            tar.addfile(info, source.extractfile(info) if info.isfile() else None)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        (_member("/etc/passwd"), "path escapes"),
        (_member("repo-x/../../evil"), "path escapes"),
    ],
)
def test_members_escaping_the_target_are_refused(upstream_dir, tmp_path, member, reason) -> None:
    """An absolute or `..` path anywhere in the archive refuses the whole archive."""
    repo = repositories()[1]
    with pytest.raises(SourceError, match=reason):
        extract_pinned(repo, _archive_with(upstream_dir, repo, member), tmp_path, "x.tar.gz")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        (tarfile.SYMTYPE, "link"),
        (tarfile.LNKTYPE, "link"),
        (tarfile.CHRTYPE, "device"),
        (tarfile.FIFOTYPE, "fifo"),
    ],
)
def test_pinned_path_that_is_a_link_or_device_is_refused(upstream_dir, tmp_path, kind, reason):
    """Where a pinned file should be, a link or device is refused and nothing is written."""
    repo = repositories()[1]
    name = f"{repo.name}-{repo.commit}/LICENSE"
    archive = _archive_with(upstream_dir, repo, _member(name, kind, "/etc/passwd"), "/LICENSE")
    with pytest.raises(SourceError, match=reason):
        extract_pinned(repo, archive, tmp_path, "x.tar.gz")
    assert not any(tmp_path.iterdir())


def test_links_outside_the_pinned_files_are_skipped(upstream_dir, tmp_path) -> None:
    """A real repository may hold links elsewhere: they are never extracted, the rest is."""
    repo = repositories()[1]
    link = _member(f"{repo.name}-{repo.commit}/docs/link", tarfile.SYMTYPE, "/etc/passwd")
    extract_pinned(repo, _archive_with(upstream_dir, repo, link), tmp_path, "x.tar.gz")
    extracted = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert extracted == sorted(pin.relpath for pin in repo.files)


def test_the_main_jobs_failed_download_names_the_offline_way(tmp_path, monkeypatch) -> None:
    """No sources beside the checkout and no archive server: the error says --sources."""
    from functools import partial

    from dmbench.core import paths
    from dmbench.flows import reproduce
    from dmbench.sources.fetch import fetch

    cache = tmp_path / "cache"
    monkeypatch.setenv("DMBENCH_CACHE", str(cache))
    monkeypatch.setattr(paths, "default_sources_dir", lambda root=None: cache)
    with ArchiveServer({}) as server:
        monkeypatch.setattr(reproduce, "fetch", partial(fetch, base_url=server.url))
        with pytest.raises(SourceError, match="download failed") as error:
            reproduce.ensure_prerequisites(None, tmp_path)
    assert "--sources DIR or $DMBENCH_SOURCES" in error.value.hint
