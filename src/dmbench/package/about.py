"""The files beside a deposit's ``datapackage.json`` that explain it to someone who unzips it.

``README.md`` (what it is, how to check it offline, how to cite it), ``CITATION.cff``, the
errata and ``croissant.json`` (MLCommons Croissant 1.0 with its RAI fields, the metadata ML
dataset venues ask for). Every count and name in them comes from the package's tables
(:mod:`dmbench.package.facts`) or the citation, at build time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench.core.escape import markdown_text
from dmbench.core.hashing import file_sha256
from dmbench.package.facts import (
    Facts,
    count,
    describe,
    judge_sentence,
    listing,
    llm_statuses,
    run_origins,
)
from dmbench.package.metadata import (
    CITATION_FILE,
    KEYWORDS,
    NAME,
    PAPER_DOI,
    TITLE,
    Citation,
    schema_org_author,
)
from dmbench.package.tables import (
    JUDGE_CONTROLS_PATH,
    JUDGE_STUDY_PATH,
    JUDGEMENTS_PATH,
    OUTPUTS_PATH,
    RUNS_PATH,
    SCORES_PATH,
)
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


@dataclass(frozen=True, slots=True)
class DepositFiles:
    """The names of the record's files the package README refers to."""

    package_zip: str
    code_zip: str
    wheels_zip: str = ""
    """Empty when the deposit carries no wheels."""


def _install(files: DepositFiles) -> list[str]:
    code_folder = files.code_zip.removesuffix("-code.zip")
    if not files.wheels_zip:
        return [
            "```",
            f"unzip -q {files.code_zip} && pip install -c {code_folder}/constraints.txt "
            f"./{code_folder}",
            f"dmbench check {files.package_zip}",
            "```",
            "",
            "`pip install` fetches the dependency versions dmbench was tested with from PyPI, "
            "so it needs the network (offline it fails with pip's \"ResolutionImpossible\" or "
            "\"No matching distribution\", which means \"no index reachable\", not a conflict); "
            "`dmbench check` needs none.",
        ]
    wheels_folder = files.wheels_zip.removesuffix(".zip")
    return [
        "```",
        f"unzip -q {files.code_zip} && unzip -q {files.wheels_zip}",
        f"pip install --no-index --find-links {wheels_folder} -c {code_folder}/constraints.txt "
        f"./{code_folder}",
        f"dmbench check {files.package_zip}",
        "```",
        "",
        f"`{files.wheels_zip}` holds every wheel `dmbench check` needs for Linux x86_64 and "
        f"CPython {PYTHON_RANGE}, so neither step needs the network. A plain `pip install` "
        "(without `--no-index --find-links`) fetches the wheels from PyPI and needs the "
        "network; offline it fails with pip's \"ResolutionImpossible\" or \"No matching "
        "distribution\", which means \"no index reachable\", not a conflict.",
    ]


def _judge_line(facts: Facts) -> str:
    judged = judge_sentence(facts, markdown_text)
    tables = f"`{JUDGEMENTS_PATH}`, `{JUDGE_CONTROLS_PATH}`, `{JUDGE_STUDY_PATH}`"
    if not judged:
        return f"- {tables}: empty (this package holds no judge runs)"
    return f"- {tables}: {judged}"


