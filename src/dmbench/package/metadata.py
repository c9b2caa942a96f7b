"""Citation and deposit metadata, kept in one place.

``datapackage.json``, ``CITATION.cff``, ``codemeta.json`` and ``.zenodo.json`` are all rendered
from the constants here and ``dmbench.__version__``; ``dmbench metadata`` rewrites the three
committed files and a test fails when they drift.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dmbench._version import __version__
from dmbench.core.atomic import json_text
from dmbench.sources import BENCHMARK_REPO, METRICS_REPO, repository
from dmbench.sources.records import DATASETS

NAME = "dmbench"
TITLE = "dmbench: a reproducible benchmark for automated domain modelling"
DESCRIPTION = (
    "Natural-language domain descriptions with expert reference UML class diagrams in PlantUML "
    f"(DS-1: {DATASETS['ds1'].expected_records} records of a community-curated corpus; DS-2: "
    f"{DATASETS['ds2'].expected_records} education models of Chen et al. "
    "2023), the outputs of three candidates (rule_based, chen, calamo) with two LLMs, their "
    "metrik-4 scores, and the code that re-scores them and rebuilds the published tables."
)
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
PAPER_DOI = "10.5281/zenodo.21166386"
METRICS_DOI = "10.5281/zenodo.20942597"
CHEN_DOI = "10.5281/zenodo.8105098"
CORPUS_DOI = "10.5281/zenodo.16985873"
CREATED = "2026-11-29T00:00:00Z"


def _doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}"


def package_sources() -> list[dict[str, Any]]:
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


def package_header(
    doi: str | None = None, licenses: Sequence[dict[str, str]] = ()
) -> dict[str, Any]:
    """The top of ``datapackage.json`` (resources are added by the build); a deposit gives its
    reserved ``doi`` and the ``licenses`` of the extra data it carries."""
    return {
        "$schema": "https://datapackage.org/profiles/2.0/datapackage.json",
        "name": NAME,
        "id": _doi_url(doi or DOI_PLACEHOLDER),
        "title": TITLE,
        "description": DESCRIPTION,
        "version": __version__,
        "created": CREATED,
        "keywords": list(KEYWORDS),
        "licenses": [
            {"name": LICENSE_ID, "path": LICENSE_URL, "title": "MIT License (dmbench)"},
            *(
                {
                    "name": repo.license,
                    "path": f"licenses/{repo.name}.LICENSE",
                    "title": f"{repo.license} License of {repo.name} (its data and prompts)",
                }
                for repo in (repository(BENCHMARK_REPO), repository(METRICS_REPO))
            ),
            *licenses,
        ],
        "contributors": [
            {"title": CREATOR, "roles": ["creator"]},
            {"title": "Vasiliy Seibert", "roles": ["author of the upstream benchmark and metric"]},
        ],
        "sources": package_sources(),
    }


def _related_identifiers() -> list[dict[str, str]]:
    return [
        {"identifier": PAPER_DOI, "relation": "isSupplementTo", "scheme": "doi"},
        {"identifier": METRICS_DOI, "relation": "requires", "scheme": "doi"},
        {"identifier": CHEN_DOI, "relation": "isDerivedFrom", "scheme": "doi"},
        {"identifier": CORPUS_DOI, "relation": "isDerivedFrom", "scheme": "doi"},
        *(
            {"identifier": f"{repo.url}/tree/{repo.commit}", "relation": "isDerivedFrom", "scheme": "url"}
            for repo in (repository(BENCHMARK_REPO), repository(METRICS_REPO))
        ),
    ]


def citation_cff() -> str:
    lines = [
        "cff-version: 1.2.0",
        'message: "If you use this artifact, please cite it as below and cite the benchmark paper."',
        "type: dataset",
        f'title: "{TITLE}"',
        f'version: "{__version__}"',
        f'doi: "{DOI_PLACEHOLDER}"',
        f"license: {LICENSE_ID}",
        "authors:",
        f'  - name: "{CREATOR}"',
        f'abstract: "{DESCRIPTION}"',
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


def codemeta() -> dict[str, Any]:
    return {
        "@context": "https://w3id.org/codemeta/3.0",
        "@type": "SoftwareSourceCode",
        "name": NAME,
        "description": DESCRIPTION,
        "version": __version__,
        "identifier": _doi_url(DOI_PLACEHOLDER),
        "license": "https://spdx.org/licenses/MIT",
        "programmingLanguage": "Python",
        "runtimePlatform": "Python 3.11",
        "keywords": list(KEYWORDS),
        "author": [{"@type": "Organization", "name": CREATOR}],
        "referencePublication": _doi_url(PAPER_DOI),
        "softwareRequirements": [
            "frictionless", "click", "pandas", "numpy", "lark", "nltk", "spacy", "ollama"
        ],
    }


def zenodo() -> dict[str, Any]:
    return {
        "upload_type": "dataset",
        "title": TITLE,
        "description": DESCRIPTION,
        "version": __version__,
        "creators": [{"name": CREATOR}],
        "license": "MIT",
        "access_right": "open",
        "keywords": list(KEYWORDS),
        "related_identifiers": _related_identifiers(),
    }


def rendered_files() -> dict[str, str]:
    """The committed metadata files, as they must read."""
    return {
        "CITATION.cff": citation_cff(),
        "codemeta.json": json_text(codemeta()),
        ".zenodo.json": json_text(zenodo()),
    }


def write_metadata(root: Path) -> list[Path]:
    written = []
    for name, text in rendered_files().items():
        path = Path(root) / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
