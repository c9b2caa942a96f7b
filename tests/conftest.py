"""Shared fixtures: the read-only ../shared material beside the checkout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import results_support

pytest_plugins = ("fake_ollama",)  # the fake_ollama fixture, for every test module

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream"
GOLDEN = SHARED / "golden"


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} is missing: the tests need ../shared beside the checkout")
    return SHARED


@pytest.fixture(scope="session")
def upstream_dir(shared_dir: Path) -> Path:
    return shared_dir / "upstream"


@pytest.fixture(scope="session")
def golden_dir(shared_dir: Path) -> Path:
    return shared_dir / "golden"


@pytest.fixture(scope="session")
def built_package() -> Path:
    """The package as ``dmbench build`` makes it, built once per session for every test module.

    Read it freely; copy it (``results_support.copy_package``) before changing it.
    """
    return results_support.built_package()
