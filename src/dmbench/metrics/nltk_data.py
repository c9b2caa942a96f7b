"""The NLTK data metrik-4 needs: where it is looked for, and how ``dmbench setup`` fetches it.

Metrik-4 depends on three NLTK resources. They are looked for in NLTK's own search path extended
by :func:`dmbench.paths.nltk_data_dirs`; a missing one is reported as one sentence with the fix,
never as NLTK's multi-line ``LookupError``.
"""

from __future__ import annotations

from pathlib import Path

from dmbench.errors import MissingPrerequisiteError
from dmbench.paths import nltk_data_dirs

#: NLTK package id -> the path ``nltk.data.find`` resolves for it.
RESOURCES: dict[str, str] = {
    "wordnet": "corpora/wordnet",
    "stopwords": "corpora/stopwords",
    "averaged_perceptron_tagger_eng": "taggers/averaged_perceptron_tagger_eng",
}


def use_data_dirs() -> None:
    """Put dmbench's NLTK data directories in front of NLTK's search path (idempotent)."""
    import nltk

    for directory in reversed(nltk_data_dirs()):
        path = str(directory)
        if path not in nltk.data.path:
            nltk.data.path.insert(0, path)


def missing_resources() -> list[str]:
    """The NLTK package ids that cannot be found on the search path."""
    import nltk

    use_data_dirs()
    missing = []
    for package, path in RESOURCES.items():
        try:
            nltk.data.find(path)
        except LookupError:
            missing.append(package)
    return missing


def require_nltk_data() -> None:
    """Raise :class:`MissingPrerequisiteError` unless every resource metrik-4 needs is present."""
    missing = missing_resources()
    if missing:
        raise MissingPrerequisiteError(
            f"NLTK data missing ({', '.join(missing)}): run `dmbench setup` to download it, "
            "or point NLTK_DATA at a directory that holds it."
        )


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
                "`dmbench setup`."
            )
        downloaded.append(package)
    if target is not None and str(target) not in nltk.data.path:
        nltk.data.path.insert(0, str(target))
    require_nltk_data()
    return downloaded
