"""Citation and deposit metadata, kept in one place.

``datapackage.json``, ``CITATION.cff``, ``codemeta.json``, ``.zenodo.json`` and a deposit's
Croissant file are all rendered from the constants here, ``dmbench.__version__`` and one
hand-edited source: ``CITATION.cff``'s ``authors``, ``doi`` and ``repository-code``, read back
by :func:`read_citation`. ``dmbench metadata`` rewrites the three committed files and a test
fails when they drift.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import metadata as distribution
from pathlib import Path
from typing import Any

import yaml

from dmbench._version import __version__
from dmbench.core.atomic import json_text
from dmbench.errors import PackageError
from dmbench.sources import BENCHMARK_REPO, METRICS_REPO, repository

NAME = "dmbench"
TITLE = "dmbench: a reproducible benchmark for automated domain modelling"
DESCRIPTION = (
    "Natural-language domain descriptions with expert reference UML class diagrams in PlantUML "
    "(a community-curated corpus and the education models of Chen et al. 2023), the outputs of "
    "rule-based and LLM-based candidates with their scores, and the code that re-scores them "
    "and rebuilds the published tables. The deposit's description gives the counts, read from "
    "its package."
)
SOFTWARE_DESCRIPTION = (
    "The Python package and command line behind the dmbench benchmark for automated domain "
    "modelling (natural-language text to UML class diagram in PlantUML): it builds the "
    "benchmark's data package from pinned upstream sources, runs rule-based and LLM-based "
    "candidates, scores their outputs with metrik-4 and the metrics of its study, rebuilds the "
    "published tables, and checks a deposit of the data offline."
)
"""What the code is: the code zip's CITATION.cff and codemeta.json describe software."""
DOI_PLACEHOLDER = "10.5281/zenodo.PLACEHOLDER"
LICENSE_ID = "MIT"
LICENSE_URL = "https://opensource.org/license/mit"
KEYWORDS = (
    "domain modelling",
    "UML class diagrams",
    "PlantUML",
    "benchmark",
    "large language models",
    "model-driven engineering",
    "metrik-4",
)
CREATOR = "The dmbench contributors"
CITATION_FILE = "CITATION.cff"
PAPER_DOI = "10.5281/zenodo.21166386"
METRICS_DOI = "10.5281/zenodo.20942597"
CHEN_DOI = "10.5281/zenodo.8105098"
CORPUS_DOI = "10.5281/zenodo.16985873"
CREATED = "2026-11-29T00:00:00Z"


@dataclass(frozen=True, slots=True)
class Person:
    """An author as CITATION.cff gives one: a person (family and given names) or an entity."""

    name: str = ""
    """An entity's name (a group, an organisation); empty for a person."""
    family_names: str = ""
    given_names: str = ""
    orcid: str = ""
    affiliation: str = ""
    email: str = ""

    @property
    def is_person(self) -> bool:
        return bool(self.family_names)

    @property
    def display(self) -> str:
        return f"{self.family_names}, {self.given_names}".rstrip(", ") if self.is_person else self.name


@dataclass(frozen=True, slots=True)
class Citation:
    """The hand-edited part of the metadata: who made it, its DOI, where its code lives."""

    authors: tuple[Person, ...] = (Person(name=CREATOR),)
    doi: str = DOI_PLACEHOLDER
    repository_code: str = ""

    @property
    def people(self) -> tuple[Person, ...]:
        return tuple(a for a in self.authors if a.is_person)

    def with_doi(self, doi: str) -> Citation:
        return replace(self, doi=doi)


_PERSON_KEYS = {
    "name": "name",
    "family-names": "family_names",
    "given-names": "given_names",
    "orcid": "orcid",
    "affiliation": "affiliation",
    "email": "email",
}


def read_citation(root: Path) -> Citation:
    """The authors, DOI and code repository of ``root/CITATION.cff`` (defaults without one)."""
    path = Path(root) / CITATION_FILE
    if not path.is_file():
        return Citation()
    try:
        data = yaml.safe_load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PackageError(f"{path}: not readable as YAML ({' '.join(str(exc).split())})") from None
    if not isinstance(data, dict) or not isinstance(data.get("authors"), list):
        raise PackageError(f"{path}: no list of authors", hint=PEOPLE_HINT)
    authors = []
    for number, entry in enumerate(data["authors"], start=1):
        if not isinstance(entry, dict) or not (entry.get("family-names") or entry.get("name")):
            raise PackageError(
                f"{path}: author {number} has neither family-names nor name", hint=PEOPLE_HINT
            )
        authors.append(
            Person(**{field: str(entry.get(key) or "") for key, field in _PERSON_KEYS.items()})
        )
    return Citation(
        tuple(authors),
        str(data.get("doi") or DOI_PLACEHOLDER),
        str(data.get("repository-code") or ""),
    )


PEOPLE_HINT = (
    f"add each author under `authors:` in {CITATION_FILE} (family-names, given-names, orcid, "
    "affiliation), run `dmbench metadata` and commit"
)


def _doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}"


