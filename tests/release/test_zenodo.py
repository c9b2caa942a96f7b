"""The Zenodo upload against a local server on 127.0.0.1 that speaks the deposit API."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import zipfile

import pytest
from click.testing import CliRunner
from conftest import ROOT, zip_member
from fake_zenodo import TOKEN, FakeZenodo
from results_support import deposit_ready_package, two_series_package

from dmbench._version import __version__
from dmbench.cli import main
from dmbench.cli.commands_deposit import API_URL_ENV
from dmbench.package.metadata import read_citation, rendered_files
from dmbench.package.zenodo import TOKEN_ENV, ZenodoClient, ZenodoError
from dmbench.release.deposit import CODE_ZIP, METADATA_FILE, PACKAGE_ZIP
from dmbench.report.outdir import MARKER
from dmbench.tables.validity import VALIDITY_FILES


@pytest.fixture
def zenodo():
    server = FakeZenodo().start()
    yield server
    server.stop()


@pytest.fixture
def client(zenodo: FakeZenodo) -> ZenodoClient:
    return ZenodoClient(zenodo.api, TOKEN, timeout=10)


class TestClient:
    def test_a_new_draft_has_a_reserved_doi_and_a_bucket(self, zenodo, client) -> None:
        draft = client.create_draft({"title": "t", "upload_type": "dataset"})
        assert draft.doi == f"10.5072/zenodo.{draft.id}"
        assert draft.bucket.startswith(zenodo.api + "/files/")
        assert zenodo.requests == [("POST", "/api/deposit/depositions")]

    def test_an_upload_is_stored_and_its_checksum_compared(self, zenodo, client, tmp_path):
        draft = client.create_draft({"title": "t"})
        path = tmp_path / "a.zip"
        path.write_bytes(b"payload")
        uploaded = client.upload(draft, path)
        assert uploaded.md5 == hashlib.md5(b"payload").hexdigest()
        assert zenodo.depositions[draft.id].files == {"a.zip": b"payload"}

    def test_a_checksum_that_differs_fails_the_upload(self, zenodo, client, tmp_path) -> None:
        zenodo.corrupt_checksums = True
        draft = client.create_draft({"title": "t"})
        path = tmp_path / "a.zip"
        path.write_bytes(b"payload")
        with pytest.raises(ZenodoError, match=r"a.zip with checksum md5:\w+, expected md5:\w+"):
            client.upload(draft, path)

    def test_a_new_version_drops_the_copied_files_and_has_its_own_doi(self, zenodo, client):
        published = zenodo.publish({"title": "v1"}, {"old.zip": b"old"})
        draft = client.new_version(published)
        assert draft.id != published
        assert draft.doi == f"10.5072/zenodo.{draft.id}"
        assert zenodo.depositions[draft.id].files == {}
        assert zenodo.depositions[published].files == {"old.zip": b"old"}
        assert ("POST", f"/api/deposit/depositions/{published}/actions/newversion") in zenodo.requests
        assert ("DELETE", f"/api/deposit/depositions/{draft.id}/files/f-old.zip") in zenodo.requests

    def test_an_http_error_is_one_line_with_the_status(self, zenodo, client, tmp_path) -> None:
        zenodo.failures[("PUT", r"/api/files/.*")] = 500
        draft = client.create_draft({"title": "t"})
        path = tmp_path / "a.zip"
        path.write_bytes(b"payload")
        with pytest.raises(ZenodoError) as error:
            client.upload(draft, path)
        message = str(error.value)
        assert "\n" not in message and TOKEN not in message
        assert message == f"Zenodo PUT {draft.bucket}/a.zip: HTTP 500 Internal Server Error: Simulated failure."

    def test_no_server_is_one_line_too(self) -> None:
        with pytest.raises(ZenodoError, match=r"^Zenodo POST http://127.0.0.1:9/api/deposit/depositions: no answer"):
            ZenodoClient("http://127.0.0.1:9/api", TOKEN, timeout=5).create_draft({})


class TestCommand:
    def test_a_wrong_token_stops_at_the_first_call_with_one_line(self, zenodo, repo, tmp_path, monkeypatch):
        (repo / "CITATION.cff").write_text('authors:\n  - family-names: "Lovelace"\n')
        subprocess.run(["git", "-C", repo, "add", "."], check=True)
        subprocess.run(["git", "-C", repo, "commit", "-qm", "an author"], check=True)
        monkeypatch.setenv(TOKEN_ENV, "wrong")
        monkeypatch.setenv(API_URL_ENV, zenodo.api)
        (tmp_path / "results").mkdir()  # the verdict the deposit ships: checked before the draft
        for name in VALIDITY_FILES:
            (tmp_path / "results" / name).write_text("", "utf-8")
        result = CliRunner().invoke(
            main, ["deposit", "--upload", "--out", str(tmp_path / "out"), "--repo", str(repo),
                   "--package", str(tmp_path)],
        )
        assert result.exit_code == 1
        assert result.output.splitlines() == [
            f"Error: Zenodo POST {zenodo.api}/deposit/depositions: HTTP 401 Unauthorized: "
            "The server could not verify that you are authorized to access the URL requested."
        ]
        assert not (tmp_path / "out").exists()

    def test_a_release_naming_no_person_is_refused_before_any_request(
        self, zenodo, repo, tmp_path, monkeypatch
    ):
        monkeypatch.setenv(TOKEN_ENV, TOKEN)
        monkeypatch.setenv(API_URL_ENV, zenodo.api)
        result = CliRunner().invoke(
            main, ["deposit", "--upload", "--out", str(tmp_path / "out"), "--repo", str(repo),
                   "--package", str(tmp_path)],
        )
        assert result.exit_code == 1 and "CITATION.cff names no person" in result.output
        assert zenodo.requests == []

    def test_a_dirty_tree_is_refused_before_any_request(self, zenodo, repo, tmp_path, monkeypatch):
        monkeypatch.setenv(TOKEN_ENV, TOKEN)
        monkeypatch.setenv(API_URL_ENV, zenodo.api)
        (repo / "README.md").write_text("changed\n")
        result = CliRunner().invoke(
            main, ["deposit", "--upload", "--out", str(tmp_path / "out"), "--repo", str(repo)],
        )
        assert result.exit_code == 1 and "uncommitted changes" in result.output
        assert zenodo.requests == []

    def test_without_a_token_the_fix_is_named(self, tmp_path, monkeypatch) -> None:
        monkeypatch.delenv(TOKEN_ENV, raising=False)
        result = CliRunner().invoke(main, ["deposit", "--upload", "--out", str(tmp_path)])
        assert result.exit_code == 1 and "$ZENODO_TOKEN is not set" in result.output

    @pytest.mark.needs_shared
    @pytest.mark.parametrize("refused", ["foreign --out", "no validity"])
    def test_what_the_build_refuses_is_refused_before_a_draft_exists(
        self, zenodo, tmp_path, monkeypatch, refused
    ) -> None:
        """A draft reserves a DOI on Zenodo: a deposit the build would refuse must not leave
        one behind."""
        monkeypatch.setenv(TOKEN_ENV, TOKEN)
        monkeypatch.setenv(API_URL_ENV, zenodo.api)
        out, package = tmp_path / "deposit", deposit_ready_package()
        if refused == "foreign --out":
            out.mkdir()
            (out / "thesis.tex").write_text("keep me", "utf-8")
        else:
            package = shutil.copytree(package, tmp_path / "package", symlinks=True)
            (package / "results" / "validity.csv").unlink()
        result = CliRunner().invoke(
            main,
            ["deposit", "--upload", "--draft", "--out", str(out), "--repo", str(ROOT),
             "--package", str(package)],
        )
        assert result.exit_code == 1, result.output
        assert ("did not write" if refused == "foreign --out" else "validity.csv") in result.output
        assert zenodo.requests == [] and zenodo.depositions == {}

    @pytest.mark.needs_shared
    def test_the_reserved_doi_goes_into_the_build_and_every_file_is_uploaded(
        self, zenodo, tmp_path, monkeypatch
    ) -> None:
        """The draft's DOI is in every metadata file of both zips (the only deposit built with
        a DOI in the tests), and the four files go up. Of the two-series package: what goes
        up does not depend on the runs it holds."""
        monkeypatch.setenv(TOKEN_ENV, TOKEN)
        monkeypatch.setenv(API_URL_ENV, zenodo.api)
        out = tmp_path / "deposit"
        result = CliRunner().invoke(
            main,
            ["deposit", "--upload", "--draft", "--out", str(out), "--repo", str(ROOT),
             "--package", str(two_series_package())],
        )
        assert result.exit_code == 0, result.output
        (draft,) = zenodo.depositions.values()
        reserved = draft.metadata["prereserve_doi"]["doi"]
        descriptor = json.loads(zip_member(out / PACKAGE_ZIP, "datapackage.json"))
        assert descriptor["id"] == f"https://doi.org/{reserved}"
        assert json.loads((out / METADATA_FILE).read_text())["metadata"]["doi"] == reserved
        assert draft.metadata["doi"] == reserved and draft.metadata["upload_type"] == "dataset"
        shipped = [p for p in out.iterdir() if p.name != MARKER]  # the marker stays home
        assert draft.files == {p.name: p.read_bytes() for p in shipped}
        assert len(draft.files) == 4
        methods = [(m, p.split("/")[2]) for m, p in zenodo.requests]
        assert methods == [("POST", "deposit"), ("PUT", "deposit"), *[("PUT", "files")] * 4]
        assert f"draft ready to review and publish: {zenodo.url}/deposit/{draft.id}" in result.output
        code = f"dmbench-{__version__}/"  # the DOI reaches every metadata file of both zips
        assert f'doi: "{reserved}"' in zip_member(out / CODE_ZIP, code + "CITATION.cff")
        codemeta = json.loads(zip_member(out / CODE_ZIP, code + "codemeta.json"))
        assert codemeta["identifier"] == f"https://doi.org/{reserved}"
        with zipfile.ZipFile(out / CODE_ZIP) as archive:  # as `dmbench metadata` renders them
            archive.extractall(tmp_path / "code")
        for name, text in rendered_files(read_citation(tmp_path / "code" / code)).items():
            assert (tmp_path / "code" / code / name).read_text("utf-8") == text, name
        assert f'doi: "{reserved}"' in zip_member(out / PACKAGE_ZIP, "CITATION.cff")
        assert json.loads(zip_member(out / PACKAGE_ZIP, "croissant.json"))["citeAs"].endswith(reserved)
        assert f"https://doi.org/{reserved}" in zip_member(out / PACKAGE_ZIP, "README.md")
