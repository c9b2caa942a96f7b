"""``dmbench deposit``: the files of a Zenodo record, built reproducibly, and their upload.

A deposit is four files: the data package as a zip with ``datapackage.json`` at its root (so
``frictionless validate`` reads every table inside it), the committed tree at HEAD as a code
zip, the metadata for Zenodo's API and a ``SHA256SUMS`` list; with ``wheels``, a fifth, the
wheels the code installs from with no index (:mod:`dmbench.release.wheels`). The package zip carries what
checking it needs offline besides the code: the published tables and PlantUML's verdict
(``results/validity.csv``) as tabular resources with Table Schemas, the NLTK data subset
metrik-4 reads (each file pinned by sha256) with the WordNet licence, the files that explain it
to whoever unzips it (:mod:`dmbench.package.about`) and every file's hash. The code zip's
metadata files carry the deposit's DOI. Two builds from one commit are byte-identical (see
:mod:`dmbench.package.archive`). The files are made beside ``--out`` and swapped in whole
(:mod:`dmbench.report.outdir`).

A release refuses a dirty tree, a placeholder DOI or a ``CITATION.cff`` that names no person;
``draft`` builds anyway, for trying things out. The upload creates (or versions) a Zenodo draft, takes the DOI Zenodo reserved
for it, builds with that DOI, uploads and checks every file; a person publishes the draft.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dmbench._version import __version__
from dmbench.core import atomic
from dmbench.core.escape import html_text
from dmbench.core.hashing import file_sha256
from dmbench.core.paths import PACKAGE_NLTK_DIR
from dmbench.errors import PackageError
from dmbench.metrics.nltk_data import RESOURCES, find_read_files, find_wordnet_license
from dmbench.metrics.nltk_pins import refuse_unpinned
from dmbench.package import validate_package
from dmbench.package.about import (
    ABOUT_FILES,
    CITATION,
    CROISSANT,
    ERRATA,
    PYTHON_RANGE,
    README,
    DepositFiles,
    croissant,
    readme,
)
from dmbench.package.archive import (
    Member,
    build_epoch,
    committed_tree,
    folder_members,
    git_state,
    write_stored_zip,
    zip_bytes,
)
from dmbench.package.build import install_schemas
from dmbench.package.descriptor import (
    LICENSES_DIR,
    REPORT_DIR,
    RESULTS_DIR,
    SCHEMAS_DIR,
    ResourceSpec,
    write_descriptor,
)
from dmbench.package.facts import Facts, describe, package_facts
from dmbench.package.metadata import (
    CITATION_FILE,
    DESCRIPTION,
    DOI_PLACEHOLDER,
    PEOPLE_HINT,
    Citation,
    citation_cff,
    licence_sentence,
    package_licenses,
    read_citation,
    rendered_files,
    zenodo,
)
from dmbench.package.swap import PACKAGE_FOLDERS
from dmbench.package.zenodo import Draft, UploadedFile, ZenodoClient
from dmbench.package.zipped import SUMS_FILE
from dmbench.release.wheels import cached_wheels
from dmbench.report.outdir import refuse_foreign, staging_for, swap_in
from dmbench.tables.published_tables import published_tables
from dmbench.tables.render import TABLE_TITLES, write_tables
from dmbench.tables.schemas import column_values, table_schema
from dmbench.tables.validity import VALIDITY_FIELDS, VALIDITY_FILES

PACKAGE_ZIP = f"dmbench-{__version__}-package.zip"
CODE_ZIP = f"dmbench-{__version__}-code.zip"
WHEELS_ZIP = f"dmbench-{__version__}-wheels.zip"
"""With ``--wheels``: every wheel the code needs, under one folder of the zip's name."""
METADATA_FILE = "zenodo-metadata.json"
DEPOSIT_FILES = (
    "dmbench-*-package.zip",
    "dmbench-*-code.zip",
    "dmbench-*-wheels.zip",
    METADATA_FILE,
    SUMS_FILE,
    ".*.tmp",
)
"""What a deposit folder holds (one written before deposits were swapped in had no marker and
could keep an interrupted write's temporary files): `--out` may be one."""
WORDNET_LICENSE = f"{LICENSES_DIR}/WordNet-3.0.LICENSE"
ERRATA_PATH = "docs/errata.md"
NLTK_SOURCE = {
    "title": f"NLTK data ({', '.join(RESOURCES)}): the files of {PACKAGE_NLTK_DIR}/, each with "
    "the sha256 pinned in dmbench.metrics.nltk_pins; WordNet 3.0 under its licence in "
    f"{LICENSES_DIR}/",
    "path": "https://www.nltk.org/nltk_data/",
}
DOI_PATTERN = re.compile(r"^10\.\d{4,9}/\S+$")


