"""Derived files: read back only when whole, rebuilt when not; the NLTK pin record and the
tagger's model, which spare a cold score the hashing and parsing of NLTK's files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from dmbench.core.derived import read_derived, write_derived
from dmbench.errors import MissingPrerequisiteError
from dmbench.metrics import nltk_pins
from dmbench.metrics.nltk_pins import PinRecord, refuse_unpinned

STOPWORDS = "corpora/stopwords/english"


class TestDerivedFile:
    def test_a_written_payload_reads_back(self, tmp_path: Path) -> None:
        write_derived(tmp_path / "sub" / "x", b"payload\nwith lines")
        assert read_derived(tmp_path / "sub" / "x") == b"payload\nwith lines"

    def test_a_truncated_corrupt_or_missing_file_reads_as_absent(self, tmp_path: Path) -> None:
        path = tmp_path / "x"
        write_derived(path, b"0123456789" * 100)
        whole = path.read_bytes()
        for damaged in (whole[:-1], whole[:40], whole[:-5] + b"x" + whole[-4:], b"", b"junk"):
            path.write_bytes(damaged)
            assert read_derived(path) is None, damaged[-12:]
        assert read_derived(tmp_path / "missing") is None

    def test_a_write_that_fails_is_ignored(self, tmp_path: Path) -> None:
        """A cache that cannot be written (here its folder is a file) never stops a command."""
        (tmp_path / "file").write_text("not a folder")
        write_derived(tmp_path / "file" / "x", b"payload")
        assert read_derived(tmp_path / "file" / "x") is None


@pytest.fixture
def hashing(monkeypatch) -> list[str]:
    """Every file nltk_pins hashes from now on, in a fresh process's state (nothing checked)."""
    hashed: list[str] = []
    real = nltk_pins.stream_digest

    def counting(stream) -> str:
        hashed.append(stream.name)
        return real(stream)

    monkeypatch.setattr(nltk_pins, "_CHECKED", set())
    monkeypatch.setattr(nltk_pins, "stream_digest", counting)
    return hashed


@pytest.mark.needs_shared
class TestPinRecord:
    @pytest.fixture
    def stopwords(self, shared_dir: Path, tmp_path: Path, monkeypatch) -> Path:
        """A fresh copy of a pinned file, recordable at once (no racy window)."""
        monkeypatch.setattr(nltk_pins, "RACY_NS", 0)
        copy = tmp_path / "english"
        shutil.copyfile(shared_dir / "nltk_data" / STOPWORDS, copy)
        return copy

    def _check_in_a_new_process(self, record: Path, file: Path) -> None:
        nltk_pins._CHECKED.clear()
        pins = PinRecord(record)
        refuse_unpinned(STOPWORDS, file, pins)
        pins.save()

    def test_a_recorded_file_is_not_hashed_again(self, stopwords, hashing, tmp_path):
        record = tmp_path / "pins.json"
        self._check_in_a_new_process(record, stopwords)
        self._check_in_a_new_process(record, stopwords)
        assert hashing == [str(stopwords)]

    def test_a_change_after_recording_is_refused_by_name(self, stopwords, hashing, tmp_path):
        """One changed byte, same size, mtime put back: the ctime still moves, so the record no
        longer vouches and the file is hashed and refused, named."""
        record = tmp_path / "pins.json"
        self._check_in_a_new_process(record, stopwords)
        status = stopwords.stat()
        data = bytearray(stopwords.read_bytes())
        data[0] ^= 1
        stopwords.write_bytes(bytes(data))
        os.utime(stopwords, ns=(status.st_atime_ns, status.st_mtime_ns))
        with pytest.raises(MissingPrerequisiteError, match=f"{stopwords}: NLTK file {STOPWORDS}"):
            self._check_in_a_new_process(record, stopwords)
        assert hashing == [str(stopwords)] * 2

    def test_a_changed_pin_sends_a_recorded_file_back_to_hashing(
        self, stopwords, hashing, tmp_path, monkeypatch
    ):
        record = tmp_path / "pins.json"
        self._check_in_a_new_process(record, stopwords)
        monkeypatch.setitem(nltk_pins.NLTK_PINS, STOPWORDS, "0" * 64)
        with pytest.raises(MissingPrerequisiteError, match="not the 0000"):
            self._check_in_a_new_process(record, stopwords)
        assert hashing == [str(stopwords)] * 2

    def test_a_corrupt_record_is_ignored_and_rewritten(self, stopwords, hashing, tmp_path):
        record = tmp_path / "pins.json"
        record.write_bytes(b"dmbench-derived-1 0123\n{not json")
        self._check_in_a_new_process(record, stopwords)
        self._check_in_a_new_process(record, stopwords)
        assert hashing == [str(stopwords)]

    def test_a_file_changed_moments_ago_is_not_recorded(
        self, stopwords, hashing, tmp_path, monkeypatch
    ):
        """Within the file system's timestamp granularity a further change could keep the
        signature: such a file is hashed again next time."""
        monkeypatch.setattr(nltk_pins, "RACY_NS", 60 * 10**9)
        record = tmp_path / "pins.json"
        self._check_in_a_new_process(record, stopwords)
        self._check_in_a_new_process(record, stopwords)
        assert hashing == [str(stopwords)] * 2


