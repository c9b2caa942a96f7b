"""Everything a metric's score depends on besides the two texts, as one sha256.

A score is a pure function of the reference, the generation, dmbench's reading and metric code
(``dmbench.metrics``, ``dmbench.plantuml`` and the error messages of ``dmbench.errors``), the
libraries that code calls, the Python that runs it and the NLTK data, whose files are pinned by
sha256 in ``nltk_pins`` (so they are covered by the code). Scores kept under one fingerprint
stay valid exactly while it holds.
"""

from __future__ import annotations

import hashlib
import sys
from functools import cache
from importlib.metadata import version
from pathlib import Path

from dmbench.core.hashing import add_files

#: The libraries the readings and metrics call, whose versions can change a score.
LIBRARIES = ("lark", "networkx", "nltk", "numpy", "rapidfuzz", "scipy")
#: dmbench's folders and files a score depends on, relative to the package.
_CODE = ("errors.py", "metrics", "plantuml")
_CODE_SUFFIXES = {".py", ".lark"}


@cache
def scoring_fingerprint() -> str:
    """The sha256 of the scoring code, its libraries' versions and the Python version."""
    return fingerprint_of(Path(__file__).resolve().parents[1])


def fingerprint_of(package: Path) -> str:
    """:func:`scoring_fingerprint` with the scoring code read from the ``dmbench`` folder
    ``package``."""
    digest = hashlib.sha256()
    digest.update(f"python {sys.version_info.major}.{sys.version_info.minor}\0".encode())
    for library in LIBRARIES:
        digest.update(f"{library} {version(library)}\0".encode())
    add_files(digest, package, _code_files(package))
    return digest.hexdigest()


def _code_files(package: Path) -> list[Path]:
    files = []
    for name in _CODE:
        path = package / name
        found = sorted(path.rglob("*")) if path.is_dir() else [path]
        files += [p for p in found if p.suffix in _CODE_SUFFIXES and p.is_file()]
    return files
