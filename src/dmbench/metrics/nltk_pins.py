"""The sha256 of every NLTK file metrik-4 opens, held in the code so a changed byte is refused.

metrik-4's numbers depend on WordNet, the stop-word list and the tagger's weights. The hashes
below are those of NLTK's downloads that every published value was reproduced with (WordNet
3.0, ``stopwords`` and ``averaged_perceptron_tagger_eng``); ``setup``, ``deposit`` and scoring
refuse a file that differs, naming it, rather than publish or compute other numbers.

Hashing the 30 MB took a tenth of a cold pair's CPU, so scoring keeps a :class:`PinRecord` of
the files it found equal, by their stat signature, in dmbench's derived cache: a later process
hashes only a file that changed since (``deposit`` still hashes every file it ships).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from dmbench.core.derived import read_derived, write_derived
from dmbench.core.hashing import stream_digest
from dmbench.core.paths import derived_cache_dir
from dmbench.errors import MissingPrerequisiteError

#: Path relative to an NLTK data directory -> sha256.
NLTK_PINS: Mapping[str, str] = {
    "corpora/wordnet/lexnames": "c871b6797d2109f563f7a162b64e8ebf18f6f42d00918572846034c7f393a214",
    "corpora/wordnet/index.sense": "ce997000ec806318ff1dfadf77d314ac527358e127d7bbe3d1f4e83a1c5c1c2b",
    "corpora/wordnet/index.noun": "a490d99d93d017bf4822fe2f0ffa51fd73911ce271dc7535fade21f8814b5a04",
    "corpora/wordnet/data.noun": "fea17d2f9656611334eac790e5d69e47645fa180c4aa481fb4cd9b3520754ca2",
    "corpora/wordnet/index.verb": "e2ac24816c3a8289dcb72aaa9cf8db81fdf25ec34d792bfc96ac5b7a20c8b4ae",
    "corpora/wordnet/data.verb": "adcf43e35b581e8036d8b5a52d63d9cd3d3b4870b2720d3c03c799df44777bc2",
    "corpora/wordnet/index.adj": "c9865d7b4d1f805bdef82ccdcea5282436e23083e6f6f1b33e716327c4eda810",
    "corpora/wordnet/data.adj": "c89120dfc1f046ddff4a631bf9b7e9fa1a36b5e86565a23bf82dbe14f30b88a7",
    "corpora/wordnet/index.adv": "6f5465ed5758fe9c8a2f7ec17b1300f3aa875756c70ff7cba162f7e71bcf88ea",
    "corpora/wordnet/data.adv": "444a63bf3955080ab7524f5079cfc07ff9bc682cb98bdb1db73b0fb9829f1139",
    "corpora/wordnet/noun.exc": "2b5d675c380b39ecf595af9fa9d4e7feb1d58c643b0bff08c40ed5bfe41fab7a",
    "corpora/wordnet/verb.exc": "dbbcf9a601b2d77e934e413b91d90e88ec7f933a8b77cfc00602a923b891b42c",
    "corpora/wordnet/adj.exc": "8824cc24bbedd797b9702316b27f07cd4c2b76b629539f0a1276f03926758016",
    "corpora/wordnet/adv.exc": "e7291461b629abfe63301bbe1998cee09fd575ed7107abd7ea9763adb05bf0a8",
    "corpora/stopwords/english": "019f104ba2ed07436d05f9cdd3383034ad66014edc27fc651f837e1a038b6451",
    "taggers/averaged_perceptron_tagger_eng/averaged_perceptron_tagger_eng.classes.json": (
        "7a87ba804751f4719b2d8e0e7693955761c579526b20a1b68ffc365b412e7f10"
    ),
    "taggers/averaged_perceptron_tagger_eng/averaged_perceptron_tagger_eng.tagdict.json": (
        "4c713731cb06727736962bc8cd94ad919217a040e76691059af99bc0c2c9c246"
    ),
    "taggers/averaged_perceptron_tagger_eng/averaged_perceptron_tagger_eng.weights.json": (
        "789e8e35f6fac656d9b7eccea29ba4e8a137cbb5b525dd31f39e4291a9e80832"
    ),
}

#: A file changed this recently is not recorded: a change within the file system's timestamp
#: granularity could leave its signature as it was (git's "racy" entries).
RACY_NS = 2_000_000_000

_Signature = tuple[int, int, int, int, int]
_CHECKED: set[tuple[str, _Signature]] = set()
"""(path, signature) of files found equal to their pin in this process: hashed once."""


def _signature(path: Path) -> _Signature:
    """What changes whenever the file's bytes do: size, mtime, ctime, inode, device."""
    status = path.stat()
    return (
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
        status.st_ino,
        status.st_dev,
    )


