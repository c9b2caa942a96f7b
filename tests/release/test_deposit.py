"""``dmbench deposit``: the release's four files, what the package zip carries and explains, and
what a release refuses.

The deposit is the session's (``results_support.draft_deposit``, built once from the package the
results tests share, with the ``metrik-4-standard`` scores the main job adds). ``dmbench check``
on it is tested in test_deposit_check.py and a killed deposit in test_deposit_kill.py: files
apart, so that pytest-xdist runs the slow ones on both workers.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT, zip_member

from dmbench._version import __version__
from dmbench.cli import main
from dmbench.core.hashing import file_sha256
from dmbench.errors import MissingPrerequisiteError, PackageError
from dmbench.package.archive import Member, extract_zip, folder_members, zip_bytes
from dmbench.release.deposit import CODE_ZIP, METADATA_FILE, PACKAGE_ZIP, SUMS_FILE, build_deposit
from dmbench.report.outdir import MARKER


@pytest.mark.needs_shared
class TestDeposit:
    def test_four_files_with_their_sha256_list(self, deposit: Path) -> None:
        names = sorted(p.name for p in deposit.iterdir() if p.name != MARKER)
        assert names == sorted([PACKAGE_ZIP, CODE_ZIP, METADATA_FILE, SUMS_FILE])
        assert (deposit / MARKER).is_file()  # what lets the next deposit replace the folder
        listed = dict(
            reversed(line.split("  ")) for line in (deposit / SUMS_FILE).read_text().splitlines()
        )
        assert listed == {n: file_sha256(deposit / n) for n in names if n != SUMS_FILE}

    def test_members_have_fixed_times_modes_and_order(self, deposit: Path) -> None:
        for name in (PACKAGE_ZIP, CODE_ZIP):
            with zipfile.ZipFile(deposit / name) as archive:
                infos = archive.infolist()
            assert [i.filename for i in infos] == sorted(i.filename for i in infos)
            assert len({i.date_time for i in infos}) == 1
            assert {i.external_attr >> 16 for i in infos} <= {0o100644, 0o100755}

    def test_frictionless_reads_every_table_in_the_zip(self, deposit: Path) -> None:
        result = subprocess.run(
            [Path(sys.executable).parent / "frictionless", "validate", "--json",
             deposit / PACKAGE_ZIP],
            capture_output=True, text=True, timeout=300,
        )
        report = json.loads(result.stdout)
        assert report["valid"], result.stdout[:2000]
        tables = {task["name"]: task["stats"].get("rows") for task in report["tasks"]}
        assert {"records", "prompts", "runs", "outputs", "scores", "files"} <= set(tables)
        results = {n for n in tables if n.startswith("results-")}
        assert results == {
            f"results-{prefix}{name}"
            for prefix in ("", "metrik-4-standard-")
            for name in ("table1", "table2", "table3", "comparisons")
        } | {"results-validity"}
        assert tables["records"] == 53 and tables["outputs"] == 1113
        validity = zip_member(deposit / PACKAGE_ZIP, "results/validity.csv")
        assert tables["results-validity"] == len(validity.splitlines()) - 1

    def test_plantumls_verdict_ships_as_a_typed_table(self, deposit: Path) -> None:
        with zipfile.ZipFile(deposit / PACKAGE_ZIP) as archive:
            names = set(archive.namelist())
            files = archive.read("data/files.csv").decode()
            descriptor = json.loads(archive.read("datapackage.json"))
            schema = json.loads(archive.read("schemas/results-validity.schema.json"))
        assert {"results/validity.csv", "results/validity.md", "results/validity.json"} <= names
        assert "results/validity.json,result," in files and "results/validity.md,result," in files
        resource = next(r for r in descriptor["resources"] if r["name"] == "results-validity")
        assert resource["path"] == "results/validity.csv"
        assert resource["hash"].startswith("sha256:")
        assert "does not recompute it" in resource["description"]
        types = {field["name"]: field["type"] for field in schema["fields"]}
        assert types["outputs"] == types["plantuml_rejected"] == "integer"
        assert types["series"] == "string"

    def test_package_carries_the_nltk_data_and_the_wordnet_licence(self, deposit: Path) -> None:
        with zipfile.ZipFile(deposit / PACKAGE_ZIP) as archive:
            names = set(archive.namelist())
            files = archive.read("data/files.csv").decode()
            descriptor = json.loads(archive.read("datapackage.json"))
        assert "nltk_data/corpora/wordnet/data.noun" in names
        assert "nltk_data/corpora/stopwords/english" in names
        assert "nltk_data/corpora/wordnet/cntlist.rev" not in names  # metrik-4 never reads it
        assert "nltk_data/corpora/wordnet/data.noun,nltk," in files
        assert "licenses/WordNet-3.0.LICENSE" in names
        assert "WordNet-3.0" in {licence["name"] for licence in descriptor["licenses"]}
        assert "results/table2.md,result," in files
        assert "report/index.html,report," in files
        assert not any(name.rsplit("/", 1)[-1].startswith(".") for name in names)

    def test_code_zip_is_the_committed_tree(self, deposit: Path) -> None:
        committed = subprocess.run(
            ["git", "-C", ROOT, "ls-files"], capture_output=True, text=True, check=True
        ).stdout.split()
        with zipfile.ZipFile(deposit / CODE_ZIP) as archive:
            names = archive.namelist()
        assert names == sorted(f"dmbench-{__version__}/{name}" for name in committed)

    def test_metadata_is_what_zenodo_takes(self, deposit: Path) -> None:
        metadata = json.loads((deposit / METADATA_FILE).read_text())["metadata"]
        assert metadata["upload_type"] == "dataset"
        assert metadata["version"] == __version__
        assert {"creators", "license", "publication_date", "related_identifiers"} <= set(metadata)


class TestRefusals:
    def test_dirty_tree_is_refused_with_the_fix(self, repo, tmp_path) -> None:
        (repo / "README.md").write_text("changed\n")
        with pytest.raises(PackageError, match=r"uncommitted changes \(M README.md\)") as error:
            build_deposit(tmp_path / "package", tmp_path / "out", "10.5281/zenodo.1", repo=repo)
        assert "commit or stash" in error.value.hint and "--draft" in error.value.hint
        assert not (tmp_path / "out").exists()

    def test_placeholder_doi_is_refused_with_the_fix(self, repo, tmp_path) -> None:
        result = CliRunner().invoke(
            main, ["deposit", "--out", str(tmp_path / "out"), "--repo", str(repo),
                   "--package", str(tmp_path)],
        )
        assert result.exit_code == 1
        assert "placeholder 10.5281/zenodo.PLACEHOLDER" in result.output
        assert "--doi 10.5281/zenodo.N" in result.output

    def test_a_doi_must_look_like_one(self, repo, tmp_path) -> None:
        with pytest.raises(PackageError, match="is not a DOI"):
            build_deposit(tmp_path, tmp_path / "out", "zenodo.123", repo=repo)


class TestZip:
    def test_same_members_same_bytes_whatever_the_order(self) -> None:
        members = [Member("b.txt", b"b"), Member("a/x.sh", b"#!", executable=True)]
        assert zip_bytes(members, 1_700_000_000) == zip_bytes(members[::-1], 1_700_000_000)
        assert zip_bytes(members, 1_700_000_000) != zip_bytes(members, 1_700_086_400)

    def test_a_link_is_never_archived(self, tmp_path) -> None:
        (tmp_path / "data").mkdir()
        (tmp_path / "data" / "records.jsonl").write_text("{}\n")
        assert folder_members(tmp_path) == [Member("data/records.jsonl", b"{}\n")]
        (tmp_path / "data" / "notes.txt").symlink_to("/etc/passwd")
        with pytest.raises(PackageError, match="notes.txt: a link is refused in an archive"):
            folder_members(tmp_path)

    @pytest.mark.parametrize("name", ["../evil", "/etc/evil", "a/../../evil"])
    def test_extraction_refuses_members_outside_the_target(self, tmp_path, name) -> None:
        archive = tmp_path / "bad.zip"
        with zipfile.ZipFile(archive, "w") as handle:
            handle.writestr(name, b"x")
        with pytest.raises(PackageError, match="outside the target folder"):
            extract_zip(archive, tmp_path / "out")

    def test_extraction_refuses_links(self, tmp_path) -> None:
        archive = tmp_path / "link.zip"
        info = zipfile.ZipInfo("link")
        info.external_attr = 0o120777 << 16
        with zipfile.ZipFile(archive, "w") as handle:
            handle.writestr(info, b"/etc/passwd")
        with pytest.raises(PackageError, match="not a plain file"):
            extract_zip(archive, tmp_path / "out")

    def test_check_names_a_path_that_is_neither_folder_nor_zip(self, tmp_path) -> None:
        result = CliRunner().invoke(main, ["check", str(tmp_path / "nope.zip")])
        assert result.exit_code == 1
        assert "no such package folder or zip" in result.output


@pytest.mark.needs_shared
def test_results_schemas_are_typed_from_the_tables_code(deposit: Path) -> None:
    with zipfile.ZipFile(deposit / PACKAGE_ZIP) as archive:
        schema = json.loads(archive.read("schemas/results-table2.schema.json"))
        header = archive.read("results/table2.csv").decode().splitlines()[0].split(",")
    types = {field["name"]: field["type"] for field in schema["fields"]}
    assert list(types) == header
    assert types["class_median"] == "number" and types["canonical"] == "boolean"
    assert types["runs"] == "integer" and types["candidate"] == "string"


def test_readme_gives_the_downloader_two_commands() -> None:
    section = (ROOT / "README.md").read_text().split("## From the Zenodo deposit", 1)[1]
    block = section.split("```", 2)[1].strip().splitlines()
    code = f"dmbench-{__version__}"
    assert block == [
        f"unzip -q {CODE_ZIP} && pip install -c {code}/constraints.txt ./{code}",
        f"dmbench check {PACKAGE_ZIP}",
    ]


@pytest.mark.needs_shared
class TestSelfExplaining:
    def test_package_zip_has_readme_citation_errata_and_croissant(self, deposit: Path) -> None:
        """A downloader who unzips it learns what it is, how to check and cite it."""
        readme = zip_member(deposit / PACKAGE_ZIP, "README.md")
        assert f"dmbench check {PACKAGE_ZIP}" in readme and "Python 3.11 to 3.13" in readme
        assert "8 of 13 claims hold under compat" in readme  # the errata's first finding
        commit = subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert f"built from commit `{commit}`" in readme
        committed_errata = subprocess.run(
            ["git", "-C", ROOT, "show", "HEAD:docs/errata.md"], capture_output=True, text=True,
            check=True,
        ).stdout
        assert zip_member(deposit / PACKAGE_ZIP, "errata.md") == committed_errata
        assert 'doi: "10.5281/zenodo.PLACEHOLDER"' in zip_member(deposit / PACKAGE_ZIP, "CITATION.cff")
        descriptor = json.loads(zip_member(deposit / PACKAGE_ZIP, "datapackage.json"))
        assert descriptor["dmbench_build"] == {"dmbench_version": __version__, "commit": commit}
        files = zip_member(deposit / PACKAGE_ZIP, "data/files.csv")
        for name in ("README.md", "CITATION.cff", "errata.md", "croissant.json"):
            assert f"\n{name},about," in files

    def test_croissant_validates_and_its_records_load_offline(self, deposit, tmp_path) -> None:
        """mlcroissant's own validator, then its loader reading the zip's local CSVs."""
        with zipfile.ZipFile(deposit / PACKAGE_ZIP) as archive:
            archive.extractall(tmp_path)
        checker = Path(sys.executable).with_name("mlcroissant")
        result = subprocess.run(
            [checker, "validate", "--jsonld", tmp_path / "croissant.json"],
            capture_output=True, text=True, timeout=300,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        import mlcroissant

        dataset = mlcroissant.Dataset(jsonld=tmp_path / "croissant.json")
        ids = [r["records/record_id"].decode() for r in dataset.records(record_set="records")]
        assert len(ids) == 53 and ids[0] == "ds1-AirTravel"
        runs = list(dataset.records(record_set="runs"))
        models = {r["runs/model"].decode() for r in runs if r["runs/model"]}  # rule_based: none
        assert models == {"glm-5.1:cloud", "kimi-k2.6:cloud", "minimax-m3:cloud"}

    def test_descriptions_count_what_the_package_holds(self, deposit: Path) -> None:
        metadata = json.loads((deposit / METADATA_FILE).read_text())["metadata"]
        descriptor = json.loads(zip_member(deposit / PACKAGE_ZIP, "datapackage.json"))
        for text in (metadata["description"], descriptor["description"]):
            assert "three LLMs (glm-5.1:cloud, kimi-k2.6:cloud and minimax-m3:cloud)" in text
            assert "42 runs" in text and "six metrics" in text and "two LLMs" not in text


@pytest.mark.needs_shared
@pytest.mark.needs_nltk
def test_a_wordnet_file_with_one_changed_byte_fails_deposit(
    deposit_package, tmp_path, monkeypatch
):
    from conftest import SHARED

    nltk_dir = tmp_path / "nltk_data"
    shutil.copytree(SHARED / "nltk_data" / "corpora" / "wordnet", nltk_dir / "corpora" / "wordnet")
    shutil.copytree(SHARED / "nltk_data" / "corpora" / "stopwords", nltk_dir / "corpora" / "stopwords")
    shutil.copytree(SHARED / "nltk_data" / "taggers", nltk_dir / "taggers")
    changed = nltk_dir / "corpora" / "wordnet" / "adv.exc"
    data = bytearray(changed.read_bytes())
    data[10] ^= 1
    changed.chmod(0o644)
    changed.write_bytes(bytes(data))
    monkeypatch.setenv("NLTK_DATA", str(nltk_dir))
    with pytest.raises(MissingPrerequisiteError, match=r"adv.exc: NLTK file corpora/wordnet/adv.exc"):
        build_deposit(deposit_package, tmp_path / "out", draft=True, repo=ROOT)
    assert not (tmp_path / "out" / PACKAGE_ZIP).exists()


class TestPeople:
    def test_a_release_with_no_named_person_is_refused_with_the_fix(self, repo, tmp_path):
        (repo / "CITATION.cff").write_text('cff-version: 1.2.0\nauthors:\n  - name: "A group"\n')
        subprocess.run(["git", "-C", repo, "add", "."], check=True)
        subprocess.run(["git", "-C", repo, "commit", "-qm", "c"], check=True)
        with pytest.raises(PackageError, match="names no person") as error:
            build_deposit(tmp_path / "package", tmp_path / "out", "10.5281/zenodo.1", repo=repo)
        assert "family-names" in error.value.hint and "--draft" in error.value.hint
        assert not (tmp_path / "out").exists()


def test_check_names_the_way_out_of_an_archive_that_is_not_a_zip(tmp_path) -> None:
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    result = CliRunner().invoke(main, ["check", str(tmp_path / "x.zip")])
    assert result.exit_code == 1 and "neither a package folder nor a zip file" in result.output


def test_every_nltk_file_metrik4_opens_is_pinned() -> None:
    from dmbench.metrics.nltk_data import READ_FILES, RESOURCES
    from dmbench.metrics.nltk_pins import NLTK_PINS

    opened = {f"{RESOURCES[package]}/{name}" for package, names in READ_FILES.items() for name in names}
    assert set(NLTK_PINS) == opened


@pytest.mark.needs_shared
def test_the_pins_are_the_reference_copy() -> None:
    """Regenerate from ../shared/nltk_data (sha256sum of each file) if NLTK's data changes."""
    from conftest import SHARED

    from dmbench.metrics.nltk_pins import NLTK_PINS

    assert {rel: file_sha256(SHARED / "nltk_data" / rel) for rel in NLTK_PINS} == dict(NLTK_PINS)


@pytest.mark.needs_shared
def test_a_package_without_plantumls_verdict_is_refused_with_the_fix(deposit_package, tmp_path):
    bare = shutil.copytree(deposit_package, tmp_path / "package")
    (bare / "results" / "validity.json").unlink()
    result = CliRunner().invoke(
        main,
        ["deposit", "--out", str(tmp_path / "out"), "--draft", "--repo", str(ROOT),
         "--package", str(bare)],
    )
    assert result.exit_code == 1
    assert "no validity.json (PlantUML's verdict, which the deposit ships)" in result.output
    assert f"`dmbench validity --out {bare / 'results'}` writes them" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["package"]  # no deposit, no staging
