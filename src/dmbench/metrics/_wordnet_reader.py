"""NLTK's WordNet reader, loading only what metrik-4 reads, when it reads it.

NLTK's ``WordNetCorpusReader()`` costs about 5 s of CPU before the first synset: it builds the
WordNet-3.0-to-3.0 sense map for the multilingual (OMW) functions (``map_wn``, 3.9 s; NLTK
compares the version "3.0" with the string "wordnet", so the map is always built), parses every
line of the four lemma indexes into a dict and scans ``data.adj`` for adjective satellites.
metrik-4 asks for the synsets of a few hundred lemmas, so the lean reader here keeps
NLTK's reader and its ``Synset`` objects and changes four things:

* no OMW map (the multilingual functions are not available from it);
* the lemma index is looked up by binary search in the index files, which WordNet sorts by
  lemma, one lemma at a time and memoised;
* a synset offset is a satellite when its line in ``data.adj`` says so, read at that offset;
* the exception lists (irregular forms) are read whole, not through NLTK's line reader.

Wu-Palmer needs only the hypernym graph, so the reader also answers without building ``Synset``
objects (NLTK parses lemmas, pointers, gloss and sense keys of each): ``synset_ids(lemma)`` is
``synsets(lemma)`` as (pos, offset) ids and ``hypernym_ids`` reads a synset's hypernym pointers
from its data line.

A test checks that index, lemmatisation, synsets (as objects and as ids), hypernyms, hypernym
paths, depths and Wu-Palmer similarities equal the stock reader's on every lemma the golden
pairs reach and every synset they lead to, and the index on every lemma.

Importing NLTK itself imports ``scipy.stats`` (1 s) for collocation statistics and numpy (0.1 s)
for clustering, classifiers and tagger confidences that metrik-4 does not use; :func:`import_nltk`
imports NLTK without them when nothing has imported them yet.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator, Mapping
from functools import cache

#: The index file of each part of speech NLTK keeps in its lemma index, and the adjective
#: satellite tag it adds beside every adjective entry.
_INDEX_FILES = {"n": "index.noun", "v": "index.verb", "a": "index.adj", "r": "index.adv"}
_ADJ, _ADJ_SAT = "a", "s"
#: The parts of speech in the order NLTK's ``synsets(lemma)`` lists them (its ``POS_LIST``).
_POS_ORDER = ("n", "v", "a", "r")
#: The pointer symbols of ``hypernyms()`` and ``instance_hypernyms()``.
_HYPERNYM_POINTERS = (b"@", b"@i")

SynsetId = tuple[str, int]
"""A synset as (part of speech of its data file: ``n``, ``v``, ``a`` or ``r``; byte offset)."""
#: The optional packages NLTK's package ``__init__`` and its modules import inside ``try: ...
#: except ImportError``; none of them serves metrik-4.
_OPTIONAL = ("scipy", "scipy.stats", "scipy.sparse", "numpy")


def import_nltk():
    """``import nltk``, without its optional scipy and numpy imports unless already loaded.

    The modules are hidden only while NLTK's ``__init__`` runs; later imports of them work as
    usual. NLTK then lacks ``fisher_exact`` and ``betai`` (collocation significance), the
    ``nltk.cluster`` attribute and numpy in the modules that try it (the tagger's confidence
    with ``return_conf=True``, the maxent classifier's numeric code, ``aline``, TextTiling),
    none of which dmbench calls.
    """
    if "nltk" in sys.modules:
        return sys.modules["nltk"]
    hidden = [name for name in _OPTIONAL if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # a None entry makes importing the module raise ImportError
    try:
        import nltk
    finally:
        for name in hidden:
            if sys.modules.get(name, "") is None:
                del sys.modules[name]
    return nltk


def lean_wordnet(root=None):
    """The lean reader over the WordNet NLTK finds (``root``: an NLTK path pointer)."""
    nltk = import_nltk()
    return lean_reader_class()(root if root is not None else nltk.data.find("corpora/wordnet"))


@cache
def lean_reader_class() -> type:
    """The reader class, a subclass of NLTK's: defined on first use, so that importing this
    module does not import NLTK."""
    import_nltk()
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class LeanWordNetReader(WordNetCorpusReader):
        """NLTK's reader without the OMW map, with a lazily read lemma index."""

        def __init__(self, root) -> None:
            self._data_streams: dict = {}
            with warnings.catch_warnings():
                # NLTK warns that there is no OMW reader: intended, see the module docstring.
                warnings.filterwarnings("ignore", "The multilingual functions", UserWarning)
                super().__init__(root, omw_reader=None)

        def map_wn(self, version="wordnet"):
            return None

        def _scan_satellites(self) -> None:
            self.satellite_offsets = _SatelliteOffsets(self._read_bytes("data.adj"))

        def _load_lemma_pos_offset_map(self) -> None:
            self._lemma_pos_offset_map = LemmaIndex(
                {pos: self._read_bytes(name) for pos, name in _INDEX_FILES.items()},
                self.satellite_offsets,
            )

        def _load_exception_map(self) -> None:
            """Each ``<pos>.exc`` file (inflected form, then its base forms, a line each) as NLTK
            maps it, read whole rather than through NLTK's Python-level line reader."""
            for pos, name in self._FILEMAP.items():
                lines = self._read_bytes(f"{name}.exc").decode("utf-8").splitlines()
                self._exception_map[pos] = {terms[0]: terms[1:] for terms in map(str.split, lines)}
            self._exception_map[_ADJ_SAT] = self._exception_map[_ADJ]

        def synset_ids(self, lemma: str) -> list[SynsetId]:
            """``synsets(lemma)`` as ids, in the same order, without building ``Synset``s."""
            lemma = lemma.lower()
            index = self._lemma_pos_offset_map
            return [
                (pos, offset)
                for pos in _POS_ORDER
                for form in self._morphy(lemma, pos)
                for offset in index[form].get(pos, [])
            ]

        def hypernym_ids(self, synset: SynsetId) -> tuple[SynsetId, ...]:
            """The ids of ``hypernyms() + instance_hypernyms()``, from the synset's data line."""
            pos, offset = synset
            return hypernym_ids(self._data_line(pos, offset), offset)

        def synset_of(self, synset: SynsetId):
            """NLTK's ``Synset`` of an id."""
            return self.synset_from_pos_and_offset(*synset)

        def _data_line(self, pos: str, offset: int) -> bytes:
            """The line at ``offset`` of a data file, as bytes (NLTK's stream decodes in Python)."""
            stream = self._data_streams.get(pos)
            if stream is None:
                fileid = f"data.{self._FILEMAP[pos]}"
                stream = self._data_streams[pos] = self.root.join(fileid).open()
            stream.seek(offset)
            return stream.readline()

        def _read_bytes(self, fileid: str) -> bytes:
            with self.root.join(fileid).open() as stream:
                return stream.read()

    return LeanWordNetReader


class _SatelliteOffsets:
    """``offset in satellites``: whether the ``data.adj`` line at that byte offset is an ``s``
    synset (its third field), as NLTK's set of all satellite offsets would answer."""

    def __init__(self, data_adj: bytes) -> None:
        self._data = data_adj
        self._known: dict[int, bool] = {}

    def __contains__(self, offset: object) -> bool:
        if not isinstance(offset, int) or not 0 <= offset < len(self._data):
            return False
        known = self._known.get(offset)
        if known is None:
            at_line_start = offset == 0 or self._data[offset - 1] == 0x0A
            end = self._data.find(b"\n", offset)
            fields = self._data[offset : end if end >= 0 else len(self._data)].split()
            known = (
                at_line_start
                and len(fields) >= 3
                and fields[0].isdigit()
                and int(fields[0]) == offset
                and fields[2] == b"s"
            )
            self._known[offset] = known
        return known


class LemmaIndex(Mapping):
    """NLTK's ``_lemma_pos_offset_map`` (lemma -> pos -> synset offsets), read on demand.

    A lemma missing from every index maps to an empty dict, as in NLTK's ``defaultdict``.
    Iterating reads every index in full (NLTK's ``all_lemma_names``); metrik-4 never does.
    """

    def __init__(self, indexes: dict[str, bytes], satellites: _SatelliteOffsets) -> None:
        self._indexes = indexes
        self._satellites = satellites
        self._entries: dict[str, dict[str, list[int]]] = {}
        self._all: list[str] | None = None

    def __getitem__(self, lemma: str) -> dict[str, list[int]]:
        entry = self._entries.get(lemma)
        if entry is None:
            entry = self._entries[lemma] = self._look_up(lemma)
        return entry

    def __contains__(self, lemma: object) -> bool:
        return isinstance(lemma, str) and bool(self[lemma])

    def __iter__(self) -> Iterator[str]:
        return iter(self._all_lemmas())

    def __len__(self) -> int:
        return len(self._all_lemmas())

    def _look_up(self, lemma: str) -> dict[str, list[int]]:
        key = lemma.encode("utf-8")
        entry: dict[str, list[int]] = {}
        if not key or b" " in key or b"\n" in key:
            return entry
        for pos, data in self._indexes.items():
            line = find_line(data, key)
            if line is None:
                continue
            offsets = synset_offsets(line)
            entry[pos] = offsets
            if pos == _ADJ:
                entry[_ADJ_SAT] = [offset for offset in offsets if offset in self._satellites]
        return entry

    def _all_lemmas(self) -> list[str]:
        if self._all is None:
            names = {
                line.split(b" ", 1)[0].decode("utf-8")
                for data in self._indexes.values()
                for line in data.splitlines()
                if line and not line.startswith(b" ")
            }
            self._all = sorted(names)
        return self._all


def find_line(data: bytes, key: bytes) -> bytes | None:
    """The line of a lemma-sorted WordNet index whose first field is ``key``, by bisection.

    The licence header's lines start with a space, so their first field is empty and sorts
    before every lemma.
    """
    low, high = 0, len(data)  # both are line starts (or the end): the line is in [low, high)
    while low < high:
        start = data.rfind(b"\n", 0, (low + high) // 2) + 1
        end = data.find(b"\n", start)
        if end < 0:
            end = len(data)
        line = data[start:end]
        first = line.split(b" ", 1)[0]
        if first < key:
            low = end + 1
        elif first > key:
            high = start
        else:
            return line
    return None


def synset_offsets(line: bytes) -> list[int]:
    """The synset offsets at the end of an index line.

    The line reads ``lemma pos synset_cnt p_cnt [pointer ...] sense_cnt tagsense_cnt offset ...``
    (WordNet's ``wndb(5WN)``): the last ``synset_cnt`` fields are the offsets.
    """
    fields = line.split()
    count = int(fields[2])
    return [int(field) for field in fields[len(fields) - count :]]


def hypernym_ids(line: bytes, offset: int) -> tuple[SynsetId, ...]:
    """The hypernyms and instance hypernyms of the synset on a data file line, as ids.

    The line reads ``offset lex_filenum ss_type w_cnt [word lex_id ...] p_cnt [pointer_symbol
    offset pos source/target ...] ... | gloss`` (WordNet's ``wndb(5WN)``, ``w_cnt`` in hex);
    like NLTK, only pointers between whole synsets (source/target ``0000``) count. A line that
    is not the synset at ``offset`` raises ``ValueError``.
    """
    fields = line.split(b"|", 1)[0].split()
    if not fields or not fields[0].isdigit() or int(fields[0]) != offset:
        raise ValueError(f"no WordNet synset at offset {offset}")
    position = 4 + 2 * int(fields[3], 16)
    pointers = int(fields[position])
    found = []
    for start in range(position + 1, position + 1 + 4 * pointers, 4):
        symbol, target, pos, source_target = fields[start : start + 4]
        if symbol in _HYPERNYM_POINTERS and source_target == b"0000":
            found.append((_ADJ if pos == b"s" else pos.decode("ascii"), int(target)))
    return tuple(found)