def package_sources() -> list[dict[str, Any]]:
    """The upstream repositories at their pinned commits, as ``datapackage.json`` cites them."""
    bench = repository(BENCHMARK_REPO)
    metrics = repository(METRICS_REPO)
    return [
        {
            "title": f"{BENCHMARK_REPO} (benchmark code, corpora, published runs, prompts)",
            "path": f"{bench.url}/tree/{bench.commit}",
            "version": bench.commit,
        },
        {
            "title": f"{METRICS_REPO} (domain-model-metrics v1.0.0, metric study)",
            "path": f"{metrics.url}/tree/{metrics.commit}",
            "version": metrics.commit,
        },
        {
            "title": "Towards Standardized Evaluation in Automated Domain Modeling: "
            "Introducing a Benchmark (paper artefact)",
            "path": _doi_url(PAPER_DOI),
        },
        {"title": "domain-model-metrics v1.0.0", "path": _doi_url(METRICS_DOI)},
        {"title": "Chen et al. 2023 artefact (DS-2 reference models)", "path": _doi_url(CHEN_DOI)},
        {"title": "Community-curated domain-model corpus (DS-1)", "path": _doi_url(CORPUS_DOI)},
    ]


def package_licenses(extra: Sequence[dict[str, str]] = ()) -> list[dict[str, str]]:
    """Every licence a package holds data under: dmbench's, the upstream repositories' and the
    ``extra`` ones of what a deposit adds (WordNet's), as ``datapackage.json`` lists them."""
    return [
        {"name": LICENSE_ID, "path": LICENSE_URL, "title": "MIT License (dmbench)"},
        *(
            {
                "name": repo.license,
                "path": f"licenses/{repo.name}.LICENSE",
                "title": f"{repo.license} License of {repo.name} (its data and prompts)",
            }
            for repo in (repository(BENCHMARK_REPO), repository(METRICS_REPO))
        ),
        *extra,
    ]


def licence_sentence(licenses: Sequence[dict[str, str]]) -> str:
    """The licences in one sentence, each with where its text is, for the metadata fields
    that hold one licence id (CITATION.cff's SPDX ids, Zenodo's licence)."""
    return "Licences: " + "; ".join(f"{item['title']} ({item['path']})" for item in licenses) + "."


def package_header(
    doi: str | None = None,
    licenses: Sequence[dict[str, str]] = (),
    description: str = DESCRIPTION,
    citation: Citation | None = None,
    sources: Sequence[dict[str, str]] = (),
    created: str = CREATED,
) -> dict[str, Any]:
    """The top of ``datapackage.json`` (resources are added by the build); a deposit gives its
    reserved ``doi``, the ``licenses`` and ``sources`` of the extra data it carries, the
    description counted from its package, the ``citation`` whose authors it credits and the
    date it was ``created`` (its build date, the one date every file of a deposit gives)."""
    authors = (citation or Citation()).authors
    return {
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "name": NAME,
        "id": _doi_url(doi or DOI_PLACEHOLDER),
        "title": TITLE,
        "description": description,
        "version": __version__,
        "created": created,
        "keywords": list(KEYWORDS),
        "licenses": package_licenses(licenses),
        "contributors": [
            *(_contributor(author) for author in authors),
            {"title": "Vasiliy Seibert", "roles": ["author of the upstream benchmark and metric"]},
        ],
        "sources": [*package_sources(), *sources],
    }


def _contributor(author: Person) -> dict[str, Any]:
    entry: dict[str, Any] = {"title": author.display, "roles": ["creator"]}
    if author.is_person:
        entry |= {"givenName": author.given_names, "familyName": author.family_names}
    if author.orcid:
        entry["path"] = author.orcid
    if author.affiliation:
        entry["organization"] = author.affiliation
    if author.email:
        entry["email"] = author.email
    return entry


def related_identifiers(citation: Citation) -> list[dict[str, str]]:
    """The paper, the metric study and the corpora the deposit relates to, by DOI."""
    code = (
        [{"identifier": citation.repository_code, "relation": "isSupplementedBy", "scheme": "url"}]
        if citation.repository_code
        else []
    )
    return [
        {"identifier": PAPER_DOI, "relation": "isSupplementTo", "scheme": "doi"},
        {"identifier": METRICS_DOI, "relation": "requires", "scheme": "doi"},
        {"identifier": CHEN_DOI, "relation": "isDerivedFrom", "scheme": "doi"},
        {"identifier": CORPUS_DOI, "relation": "isDerivedFrom", "scheme": "doi"},
        *(
            {"identifier": f"{repo.url}/tree/{repo.commit}", "relation": "isDerivedFrom", "scheme": "url"}
            for repo in (repository(BENCHMARK_REPO), repository(METRICS_REPO))
        ),
        *code,
    ]


def _cff_author(author: Person, indent: str = "  ") -> list[str]:
    keys = [(key, getattr(author, field)) for key, field in _PERSON_KEYS.items()]
    present = [(key, value) for key, value in keys if value]
    return [
        f'{indent}{"- " if i == 0 else "  "}{key}: "{value}"' for i, (key, value) in enumerate(present)
    ]