@pytest.mark.needs_nltk
def test_a_second_check_of_the_search_path_hashes_nothing(hashing, tmp_path):
    """``require_nltk_data``'s check records what it hashed; the next process hashes none of it
    (the shared NLTK data is older than the racy window)."""
    from dmbench.metrics._wordnet_reader import import_nltk
    from dmbench.metrics.nltk_data import use_data_dirs

    import_nltk()
    use_data_dirs()
    nltk_pins.refuse_unpinned_found(tmp_path / "pins.json")
    assert len(hashing) == len(nltk_pins.NLTK_PINS)
    nltk_pins._CHECKED.clear()
    nltk_pins.refuse_unpinned_found(tmp_path / "pins.json")
    assert len(hashing) == len(nltk_pins.NLTK_PINS)


@pytest.mark.needs_nltk
class TestTaggerModel:
    SENTENCE = ["the", "customer", "orders", "three", "widgets", "quickly"]

    def test_a_damaged_model_file_is_rebuilt(self, tmp_path: Path) -> None:
        from dmbench.metrics._tagger import perceptron_tagger

        first = perceptron_tagger(tmp_path)
        (derived,) = tmp_path.iterdir()
        whole = derived.read_bytes()
        derived.write_bytes(whole[: len(whole) // 2])
        again = perceptron_tagger(tmp_path)
        assert derived.read_bytes() == whole
        assert again.tag(self.SENTENCE) == first.tag(self.SENTENCE)

    def test_the_model_file_is_keyed_by_the_pins(self, tmp_path: Path, monkeypatch) -> None:
        from dmbench.metrics import _tagger

        _tagger.perceptron_tagger(tmp_path)
        weights = f"{_tagger._RESOURCE}/averaged_perceptron_tagger_eng.weights.json"
        monkeypatch.setitem(_tagger.NLTK_PINS, weights, "0" * 64)
        _tagger.perceptron_tagger(tmp_path)
        assert len(list(tmp_path.iterdir())) == 2

    def test_lazy_weights_answer_as_a_dict(self) -> None:
        import marshal

        from dmbench.metrics._tagger import LazyWeights

        weights = {"bias": {"NN": 1.5, "VB": -0.25}, "i suffix ing": {"VBG": 2.0}}
        blob = marshal.dumps(weights["bias"]) + marshal.dumps(weights["i suffix ing"])
        lazy = LazyWeights({"bias": 0, "i suffix ing": len(marshal.dumps(weights["bias"]))}, blob)
        assert lazy == weights and len(lazy) == 2 and list(lazy) == list(weights)
        assert "bias" in lazy and "i word x" not in lazy
        with pytest.raises(KeyError):
            lazy["i word x"]
