"""The NLTK data metrik-4 needs: where it is looked for, and how ``dmbench setup`` fetches it.

Metrik-4 depends on three NLTK resources. They are looked for in NLTK's own search path extended
by :func:`dmbench.core.paths.nltk_data_dirs`; a missing one is reported as one sentence with the fix,
never as NLTK's multi-line ``LookupError``.
"""

from __future__ import annotations

from pathlib import Path

from dmbench.core.paths import nltk_data_dirs, shipped_nltk_dir
from dmbench.errors import MissingPrerequisiteError
from dmbench.metrics.nltk_pins import refuse_unpinned_found

#: NLTK package id -> the path ``nltk.data.find`` resolves for it.
RESOURCES: dict[str, str] = {
    "wordnet": "corpora/wordnet",
    "stopwords": "corpora/stopwords",
    "averaged_perceptron_tagger_eng": "taggers/averaged_perceptron_tagger_eng",
}


_SHIPPED_FIRST: list[str] = []
"""Package NLTK directories already put at the front of NLTK's search path."""

#: The files of each resource that metrik-4 opens (traced over a full re-scoring under both
#: metrics), so a package can carry exactly them: WordNet without ``cntlist.rev``, the English
#: stop words only, the whole tagger.
READ_FILES: dict[str, tuple[str, ...]] = {
    "wordnet": (
        "lexnames",
        "index.sense",
        *(f"{kind}.{pos}" for pos in ("noun", "verb", "adj", "adv") for kind in ("index", "data")),
        *(f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")),
    ),
    "stopwords": ("english",),
    "averaged_perceptron_tagger_eng": tuple(
        f"averaged_perceptron_tagger_eng.{part}.json" for part in ("classes", "tagdict", "weights")
    ),
}
#: The WordNet licence must travel with the database; where a data directory may hold it
#: (NLTK's download has ``corpora/wordnet/LICENSE``; Debian's ``wordnet-base`` a copyright file).
WORDNET_LICENSE_PLACES = ("corpora/wordnet/LICENSE", "/usr/share/doc/wordnet-base/copyright")


def use_data_dirs(root: Path | None = None) -> None:
    """Put dmbench's NLTK data directories in front of NLTK's search path (idempotent).

    ``root`` is a package directory: the NLTK data it ships goes first and stays first, even
    when a later call (the metric loading WordNet) adds the machine's directories.
    """
    import nltk

    shipped = shipped_nltk_dir(root)
    if shipped is not None and str(shipped) not in _SHIPPED_FIRST:
        if str(shipped) in nltk.data.path:
            nltk.data.path.remove(str(shipped))
        nltk.data.path.insert(0, str(shipped))
        _SHIPPED_FIRST.append(str(shipped))
    position = len(_SHIPPED_FIRST)
    for directory in nltk_data_dirs(root):
        path = str(directory)
        if path not in nltk.data.path:
            nltk.data.path.insert(position, path)
            position += 1


def find_read_files(root: Path | None = None) -> tuple[Path, dict[str, Path]]:
    """The data directory that holds every file metrik-4 reads, and those files by their path
    relative to it; the first directory on dmbench's search path that holds them all wins."""
    for directory in nltk_data_dirs(root):
        files = {
            f"{RESOURCES[package]}/{name}": directory / RESOURCES[package] / name
            for package, names in READ_FILES.items()
            for name in names
        }
        if all(path.is_file() for path in files.values()):
            return directory, files
    raise MissingPrerequisiteError(
        "no NLTK data directory holds every file metrik-4 reads "
        f"(looked in: {', '.join(map(str, nltk_data_dirs(root))) or 'none'}): run "
        "`dmbench setup --nltk-dir DIR` and point NLTK_DATA at DIR."
    )


def find_wordnet_license(data_dir: Path) -> Path:
    """The WordNet 3.0 licence for the WordNet copy in ``data_dir``."""
    for place in WORDNET_LICENSE_PLACES:
        path = data_dir / place
        if path.is_file():
            return path
    raise MissingPrerequisiteError(
        f"no WordNet licence beside {data_dir / 'corpora/wordnet'} nor at "
        f"{WORDNET_LICENSE_PLACES[1]}, and WordNet may only be redistributed with it: install "
        "Debian's `wordnet-base` (apt-get install wordnet-base), or use NLTK's download "
        "(`dmbench setup --nltk-dir DIR`), which carries corpora/wordnet/LICENSE."
    )


def missing_resources(root: Path | None = None) -> list[str]:
    """The NLTK package ids that cannot be found on the search path."""
    import nltk

    use_data_dirs(root)
    missing = []
    for package, path in RESOURCES.items():
        try:
            nltk.data.find(path)
        except LookupError:
            missing.append(package)
    return missing


def require_nltk_data(root: Path | None = None) -> None:
    """Raise :class:`MissingPrerequisiteError` unless every resource metrik-4 needs is present
    and every file it opens has its pinned sha256."""
    missing = missing_resources(root)
    if missing:
        raise MissingPrerequisiteError(
            f"NLTK data missing ({', '.join(missing)}): run `dmbench setup` to download it, "
            "or point NLTK_DATA at a directory that holds it."
        )
    refuse_unpinned_found()


def download_nltk_data(target: Path | None = None) -> list[str]:
    """Download the missing resources into ``target`` (NLTK's default directory if None).

    Returns the ids that were downloaded; raises :class:`MissingPrerequisiteError` if NLTK
    could not fetch one of them.
    """
    import nltk

    downloaded = []
    for package in missing_resources():
        ok = nltk.download(package, download_dir=str(target) if target else None, quiet=True)
        if not ok:
            raise MissingPrerequisiteError(
                f"NLTK could not download {package!r}: check the network connection and retry "
                "`dmbench setup`, or, offline, point NLTK_DATA at a directory that holds it (the "
                "nltk_data/ folder of a deposit's package zip does)."
            )
        downloaded.append(package)
    if target is not None and str(target) not in nltk.data.path:
        nltk.data.path.insert(0, str(target))
    require_nltk_data()
    return downloaded
