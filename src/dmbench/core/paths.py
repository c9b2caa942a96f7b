"""Where things are: the package directory, the upstream sources, the NLTK data.

Every default can be overridden by an argument; the environment variables exist for CI and for
users who keep the sources elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

SOURCES_ENV = "DMBENCH_SOURCES"
CACHE_ENV = "DMBENCH_CACHE"


def package_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The data package lives in the project checkout (the current directory by default)."""
    return Path(path) if path is not None else Path.cwd()


def shared_dir(root: Path | None = None) -> Path:
    """``../shared`` (mirrored upstream files, golden data, NLTK data) beside the checkout.

    Looked for beside the package directory, the current directory and the source checkout
    dmbench runs from, so ``--package /elsewhere`` still finds it; the first that exists wins.
    """
    checkout = Path(__file__).resolve().parents[3]
    places = [package_dir(root).resolve().parent, Path.cwd().resolve().parent, checkout.parent]
    for place in places:
        if (place / "shared").is_dir():
            return place / "shared"
    return places[0] / "shared"


def _user_cache_dir() -> Path:
    """dmbench's folder in the user's cache (``$XDG_CACHE_HOME``, default ``~/.cache``); a
    relative ``$XDG_CACHE_HOME`` is ignored, as the XDG spec says, so no cache lands in the
    current folder (a package folder, say). Raises ``RuntimeError`` when there is no home."""
    given = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(given) if os.path.isabs(given) else Path.home() / ".cache") / "dmbench"


def wheels_cache_dir() -> Path:
    """Where ``dmbench deposit --wheels`` keeps the wheels it fetched, one folder per set of
    requirements, so a second deposit of the same code fetches nothing."""
    return _user_cache_dir() / "wheels"


def fetch_cache_dir() -> Path:
    """Where ``dmbench sources fetch`` extracts the pinned archives by default."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    return _user_cache_dir() / "sources"


def derived_cache_dir() -> Path | None:
    """Where files derived from dmbench's inputs are kept so later processes skip the work (the
    record of NLTK files found equal to their pins, the tagger's parsed model, the main job's
    pair scores): beside the fetch cache, never inside it, so ``$DMBENCH_CACHE`` keeps holding
    the sources alone. Deleting it is always safe; None when the user has no home (nothing is
    kept then)."""
    try:
        return _user_cache_dir() / "derived"
    except RuntimeError:
        return None


def default_sources_dir(root: Path | None = None) -> Path:
    """``$DMBENCH_SOURCES``, else ``../shared/upstream`` when present, else the fetch cache."""
    env = os.environ.get(SOURCES_ENV)
    if env:
        return Path(env)
    mirrored = shared_dir(root) / "upstream"
    if mirrored.is_dir():
        return mirrored
    return fetch_cache_dir()


#: Where a data package carries the NLTK data subset metrik-4 reads (a Zenodo deposit does).
PACKAGE_NLTK_DIR = "nltk_data"


def shipped_nltk_dir(root: Path | None = None) -> Path | None:
    """The NLTK data the package in ``root`` carries, or None."""
    shipped = package_dir(root) / PACKAGE_NLTK_DIR
    return shipped if shipped.is_dir() else None


def nltk_data_dirs(root: Path | None = None) -> list[Path]:
    """NLTK data directories to search, in order.

    The package's own copy comes first when it holds one, so a deposit is re-scored with the
    data it ships and hashes, whatever else the machine has; then ``$NLTK_DATA``, then
    ``../shared/nltk_data`` when it exists.
    """
    shipped = shipped_nltk_dir(root)
    dirs = [shipped] if shipped else []
    dirs += [Path(p) for p in os.environ.get("NLTK_DATA", "").split(os.pathsep) if p]
    offline = shared_dir(root) / "nltk_data"
    if offline.is_dir():
        dirs.append(offline)
    return dirs