def readme(
    facts: Facts,
    citation: Citation,
    commit: str,
    version: str,
    files: DepositFiles,
    errata: str,
    licenses: list[dict[str, str]],
) -> str:
    """The package zip's README: what it is, the three ways in (``check``, ``frictionless``,
    pandas or ``dmbench.Package``), its licences, how to cite it."""
    doi = citation.doi
    authors = "; ".join(a.display for a in citation.authors)
    code = (
        f"The code: `{files.code_zip}` in the same record (the committed tree at `{commit}`)"
        + (f", developed at {citation.repository_code}" if citation.repository_code else "")
        + "."
    )
    findings = [f"- {line}" for line in errata_headlines(errata)]
    llms = tuple(map(markdown_text, facts.llms))
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
            f"With Python {PYTHON_RANGE}, in a fresh virtual environment (`python3 -m venv .venv "
            "&& . .venv/bin/activate`), from the folder that holds the record's files and "
            "`SHA256SUMS`:",
            "",
            *_install(files),
            "",
            "`dmbench check` compares the zip with `SHA256SUMS` beside it (or with `--md5 HEX` "
            "copied from the record page), validates the package, re-scores the "
            f"{facts.outputs} outputs with the NLTK data in `nltk_data/` under "
            f"{count(len(facts.metrics), 'metric')}, recomputes the published tables and prints "
            "a verdict naming every difference (file, row, column, shipped and recomputed "
            "value). Exit 0: it holds and the zip is the one the record lists; 1: something "
            "differs (download the zip again and compare its md5 with the record page's); 3: "
            "it holds but nothing outside it was compared (\"CONSISTENT, NOT ANCHORED\": put "
            "`SHA256SUMS` beside it or pass `--md5`). It takes well under a minute on 2 cores.",
            "",
            "## Three ways in",
            "",
            f"1. `dmbench check {files.package_zip}`, as above.",
            f"2. `frictionless validate {files.package_zip}` reads every table in the zip "
            "against its Table Schema and every file against its sha256 (no dmbench needed).",
            "3. In a notebook, straight from the zip:",
            "",
            "```python",
            "import zipfile",
            "import pandas as pd",
            "import dmbench",
            "",
            f'package = zipfile.ZipFile("{files.package_zip}")',
            'records = pd.read_csv(package.open("data/records.csv"))',
            'scores = pd.read_csv(package.open("data/scores.csv"))',
            'print(scores.groupby(["run_id", "metric"])["class_score"].mean().head())',
            f'print(dmbench.Package("{files.package_zip}").check(no_anchor=True).consistent)',
            "```",
            "",
            "## What is inside",
            "",
            f"- `data/`: {facts.records} records, {facts.runs} runs ({run_origins(facts)}) of "
            f"{listing(tuple(map(markdown_text, facts.candidates)))}"
            + (f" (LLMs: {listing(llms)})" if llms else "")
            + f", {facts.outputs} outputs, their scores ({listing(facts.metrics)})",
            *(
                [f"- the LLMs' runs: {llm_statuses(facts, markdown_text)}"]
                if facts.model_runs
                else []
            ),
            _judge_line(facts),
            "- `runs/`: the run store the tables are derived from; `prompts/`: the prompts",
            "- `results/`: the published tables, recomputed by `dmbench check`, and PlantUML's "
            "verdict on the outputs (`validity.*`), shipped as drawn (drawing needs Java)",
            "- `nltk_data/`: the NLTK files metrik-4 reads (WordNet 3.0 under its licence in "
            "`licenses/`)",
            f"- `{ERRATA}`: where the paper and its artifacts disagree; its findings:",
            *(f"  {line}" for line in findings),
            "",
            "## Licences",
            "",
            *(f"- {item['title']}: `{item['path']}`" for item in licenses),
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


def _croissant_licenses(licenses: list[dict[str, str]]) -> list[str]:
    """Every licence as a URL: a web page's own, a file in the package by its path."""
    return [item["path"] for item in licenses]


def _collection(facts: Facts) -> str:
    runs = []
    if facts.published_runs:
        runs.append(f"those of {count(facts.published_runs, 'run')} the upstream benchmark published")
    if facts.generated_runs:
        runs.append(f"those of {count(facts.generated_runs, 'run')} generated with dmbench")
    outputs = f"the outputs are {listing(tuple(runs))}, stored verbatim" if runs else "it holds no outputs"
    return (
        f"The {facts.records} records are byte-identical copies of the upstream benchmark's "
        f"corpora (pinned by commit and sha256); {outputs}."
    )


def _limitations(facts: Facts) -> str:
    judged = (
        f" and of {count(len(facts.judge_models), 'LLM judge')} ({listing(facts.judge_models)}) "
        f"in {facts.judgements} judgements"
        if facts.judge_runs
        else ""
    )
    return (
        f"{facts.records} records in English from two corpora; scores are those of automatic "
        f"metrics ({listing(facts.metrics)}){judged}, not of human experts. See {ERRATA} for "
        "where the published numbers and the artifacts disagree."
    )


def croissant(
    package_dir: Path,
    facts: Facts,
    citation: Citation,
    version: str,
    date: str,
    schemas: dict[str, dict[str, Any]],
    licenses: list[dict[str, str]],
) -> dict[str, Any]:
    """The Croissant 1.0 description of the package's four main tables, RAI fields included,
    every sentence written from ``facts``.

    ``schemas`` are the tables' Table Schemas by resource name (the fields' types and texts);
    ``licenses`` those the package holds, as ``datapackage.json`` lists them; ``date`` the
    deposit's one date.
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
    collection_types = ["Secondary Data Analysis"] + (["Machine-generated"] if facts.runs else [])
    return {
        "@context": _CONTEXT,
        "@type": "sc:Dataset",
        "name": NAME,
        "conformsTo": CROISSANT_VERSION,
        "description": f"{TITLE}. {describe(facts)}",
        "license": _croissant_licenses(licenses),
        "url": f"https://doi.org/{citation.doi}",
        "sameAs": f"https://doi.org/{citation.doi}",
        "version": version,
        "datePublished": date,
        "keywords": list(KEYWORDS),
        "citeAs": f"https://doi.org/{citation.doi}",
        "creator": [schema_org_author(a) for a in citation.authors],
        "isLiveDataset": False,
        "rai:dataCollection": _collection(facts),
        "rai:dataCollectionType": collection_types,
        "rai:dataLimitations": _limitations(facts),
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