def citation_cff(
    citation: Citation,
    description: str = SOFTWARE_DESCRIPTION,
    kind: str = "software",
    licenses: Sequence[dict[str, str]] = (),
    date: str | None = None,
) -> str:
    """CITATION.cff of the code (``kind`` software) or of a deposit's package (``dataset``,
    with the ``licenses`` it holds named in the abstract, since CFF takes SPDX ids only, and
    the deposit's release ``date``)."""
    spdx = sorted({item["name"] for item in licenses if item["name"] == LICENSE_ID}) or [LICENSE_ID]
    abstract = f"{description} {licence_sentence(licenses)}" if licenses else description
    lines = [
        "cff-version: 1.2.0",
        'message: "If you use this artifact, please cite it as below and cite the benchmark paper."',
        f"type: {kind}",
        f'title: "{TITLE}"',
        f'version: "{__version__}"',
        f'doi: "{citation.doi}"',
        *([f'date-released: "{date}"'] if date else []),
        f"license: {spdx[0]}",
        *([f'repository-code: "{citation.repository_code}"'] if citation.repository_code else []),
        "authors:",
        *(line for author in citation.authors for line in _cff_author(author)),
        f"abstract: {json.dumps(abstract)}",
        "keywords:",
        *(f'  - "{k}"' for k in KEYWORDS),
        "references:",
        "  - type: software",
        '    title: "domain-model-metrics"',
        '    version: "1.0.0"',
        f'    doi: "{METRICS_DOI}"',
        "    authors:",
        '      - family-names: "Seibert"',
        '        given-names: "Vasiliy"',
        "  - type: generic",
        '    title: "Towards Standardized Evaluation in Automated Domain Modeling: '
        'Introducing a Benchmark"',
        f'    doi: "{PAPER_DOI}"',
        "    authors:",
        '      - family-names: "Seibert"',
        '        given-names: "Vasiliy"',
    ]
    return "\n".join(lines) + "\n"


def schema_org_author(author: Person) -> dict[str, Any]:
    """The author as a schema.org Person or Organization (codemeta and Croissant use both)."""
    if not author.is_person:
        return {"@type": "Organization", "name": author.name}
    entry: dict[str, Any] = {
        "@type": "Person",
        "givenName": author.given_names,
        "familyName": author.family_names,
    }
    if author.orcid:
        entry["@id"] = author.orcid
    if author.affiliation:
        entry["affiliation"] = {"@type": "Organization", "name": author.affiliation}
    if author.email:
        entry["email"] = author.email
    return entry


def requirements() -> list[str]:
    """dmbench's runtime requirements as its installed metadata declares them (no extras)."""
    declared = distribution.requires(NAME) or []
    return [r for r in declared if "extra ==" not in r]


def codemeta(citation: Citation, description: str = SOFTWARE_DESCRIPTION) -> dict[str, Any]:
    """``codemeta.json``'s content, from the one metadata source every file is written from."""
    entry = {
        "@context": "https://w3id.org/codemeta/3.0",
        "@type": "SoftwareSourceCode",
        "name": NAME,
        "description": description,
        "version": __version__,
        "identifier": _doi_url(citation.doi),
        "license": "https://spdx.org/licenses/MIT",
        "programmingLanguage": "Python",
        "runtimePlatform": "Python >=3.11,<3.14",
        "keywords": list(KEYWORDS),
        "author": [schema_org_author(a) for a in citation.authors],
        "referencePublication": _doi_url(PAPER_DOI),
        "softwareRequirements": requirements(),
    }
    if citation.repository_code:
        entry["codeRepository"] = citation.repository_code
    return entry


def _zenodo_creator(author: Person) -> dict[str, str]:
    entry = {"name": author.display}
    if author.orcid:
        entry["orcid"] = author.orcid.removeprefix("https://orcid.org/")
    if author.affiliation:
        entry["affiliation"] = author.affiliation
    return entry


def zenodo(citation: Citation, description: str = DESCRIPTION) -> dict[str, Any]:
    """``.zenodo.json``'s content, so the deposit's record says what CITATION.cff says."""
    return {
        "upload_type": "dataset",
        "title": TITLE,
        "description": description,
        "version": __version__,
        "creators": [_zenodo_creator(a) for a in citation.authors],
        "license": "MIT",
        "access_right": "open",
        "keywords": list(KEYWORDS),
        "related_identifiers": related_identifiers(citation),
    }


def rendered_files(citation: Citation) -> dict[str, str]:
    """The metadata files of a checkout (or of a deposit's code zip), as they must read: the
    citation and codemeta describe the software, ``.zenodo.json`` the record it goes to."""
    return {
        CITATION_FILE: citation_cff(citation),
        "codemeta.json": json_text(codemeta(citation)),
        ".zenodo.json": json_text(zenodo(citation)),
    }


def write_metadata(root: Path) -> list[Path]:
    """Rewrite the three files in ``root`` from its CITATION.cff's authors, DOI and code URL."""
    written = []
    for name, text in rendered_files(read_citation(root)).items():
        path = Path(root) / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
