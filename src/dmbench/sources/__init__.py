"""Upstream inputs: the pinned list, the hash check, and the download of the pinned archives."""

from dmbench.sources.fetch import DEFAULT_BASE_URL, archive_url, fetch
from dmbench.sources.pins import (
    BENCHMARK_REPO,
    METRICS_REPO,
    PinnedFile,
    Repository,
    pinned,
    pinned_files,
    read_verified,
    repositories,
    repository,
    sha256_bytes,
    verify_all,
)

__all__ = [
    "BENCHMARK_REPO",
    "DEFAULT_BASE_URL",
    "METRICS_REPO",
    "PinnedFile",
    "Repository",
    "archive_url",
    "fetch",
    "pinned",
    "pinned_files",
    "read_verified",
    "repositories",
    "repository",
    "sha256_bytes",
    "verify_all",
]