@dataclass(frozen=True, slots=True)
class Deposit:
    """The deposit's files as built, with the DOI and commit they were built for."""
    out_dir: Path
    files: tuple[Path, ...]
    """Package zip, code zip (wheels zip), metadata, checksums: what goes to Zenodo."""
    doi: str
    commit: str
    draft: bool
    package_files: int
    """Members of the package zip."""
    seconds: float


def refuse_dirty(dirty: tuple[str, ...], draft: bool) -> None:
    """A release archives the commit, so uncommitted changes would be silently left out."""
    if dirty and not draft:
        shown = "; ".join(line.strip() for line in dirty[:5])
        more = f" and {len(dirty) - 5} more" if len(dirty) > 5 else ""
        raise PackageError(
            f"the working tree has uncommitted changes ({shown}{more}), which a deposit of the "
            "commit would leave out",
            hint="commit or stash them, or build a trial deposit with --draft",
        )


def refuse_doi(doi: str, draft: bool) -> None:
    """Refuse a malformed DOI, and the placeholder outside a draft, before anything is built."""
    if not DOI_PATTERN.match(doi):
        raise PackageError(f"{doi!r} is not a DOI (10.<registrant>/<suffix>)")
    if doi == DOI_PLACEHOLDER and not draft:
        raise PackageError(
            f"the DOI is the placeholder {DOI_PLACEHOLDER}",
            hint="reserve one on Zenodo and pass --doi 10.5281/zenodo.N (or let --upload "
            "reserve it), or build a trial deposit with --draft",
        )


def refuse_nameless(citation: Citation, draft: bool) -> None:
    """A record credits people: the collective placeholder author is for trials only."""
    if not citation.people and not draft:
        raise PackageError(
            f"{CITATION_FILE} names no person among its authors, and a published record credits "
            "people",
            hint=f"{PEOPLE_HINT}; or build a trial deposit with --draft",
        )


def _results_resources(staging: Path) -> list[ResourceSpec]:
    """Write the published tables into the staged package, each CSV with its Table Schema."""
    specs = []
    for result_set, table in published_tables(staging):
        folder = staging / RESULTS_DIR / result_set.folder
        columns = column_values(table)
        for path in write_tables(table, folder):
            if path.suffix != ".csv":
                continue
            rel = path.relative_to(staging).as_posix()
            name = "-".join(["results", *filter(None, [result_set.folder, path.stem])])
            title = f"{TABLE_TITLES.get(path.stem, path.stem)} ({result_set.metric})"
            schema = table_schema(path, title, columns[path.stem])
            atomic.write_json(staging / SCHEMAS_DIR / f"{name}.schema.json", schema)
            specs.append(
                ResourceSpec(
                    name,
                    rel,
                    title,
                    f"Published table, metric {result_set.metric}, {result_set.source} score "
                    "rows; `dmbench check` recomputes it from this package.",
                )
            )
    return specs


VALIDITY_TITLE = "PlantUML's verdict on the canonical outputs and the references"


def _require_validity(package_dir: Path) -> Path:
    """The package's ``results/`` holding PlantUML's verdict, or the refusal naming the fix."""
    source = package_dir / RESULTS_DIR
    missing = [n for n in VALIDITY_FILES if (source / n).is_symlink() or not (source / n).is_file()]
    if missing:
        raise PackageError(
            f"{source}: no {', '.join(missing)} (PlantUML's verdict, which the deposit ships)",
            hint=f"`dmbench validity --out {source}` writes them, as the main job does",
        )
    return source


