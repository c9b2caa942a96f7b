"""Zenodo's deposit REST API, the few calls a release needs: a draft with a reserved DOI, its
metadata, its files, a new version of a published record.

Nothing here publishes: a person reviews the draft on Zenodo and presses Publish. Every HTTP
error becomes one :class:`ZenodoError` line naming the call and the status; the token never
appears in a message.
"""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from dmbench.errors import ZenodoError

API_URLS = {"zenodo": "https://zenodo.org/api", "sandbox": "https://sandbox.zenodo.org/api"}
TOKEN_ENV = "ZENODO_TOKEN"
TIMEOUT_SECONDS = 120


@dataclass(frozen=True, slots=True)
class Draft:
    """An unpublished deposition: where its files go, its reserved DOI, its page."""

    id: int
    doi: str
    bucket: str
    html: str


@dataclass(frozen=True, slots=True)
class UploadedFile:
    """A file as Zenodo stored it, with the md5 an upload is compared by."""
    name: str
    bytes: int
    md5: str


class ZenodoClient:
    """The few Zenodo REST calls a deposit needs (draft, DOI, upload, checksums), over
    urllib, so a fake server can stand in for it in tests."""

    def __init__(self, api_url: str, token: str, timeout: float = TIMEOUT_SECONDS) -> None:
        self.api_url = api_url.rstrip("/")
        self._token = token
        self._timeout = timeout

    def _request(
        self, method: str, url: str, body: bytes | None = None, content_type: str | None = None
    ) -> Any:
        if not url.startswith(("http://", "https://")):
            url = self.api_url + url
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("Authorization", f"Bearer {self._token}")
        request.add_header("Accept", "application/json")
        if content_type:
            request.add_header("Content-Type", content_type)
        where = f"Zenodo {method} {url.split('?', 1)[0]}"
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            raise ZenodoError(f"{where}: HTTP {exc.code} {exc.reason}{_detail(exc)}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ZenodoError(f"{where}: no answer ({reason})") from None
        if not payload:
            return None
        try:
            return json.loads(payload)
        except json.JSONDecodeError:
            raise ZenodoError(f"{where}: the answer is not JSON") from None

    def _json(self, method: str, url: str, data: Any) -> Any:
        return self._request(method, url, json.dumps(data).encode("utf-8"), "application/json")

    def create_draft(self, metadata: dict[str, Any]) -> Draft:
        """A new deposition with a DOI reserved for it (``prereserve_doi``)."""
        created = self._json(
            "POST", "/deposit/depositions", {"metadata": {**metadata, "prereserve_doi": True}}
        )
        return _draft(created)

    def new_version(self, record_id: int) -> Draft:
        """A draft new version of published record ``record_id``, emptied of the files Zenodo
        copies from the previous version, with its own reserved DOI."""
        answer = self._request("POST", f"/deposit/depositions/{record_id}/actions/newversion")
        latest = (answer or {}).get("links", {}).get("latest_draft")
        if not latest:
            raise ZenodoError(f"Zenodo newversion of {record_id}: the answer has no latest_draft")
        draft = self._request("GET", latest)
        for item in self._request("GET", f"/deposit/depositions/{draft['id']}/files") or []:
            self._request("DELETE", f"/deposit/depositions/{draft['id']}/files/{item['id']}")
        if not (draft.get("metadata") or {}).get("prereserve_doi", {}).get("doi"):
            draft = self._json(
                "PUT",
                f"/deposit/depositions/{draft['id']}",
                {"metadata": {**draft.get("metadata", {}), "prereserve_doi": True}},
            )
        return _draft(draft)

    def set_metadata(self, draft: Draft, metadata: dict[str, Any]) -> None:
        self._json("PUT", f"/deposit/depositions/{draft.id}", {"metadata": metadata})

    def upload(self, draft: Draft, path: Path) -> UploadedFile:
        """PUT ``path`` into the draft's bucket and check the checksum Zenodo computed."""
        data = Path(path).read_bytes()
        answer = self._request(
            "PUT", f"{draft.bucket}/{quote(path.name)}", data, "application/octet-stream"
        )
        expected = hashlib.md5(data).hexdigest()
        checksum = str((answer or {}).get("checksum", ""))
        if checksum.removeprefix("md5:") != expected:
            raise ZenodoError(
                f"Zenodo stored {path.name} with checksum {checksum or '(none)'}, "
                f"expected md5:{expected}; the upload is corrupt, run the upload again"
            )
        return UploadedFile(path.name, len(data), expected)


def _draft(answer: Any) -> Draft:
    try:
        doi = answer["metadata"]["prereserve_doi"]["doi"]
        return Draft(int(answer["id"]), doi, answer["links"]["bucket"], answer["links"]["html"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ZenodoError(
            f"Zenodo's deposition answer lacks {exc} (id, reserved DOI, bucket and html links "
            "are needed)"
        ) from None


def _detail(error: urllib.error.HTTPError) -> str:
    """Zenodo's own message, on the same line, when the body carries one."""
    try:
        body = json.loads(error.read() or b"{}")
    except (json.JSONDecodeError, OSError):
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    return f": {' '.join(str(message).split())}" if message else ""