class PinRecord:
    """Files an earlier process found equal to their pin, by signature, kept in a derived file.

    A file whose signature and pin are as recorded is not hashed again; any change to the file
    (its ctime moves even when its size and mtime are restored) or to its pin sends it back to
    hashing, and a difference is refused by name as before.
    """

    def __init__(self, path: Path) -> None:
        self._path = path
        self._entries: dict[str, dict] = {}
        self._changed = False
        payload = read_derived(path)
        if payload is not None:
            try:
                entries = json.loads(payload)
            except ValueError:
                entries = None
            if isinstance(entries, dict):
                self._entries = entries

    def vouches_for(self, rel: str, path: Path, signature: _Signature) -> bool:
        entry = self._entries.get(str(path))
        return (
            isinstance(entry, dict)
            and entry.get("sha256") == NLTK_PINS[rel]
            and entry.get("signature") == list(signature)
        )

    def add(self, rel: str, path: Path, signature: _Signature) -> None:
        if time.time_ns() - max(signature[1], signature[2]) < RACY_NS:
            return
        self._entries[str(path)] = {"sha256": NLTK_PINS[rel], "signature": list(signature)}
        self._changed = True

    def save(self) -> None:
        if self._changed:
            write_derived(self._path, json.dumps(self._entries, sort_keys=True).encode())
            self._changed = False


def pin_record_path() -> Path | None:
    """Where the checked NLTK pins are remembered, so later processes skip hashing the data
    (None without a user cache)."""
    folder = derived_cache_dir()
    return folder / "nltk-pins.json" if folder else None


def refuse_unpinned(rel: str, path: Path, record: PinRecord | None = None) -> None:
    """Raise unless the file at ``path`` (NLTK's ``rel``) has its pinned sha256.

    The file is hashed once per process, and not at all when ``record`` vouches for it.
    """
    signature = _signature(path)
    key = (str(path), signature)
    if key in _CHECKED or (record is not None and record.vouches_for(rel, path, signature)):
        return
    with path.open("rb") as handle:
        actual = stream_digest(handle)
    _refuse_difference(rel, str(path), actual)
    _CHECKED.add(key)
    if record is not None:
        record.add(rel, path, signature)


def _refuse_difference(rel: str, where: str, actual: str) -> None:
    expected = NLTK_PINS[rel]
    if actual != expected:
        raise MissingPrerequisiteError(
            f"{where}: NLTK file {rel} has sha256 {actual}, not the {expected} metrik-4's "
            "published values were computed with",
            hint="replace it with NLTK's download (`dmbench setup --nltk-dir DIR`, then point "
            "NLTK_DATA at DIR) or remove the altered copy from the search path",
        )


def refuse_unpinned_found(record_path: Path | None = None) -> None:
    """Check every pinned file where NLTK's search path resolves it now (plain or zipped).

    Plain files found equal in an earlier process are vouched for by the pin record at
    ``record_path`` (default :func:`pin_record_path`), which this check brings up to date.
    """
    import nltk

    record_file = record_path or pin_record_path()
    record = PinRecord(record_file) if record_file else None
    for rel in NLTK_PINS:
        try:
            pointer = nltk.data.find(rel)
        except LookupError:
            continue  # a missing resource is require_nltk_data's to report
        path = getattr(pointer, "path", None)
        if isinstance(path, str) and os.path.isfile(path):
            refuse_unpinned(rel, Path(path), record)
        else:
            with pointer.open() as stream:
                _refuse_difference(rel, str(pointer), stream_digest(stream))
    if record is not None:
        record.save()