def _validity_resource(package_dir: Path, staging: Path) -> ResourceSpec:
    """PlantUML's verdict as the main job wrote it into the package's ``results/``. Drawing
    needs Java and Graphviz, so the deposit ships it as made and ``check`` checks its hash
    (redrawing it only with ``--plantuml``)."""
    source = _require_validity(package_dir)
    for name in VALIDITY_FILES:
        shutil.copyfile(source / name, staging / RESULTS_DIR / name)
    try:
        rows = json.loads((source / "validity.json").read_text("utf-8"))["rows"]
        columns = {name: [row.get(name) for row in rows] for name in VALIDITY_FIELDS}
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise PackageError(
            f"{source / 'validity.json'}: not the table `dmbench validity` writes ({exc})",
            hint=f"`dmbench validity --out {source}` rewrites it",
        ) from exc
    schema = table_schema(staging / RESULTS_DIR / "validity.csv", VALIDITY_TITLE, columns)
    atomic.write_json(staging / SCHEMAS_DIR / "results-validity.schema.json", schema)
    return ResourceSpec(
        "results-validity",
        f"{RESULTS_DIR}/validity.csv",
        VALIDITY_TITLE,
        "One row per canonical series and dataset (`dmbench validity`; the references' counts "
        "are in validity.json): outputs PlantUML rejects, draws after a repair or cannot draw, "
        "and those the upstream validator and the standard reading reject. Shipped as the main "
        "job drew it; `dmbench check` checks its hash but does not recompute it unless asked "
        "(`--plantuml`: PlantUML needs Java and Graphviz).",
    )


def _nltk_data(package_dir: Path, staging: Path) -> dict[str, str]:
    """Copy the NLTK files metrik-4 reads and the WordNet licence; the licence entry."""
    data_dir, files = find_read_files(package_dir)
    for rel, source in files.items():
        refuse_unpinned(rel, source)
        target = staging / PACKAGE_NLTK_DIR / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    shutil.copyfile(find_wordnet_license(data_dir), staging / WORDNET_LICENSE)
    return {
        "name": "WordNet-3.0",
        "path": WORDNET_LICENSE,
        "title": f"WordNet 3.0 License (Princeton University), for {PACKAGE_NLTK_DIR}/corpora/wordnet",
    }


@dataclass(frozen=True, slots=True)
class Release:
    """What a deposit's files say about where they come from."""

    citation: Citation
    commit: str
    epoch: int
    errata: str
    """The committed ``docs/errata.md`` of the archived commit."""
    wheels: bool = False
    """The deposit carries the wheels zip."""

    @property
    def date(self) -> str:
        """The deposit's one date (its build time's day), in every file that gives one."""
        return time.strftime("%Y-%m-%d", time.gmtime(self.epoch))

    @property
    def files(self) -> DepositFiles:
        return DepositFiles(PACKAGE_ZIP, CODE_ZIP, WHEELS_ZIP if self.wheels else "")


def _about_files(staging: Path, release: Release, licenses: list[dict[str, str]]) -> None:
    """README, citation, errata and Croissant beside the staged package's descriptor."""
    facts = package_facts(staging)
    schemas = {
        name: json.loads((staging / SCHEMAS_DIR / f"{name}.schema.json").read_text("utf-8"))
        for name in ("records", "runs", "outputs", "scores")
    }
    texts = {
        README: readme(
            facts, release.citation, release.commit, __version__, release.files,
            release.errata, licenses,
        ),
        CITATION: citation_cff(
            release.citation, describe(facts), "dataset", licenses, release.date
        ),
        ERRATA: release.errata,
    }
    for name, text in texts.items():
        atomic.write_text(staging / name, text)
    atomic.write_json(
        staging / CROISSANT,
        croissant(staging, facts, release.citation, __version__, release.date, schemas, licenses),
    )


def stage_package(package_dir: Path, staging: Path, release: Release) -> None:
    """The deposit's package in ``staging``: the built package plus results, NLTK data and the
    files that explain it."""
    report = validate_package(package_dir)
    if not report.valid:
        raise PackageError(
            f"the package in {package_dir} does not validate:\n" + report.render(),
            hint="`dmbench reproduce` rebuilds, re-scores and re-validates it",
        )
    for name in PACKAGE_FOLDERS:  # links are copied as links, for the zip to refuse
        shutil.copytree(
            package_dir / name, staging / name, symlinks=True, ignore=shutil.ignore_patterns(".*")
        )
    install_schemas(staging)  # the schemas of the code the deposit archives
    folders = [RESULTS_DIR, PACKAGE_NLTK_DIR]
    if (package_dir / REPORT_DIR).is_dir():  # the main job's HTML report, shipped as built
        shutil.copytree(
            package_dir / REPORT_DIR,
            staging / REPORT_DIR,
            symlinks=True,
            ignore=shutil.ignore_patterns(".*"),  # the report's own marker and staging
        )
        folders.append(REPORT_DIR)
    licence = _nltk_data(package_dir, staging)
    tables = [*_results_resources(staging), _validity_resource(package_dir, staging)]
    _about_files(staging, release, package_licenses([licence]))
    write_descriptor(
        staging,
        doi=release.citation.doi,
        tables=tables,
        folders=folders,
        licenses=[licence],
        citation=release.citation,
        build={"dmbench_version": __version__, "commit": release.commit},
        root_files=ABOUT_FILES,
        sources=[NLTK_SOURCE],
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(release.epoch)),
    )


