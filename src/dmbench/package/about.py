"""The files beside a deposit's ``datapackage.json`` that explain it to someone who unzips it.

``README.md`` (what it is, how to check it offline, how to cite it), ``CITATION.cff``, the
errata and ``croissant.json`` (MLCommons Croissant 1.0 with its RAI fields, the metadata ML
dataset venues ask for). Every count and name in them comes from the package's tables
(:mod:`dmbench.package.facts`) or the citation, at build time.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from dmbench.core.escape import markdown_text
from dmbench.core.hashing import file_sha256
from dmbench.package.facts import Facts, count, describe, listing
from dmbench.package.metadata import (
    CITATION_FILE,
    KEYWORDS,
    LICENSE_URL,
    NAME,
    PAPER_DOI,
    TITLE,
    Citation,
    schema_org_author,
)
from dmbench.package.tables import OUTPUTS_PATH, RUNS_PATH, SCORES_PATH
from dmbench.sources.records import RECORDS_PATH

README = "README.md"
CITATION = CITATION_FILE
ERRATA = "errata.md"
CROISSANT = "croissant.json"
ABOUT_FILES = (README, CITATION, ERRATA, CROISSANT)
PYTHON_RANGE = "3.11 to 3.13"
CROISSANT_VERSION = "http://mlcommons.org/croissant/1.0"

#: Croissant's record sets: the four tables a model builder reads (name, path, description).
RECORD_SETS = (
    ("records", RECORDS_PATH, "One benchmark record: the domain text and its reference diagram."),
    ("runs", RUNS_PATH, "One generation run with its effective settings."),
    ("outputs", OUTPUTS_PATH, "The PlantUML a run generated for a record."),
    ("scores", SCORES_PATH, "A score of an output against its reference, per metric and origin."),
)
_DATA_TYPES = {
    "string": "sc:Text",
    "integer": "sc:Integer",
    "number": "sc:Float",
    "boolean": "sc:Boolean",
}


def errata_headlines(errata: str) -> list[str]:
    """The errata's findings: the bold sentence that sums up each section, after its title."""
    found, heading = [], ""
    for line in errata.splitlines():
        if line.startswith("#"):
            heading = re.sub(r"^#+\s*[\d.]*\s*", "", line)
        elif (bold := re.fullmatch(r"\*\*(.+)\*\*", line)) is not None:
            found.append(f"{heading}: {bold.group(1)}" if heading else bold.group(1))
    return found


def readme(
    facts: Facts, citation: Citation, commit: str, version: str, code_zip: str, package_zip: str,
    errata: str,
) -> str:
    """The package zip's README: what it is, the two commands that check it, how to cite it."""
    doi = citation.doi
    code_folder = code_zip.removesuffix("-code.zip")
    authors = "; ".join(a.display for a in citation.authors)
    code = (
        f"The code: `{code_zip}` in the same record (the committed tree at `{commit}`)"
        + (f", developed at {citation.repository_code}" if citation.repository_code else "")
        + "."
    )
    findings = [f"- {line}" for line in errata_headlines(errata)]
    return "\n".join(
        [
            f"# {TITLE}",
            "",
            f"Version {version} (dmbench {version}, built from commit `{commit}`), "
            f"DOI [{doi}](https://doi.org/{doi}).",
            "",
            describe(facts, markdown_text),
            "",
            "This zip is a Frictionless Data Package (`datapackage.json`); `croissant.json` "
            "describes the same tables in MLCommons Croissant. Every file is listed with its "
            "size and sha256 in `datapackage.json` or `data/files.csv`.",
            "",
            "## Check it offline",
            "",
            f"With Python {PYTHON_RANGE}, in a fresh virtual environment, from the folder that "
            "holds both zips of the record:",
            "",
            "```",
            f"unzip -q {code_zip} && pip install -c {code_folder}/constraints.txt ./{code_folder}",
            f"dmbench check {package_zip}",
            "```",
            "",
            "The first installs the code and its tested dependency versions from PyPI; the second "
            "needs no network: it compares the zip with `SHA256SUMS` beside it, validates the "
            f"package, re-scores the {facts.outputs} outputs with the NLTK data in `nltk_data/` "
            f"under {count(len(facts.metrics), 'metric')}, recomputes the published tables and "
            "prints a verdict naming every difference. It takes well under a minute on 2 cores "
            "(20-40 s measured). `frictionless validate` reads every table in the zip too.",
            "",
            "## What is inside",
            "",
            f"- `data/`: {facts.records} records, {facts.runs} runs of "
            f"{listing(tuple(map(markdown_text, facts.candidates)))}"
            + (f" (LLMs: {listing(tuple(map(markdown_text, facts.llms)))})" if facts.llms else "")
            + f", {facts.outputs} outputs, their scores "
            f"({listing(tuple(map(markdown_text, facts.metrics)))})",
            "- `runs/`: the run store the tables are derived from; `prompts/`: the prompts",
            "- `results/`: the published tables, recomputed by `dmbench check`, and PlantUML's "
            "verdict on the outputs (`validity.*`), shipped as drawn (drawing needs Java)",
            "- `nltk_data/`: the NLTK files metrik-4 reads (WordNet 3.0 under its licence in "
            "`licenses/`)",
            f"- `{ERRATA}`: where the paper and its artifacts disagree; its findings:",
            *(f"  {line}" for line in findings),
            "",
            "## Cite it",
            "",
            f"{authors}. {TITLE}, version {version}. https://doi.org/{doi} "
            f"(`{CITATION}`), and the benchmark paper, https://doi.org/{PAPER_DOI}.",
            "",
            code,
            "",
        ]
    )


