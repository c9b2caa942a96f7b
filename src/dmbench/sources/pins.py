"""The pinned list of upstream inputs (``pins.json``) and the check every file passes before use."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from dmbench.core.hashing import sha256_bytes
from dmbench.errors import SourceError, UnknownNameError

BENCHMARK_REPO = "Automated-DomainModel-Benchmark"
METRICS_REPO = "domainModel-Metrics-Comparison"


@dataclass(frozen=True, slots=True)
class PinnedFile:
    """One upstream file dmbench reads, pinned by size and sha256, so a changed file is refused."""
    repository: str
    path: str
    bytes: int
    sha256: str
    role: str

    @property
    def relpath(self) -> str:
        """Where the file sits in a sources directory: ``<repository>/<path>``, as upstream."""
        return f"{self.repository}/{self.path}"


@dataclass(frozen=True, slots=True)
class Repository:
    """An upstream repository at the commit dmbench pins, with its licence, DOI and files."""
    name: str
    owner: str
    url: str
    commit: str
    license: str
    doi: str | None
    files: tuple[PinnedFile, ...]


@cache
def repositories() -> tuple[Repository, ...]:
    """The pinned repositories as ``pins.json`` lists them: the one record of what is imported."""
    data = json.loads(resources.files("dmbench.sources").joinpath("pins.json").read_text("utf-8"))
    return tuple(
        Repository(
            name=repo["name"],
            owner=repo["owner"],
            url=repo["url"],
            commit=repo["commit"],
            license=repo["license"],
            doi=repo.get("doi"),
            files=tuple(
                PinnedFile(repo["name"], f["path"], f["bytes"], f["sha256"], f["role"])
                for f in repo["files"]
            ),
        )
        for repo in data["repositories"]
    )


def pinned_files() -> tuple[PinnedFile, ...]:
    """Every pinned file of every repository, for fetching and checking them in one pass."""
    return tuple(f for repo in repositories() for f in repo.files)


def repository(name: str) -> Repository:
    """The pinned repository named ``name``; an unknown name is an error."""
    for repo in repositories():
        if repo.name == name:
            return repo
    raise UnknownNameError(f"no pinned repository {name!r}")


def pinned(relpath: str) -> PinnedFile:
    """The pin of the file at ``relpath``, so a reader can check it before trusting it."""
    for pin in pinned_files():
        if pin.relpath == relpath:
            return pin
    raise UnknownNameError(f"no pinned file {relpath!r}")


def read_verified(sources_dir: Path, pin: PinnedFile) -> bytes:
    """The file's bytes, or a SourceError naming the file, expected and actual hash."""
    path = Path(sources_dir) / pin.relpath
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(
            f"{path}: pinned upstream file is missing (expected sha256 {pin.sha256}); "
            "try `dmbench sources fetch` or --sources DIR"
        ) from None
    actual = sha256_bytes(data)
    if actual != pin.sha256:
        raise SourceError(
            f"{path}: sha256 mismatch: expected {pin.sha256}, got {actual} "
            f"({len(data)} bytes, expected {pin.bytes})"
        )
    return data


def verify_all(sources_dir: Path) -> dict[str, bytes]:
    """Every pinned file, checked; keys are the ``<repository>/<path>`` names."""
    return {pin.relpath: read_verified(sources_dir, pin) for pin in pinned_files()}