def _check_zip(path: Path) -> None:
    """Read the written zip back as a downloader will: only its declared files, validated.

    The one check of what was staged: the zip holds exactly the staged files, so validating the
    staging folder as well would read every table a third time for nothing."""
    report = validate_package(path)
    if not report.valid:
        raise PackageError(f"{path} does not validate once extracted:\n" + report.render())


def zenodo_metadata(
    citation: Citation,
    epoch: int,
    facts: Facts | None = None,
    doi: str | None = None,
    licenses: list[dict[str, str]] | None = None,
    wheels: bool = False,
) -> dict[str, Any]:
    """What Zenodo's API takes for the record: ``.zenodo.json``'s fields plus DOI and date.

    The description, counted from the package's ``facts`` (the generic one before they
    exist), is HTML, as Zenodo renders it: every name in it is escaped."""
    metadata = zenodo(citation)
    code = f"dmbench-{__version__}"
    install = (
        f"unzip {CODE_ZIP} and {WHEELS_ZIP}, pip install --no-index --find-links {code}-wheels "
        f"-c {code}/constraints.txt ./{code} (no network needed; Linux x86_64, CPython "
        f"{PYTHON_RANGE})"
        if wheels
        else f"unzip {CODE_ZIP}, pip install -c {code}/constraints.txt ./{code} (this step "
        "needs PyPI)"
    )
    text = " ".join(
        [
            describe(facts) if facts is not None else DESCRIPTION,
            *([licence_sentence(licenses)] if licenses else []),
            f"Check it offline: {install}, then dmbench check {PACKAGE_ZIP} beside SHA256SUMS "
            "(see README.md in the package zip).",
        ]
    )
    metadata["description"] = html_text(text)
    metadata["publication_date"] = time.strftime("%Y-%m-%d", time.gmtime(epoch))
    if doi:
        metadata["doi"] = doi
    return {"metadata": metadata}


def _code_members(repo: Path, citation: Citation) -> list[Member]:
    """The committed tree, its metadata files rendered with the deposit's DOI (and nothing
    else changed, so ``dmbench metadata`` run there finds them up to date)."""
    prefix = f"dmbench-{__version__}/"
    rendered = {prefix + name: text for name, text in rendered_files(citation).items()}
    members = [m for m in committed_tree(repo, prefix) if m.name not in rendered]
    return members + [Member(name, text.encode("utf-8")) for name, text in rendered.items()]


def _wheels_zip(tree: list[Member], staging: Path, epoch: int) -> Path:
    """The wheels zip of the archived commit's requirements, written into ``staging`` from the
    user's wheel cache (fetched there first when needed)."""
    with tempfile.TemporaryDirectory(dir=staging, prefix="wheels-") as tmp:
        code_dir = Path(tmp) / "code"
        for member in tree:
            if member.name in ("pyproject.toml", "constraints.txt"):
                target = code_dir / member.name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(member.data)
        folder = WHEELS_ZIP.removesuffix(".zip")
        wheels = cached_wheels(code_dir)
        target = staging / WHEELS_ZIP
        write_stored_zip(target, [(f"{folder}/{w.name}", w) for w in wheels], epoch)
    return target