def _fields(name: str, schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "@type": "cr:Field",
            "@id": f"{name}/{field['name']}",
            "name": field["name"],
            "description": field.get("description", field["name"]),
            "dataType": _DATA_TYPES.get(field.get("type", "string"), "sc:Text"),
            "source": {"fileObject": {"@id": f"{name}-csv"}, "extract": {"column": field["name"]}},
        }
        for field in schema["fields"]
    ]


def croissant(
    package_dir: Path,
    facts: Facts,
    citation: Citation,
    version: str,
    date: str,
    schemas: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The Croissant 1.0 description of the package's four main tables, RAI fields included.

    ``schemas`` are the tables' Table Schemas by resource name (the fields' types and texts).
    """
    distribution = [
        {
            "@type": "cr:FileObject",
            "@id": f"{name}-csv",
            "name": f"{name}-csv",
            "description": description,
            "contentUrl": path,
            "encodingFormat": "text/csv",
            "sha256": file_sha256(Path(package_dir) / path),
        }
        for name, path, description in RECORD_SETS
    ]
    record_sets = [
        {
            "@type": "cr:RecordSet",
            "@id": name,
            "name": name,
            "description": description,
            "key": [{"@id": f"{name}/{key}"} for key in schemas[name].get("primaryKey", [])],
            "field": _fields(name, schemas[name]),
        }
        for name, _path, description in RECORD_SETS
    ]
    return {
        "@context": _CONTEXT,
        "@type": "sc:Dataset",
        "name": NAME,
        "conformsTo": CROISSANT_VERSION,
        "description": f"{TITLE}. {describe(facts, markdown_text)}",
        "license": LICENSE_URL,
        "url": f"https://doi.org/{citation.doi}",
        "sameAs": f"https://doi.org/{citation.doi}",
        "version": version,
        "datePublished": date,
        "keywords": list(KEYWORDS),
        "citeAs": f"https://doi.org/{citation.doi}",
        "creator": [schema_org_author(a) for a in citation.authors],
        "isLiveDataset": False,
        "rai:dataCollection": (
            f"The {facts.records} records are byte-identical copies of the upstream benchmark's "
            "corpora (pinned by commit and sha256); the outputs are those of its published runs "
            "and of runs made with dmbench, stored verbatim."
        ),
        "rai:dataCollectionType": ["Secondary Data Analysis", "Machine-generated"],
        "rai:dataLimitations": (
            f"{facts.records} records in English from two corpora; scores are those of automatic "
            f"metrics ({listing(facts.metrics)}) and an LLM judge, not of human experts. See "
            f"{ERRATA} for where the published numbers and the artifacts disagree."
        ),
        "rai:dataBiases": (
            "The reference diagrams are one expert's model each; other valid models of a text "
            "score lower. The domains are those of software-engineering teaching material."
        ),
        "rai:personalSensitiveInformation": "None: the texts describe fictional systems.",
        "rai:dataUseCases": (
            "Evaluating and comparing automated domain modelling (text to UML class diagram); "
            "studying the metrics that score it."
        ),
        "rai:dataReleaseMaintenancePlan": (
            "Versioned Zenodo records; a new version gets a new DOI and its own errata."
        ),
        "distribution": distribution,
        "recordSet": record_sets,
    }


#: Croissant 1.0's JSON-LD context, as its specification gives it.
_CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
    "equivalentProperty": "cr:equivalentProperty",
    "samplingRate": "cr:samplingRate",
}
