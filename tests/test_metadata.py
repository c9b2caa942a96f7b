"""Citation metadata: rendered from one source, valid against the official CFF schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dmbench import __version__
from dmbench.package.metadata import read_citation, rendered_files

ROOT = Path(__file__).resolve().parents[1]


def test_committed_metadata_files_are_up_to_date() -> None:
    """Regenerate with `dmbench metadata` when this fails."""
    for name, text in rendered_files(read_citation(ROOT)).items():
        assert (ROOT / name).read_text(encoding="utf-8") == text, name


def test_citation_cff_validates_against_the_official_schema() -> None:
    checker = Path(sys.executable).with_name("check-jsonschema")
    result = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.citation-file-format", str(ROOT / "CITATION.cff")],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_version_is_the_package_version_everywhere() -> None:
    assert f'version: "{__version__}"' in (ROOT / "CITATION.cff").read_text()
    assert json.loads((ROOT / "codemeta.json").read_text())["version"] == __version__
    zenodo = json.loads((ROOT / ".zenodo.json").read_text())
    assert zenodo["version"] == __version__
    assert zenodo["upload_type"] == "dataset"
    identifiers = {r["identifier"] for r in zenodo["related_identifiers"]}
    assert {
        "10.5281/zenodo.21166386",
        "10.5281/zenodo.20942597",
        "10.5281/zenodo.8105098",
        "10.5281/zenodo.16985873",
    } <= identifiers