def build_deposit(
    package_dir: Path,
    out_dir: Path,
    doi: str | None = None,
    draft: bool = False,
    repo: Path | None = None,
    wheels: bool = False,
) -> Deposit:
    """Write the deposit's four files (five with ``wheels``) into ``out_dir`` (see the module),
    replacing it whole: they are made in a staging folder beside it and swapped in, so a killed
    deposit leaves the earlier deposit or the new one, and the next run removes what it left."""
    started = time.perf_counter()
    package_dir, repo = Path(package_dir).resolve(), Path(repo or package_dir).resolve()
    doi = doi or DOI_PLACEHOLDER
    state = git_state(repo)
    refuse_dirty(state.dirty, draft)
    refuse_doi(doi, draft)
    citation = read_citation(repo).with_doi(doi)
    refuse_nameless(citation, draft)
    epoch = build_epoch(state)
    tree = committed_tree(repo, "")
    errata = next((m.data.decode("utf-8") for m in tree if m.name == ERRATA_PATH), "")
    release = Release(citation, state.commit, epoch, errata, wheels)
    out_dir = Path(os.path.abspath(out_dir))  # `--out .` is swapped away from under the cwd
    refuse_foreign(out_dir, package_dir, "deposit", own_files=DEPOSIT_FILES)
    staging = staging_for(out_dir)
    try:
        package_staging = staging / "package"
        package_staging.mkdir()
        stage_package(package_dir, package_staging, release)
        facts = package_facts(package_staging)
        licenses = json.loads((package_staging / "datapackage.json").read_text("utf-8"))["licenses"]
        try:
            members = folder_members(package_staging)
        except PackageError as error:  # staged as the package holds it: name the package
            raise PackageError(f"in {package_dir}, {error}") from None
        shutil.rmtree(package_staging)
        package_zip = staging / PACKAGE_ZIP
        atomic.write_bytes(package_zip, zip_bytes(members, epoch))
        _check_zip(package_zip)
        code_zip = staging / CODE_ZIP
        atomic.write_bytes(code_zip, zip_bytes(_code_members(repo, citation), epoch))
        extra = [_wheels_zip(tree, staging, epoch)] if wheels else []
        metadata = staging / METADATA_FILE
        atomic.write_json(
            metadata, zenodo_metadata(citation, epoch, facts, doi, licenses, wheels)
        )
        listed = (package_zip, code_zip, *extra, metadata)
        atomic.write_text(
            staging / SUMS_FILE, "".join(f"{file_sha256(p)}  {p.name}\n" for p in listed)
        )
        swap_in(staging, out_dir, "dmbench deposit\n")
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    files = tuple(out_dir / p.name for p in (*listed, staging / SUMS_FILE))
    return Deposit(
        out_dir,
        files,
        doi,
        state.commit,
        draft,
        len(members),
        time.perf_counter() - started,
    )


@dataclass(frozen=True, slots=True)
class Upload:
    """An uploaded deposit: the files built, the Zenodo draft and what Zenodo stored."""
    deposit: Deposit
    draft: Draft
    files: tuple[UploadedFile, ...]


def upload_deposit(
    client: ZenodoClient,
    package_dir: Path,
    out_dir: Path,
    new_version_of: int | None = None,
    draft: bool = False,
    repo: Path | None = None,
    progress: Callable[[str], None] = lambda _: None,
    wheels: bool = False,
) -> Upload:
    """Reserve the DOI on a Zenodo draft, build the deposit with it, upload and check it."""
    state = git_state(Path(repo or package_dir))
    refuse_dirty(state.dirty, draft)
    citation = read_citation(Path(repo or package_dir))
    if new_version_of is None:
        refuse_nameless(citation, draft)
    # What build_deposit would refuse is refused before a draft (and its DOI) exists on Zenodo.
    refuse_foreign(Path(os.path.abspath(out_dir)), Path(package_dir).resolve(), "deposit",
                   own_files=DEPOSIT_FILES)  # fmt: skip
    _require_validity(Path(package_dir).resolve())
    if new_version_of is None:
        record = client.create_draft(zenodo_metadata(citation, build_epoch(state))["metadata"])
    else:
        record = client.new_version(new_version_of)
    progress(f"draft {record.id}: DOI {record.doi} reserved")
    deposit = build_deposit(package_dir, out_dir, record.doi, draft, repo, wheels)
    progress(f"built {len(deposit.files)} files in {deposit.out_dir}")
    metadata = json.loads((deposit.out_dir / METADATA_FILE).read_text("utf-8"))["metadata"]
    client.set_metadata(record, metadata)
    uploaded = []
    for path in deposit.files:
        uploaded.append(client.upload(record, path))
        progress(f"uploaded {path.name}: {uploaded[-1].bytes} bytes, md5 {uploaded[-1].md5} as sent")
    return Upload(deposit, record, tuple(uploaded))
