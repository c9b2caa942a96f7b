"""Citation metadata: rendered from one source, valid against the official CFF schema."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from importlib import metadata as distribution
from pathlib import Path

import pytest

from dmbench import __version__
from dmbench.errors import PackageError
from dmbench.package.facts import describe, package_facts
from dmbench.package.metadata import (
    package_header,
    read_citation,
    rendered_files,
    requirements,
    write_metadata,
)

ROOT = Path(__file__).resolve().parents[2]


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


def _person_citation(root: Path) -> None:
    (root / "CITATION.cff").write_text(
        "cff-version: 1.2.0\n"
        "repository-code: \"https://example.org/dmbench\"\n"
        "authors:\n"
        '  - family-names: "Lovelace"\n'
        '    given-names: "Ada"\n'
        '    orcid: "https://orcid.org/0000-0002-1825-0097"\n'
        '    affiliation: "Analytical Engines Ltd"\n',
        encoding="utf-8",
    )


def test_citation_authors_feed_codemeta_zenodo_and_the_package(tmp_path: Path) -> None:
    """One source of people: CITATION.cff's authors, rewritten into the other files."""
    _person_citation(tmp_path)
    write_metadata(tmp_path)
    codemeta = json.loads((tmp_path / "codemeta.json").read_text())
    assert codemeta["author"] == [
        {
            "@type": "Person",
            "givenName": "Ada",
            "familyName": "Lovelace",
            "@id": "https://orcid.org/0000-0002-1825-0097",
            "affiliation": {"@type": "Organization", "name": "Analytical Engines Ltd"},
        }
    ]
    assert codemeta["codeRepository"] == "https://example.org/dmbench"
    zenodo = json.loads((tmp_path / ".zenodo.json").read_text())
    assert zenodo["creators"] == [
        {"name": "Lovelace, Ada", "orcid": "0000-0002-1825-0097", "affiliation": "Analytical Engines Ltd"}
    ]
    assert {"identifier": "https://example.org/dmbench", "relation": "isSupplementedBy",
            "scheme": "url"} in zenodo["related_identifiers"]
    header = package_header(citation=read_citation(tmp_path))
    assert header["contributors"][0]["title"] == "Lovelace, Ada"
    checker = Path(sys.executable).with_name("check-jsonschema")
    result = subprocess.run(
        [str(checker), "--builtin-schema", "vendor.citation-file-format", str(tmp_path / "CITATION.cff")],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert read_citation(tmp_path) == read_citation(tmp_path)  # rewritten file reads back the same


def test_an_author_without_a_name_is_one_line_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "CITATION.cff").write_text("authors:\n  - orcid: x\n", encoding="utf-8")
    with pytest.raises(PackageError, match="author 1 has neither family-names nor name") as error:
        read_citation(tmp_path)
    assert "CITATION.cff" in error.value.hint


def _table(path: Path, keep) -> None:
    rows = list(csv.DictReader(path.open(encoding="utf-8", newline="")))
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(r for r in rows if keep(r))


@pytest.mark.needs_shared
def test_the_description_follows_the_package(built_package: Path, tmp_path: Path) -> None:
    """Counts are read from the tables: drop the minimax runs and a metric, the text follows."""
    for name in ("records", "runs", "outputs", "scores"):
        (tmp_path / "data").mkdir(exist_ok=True)
        shutil.copy(built_package / "data" / f"{name}.csv", tmp_path / "data")
    before = describe(package_facts(tmp_path))
    assert "three LLMs" in before and "42 runs" in before and "one metric (metrik-4)" in before
    _table(tmp_path / "data" / "runs.csv", lambda r: not r["model"].startswith("minimax"))
    _table(tmp_path / "data" / "scores.csv", lambda r: False)
    after = describe(package_facts(tmp_path))
    assert "two LLMs (glm-5.1:cloud and kimi-k2.6:cloud)" in after and "30 runs" in after
    assert "no metrics" in after


def test_constraints_pin_every_dependency_from_pypi() -> None:
    """constraints.txt is `pip freeze --exclude-editable` of the test venv: exact pins only."""
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, version = line.split("==")
        assert re.fullmatch(r"[A-Za-z0-9._-]+", name) and re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version)
        pins[name.lower().replace("_", "-")] = version
    assert "dmbench" not in pins
    for requirement in requirements() + list(distribution.requires("dmbench") or []):
        name = re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        assert name in pins or name == "dmbench", requirement  # dmbench[extra]: itself
