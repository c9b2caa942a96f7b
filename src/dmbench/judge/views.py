"""The image view: both diagrams drawn by the pinned PlantUML, the judge shown the drawings.

What is drawn is each diagram's blind form (:mod:`dmbench.judge.blind`) with one neutral skin
(monochrome, no shadows) and nothing else: no title, caption, legend or id, and the PNG carries
no text chunk (``-nometadata``), so the image shows what the text view shows and no more. The
drawing goes through the render module's API (its pinned PlantUML and cache).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from pathlib import Path

from dmbench.core.hashing import sha256_text
from dmbench.render import cache_dir_for, draw_png, png_cache_dir_for

VIEWS = ("text", "image")
DEFAULT_VIEW = "text"
SKIN = "skinparam monochrome true\nskinparam shadowing false\n"


KEYWORDS = frozenset(
    {
        "actor", "agent", "artifact", "boundary", "card", "circle", "cloud", "collections",
        "component", "control", "database", "entity", "file", "folder", "frame", "hexagon",
        "interface", "json", "label", "map", "namespace", "node", "object", "package",
        "participant", "person", "queue", "rectangle", "stack", "state", "storage", "usecase",
    }
)  # fmt: skip
"""Words PlantUML reads as another element when a line starts with them: a relationship from
a class named ``Actor`` or ``Person`` (two references have one) is quoted to stay a class."""
_LEADING_WORD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?= )")


def drawing_source(blind_text: str) -> str:
    """The PlantUML drawn for a blind form: the skin and the diagram, nothing else."""
    lines = [_LEADING_WORD.sub(_quoted_keyword, line) for line in blind_text.splitlines()]
    return "@startuml\n" + SKIN + "\n".join(lines) + "\n@enduml\n"


def _quoted_keyword(match: re.Match[str]) -> str:
    word = match.group(1)
    return f'"{word}"' if word.casefold() in KEYWORDS else word


class Drawings:
    """PNGs of blind forms, drawn in batches (one JVM each) and kept per text."""

    def __init__(self, package_dir: Path) -> None:
        self.package_dir = Path(package_dir)
        self._pngs: dict[str, bytes | None] = {}
        self._lock = threading.Lock()

    def prepare(self, texts: Iterable[str]) -> None:
        """Draw every text not drawn yet in one batch (a run draws all of its diagrams first)."""
        with self._lock:
            wanted = [t for t in dict.fromkeys(texts) if t not in self._pngs]
            if not wanted:
                return
            sources = {t: drawing_source(t) for t in wanted}
            cache = png_cache_dir_for(cache_dir_for(self.package_dir))
            drawn = draw_png(sources.values(), cache)
            for text, source in sources.items():
                self._pngs[text] = drawn[sha256_text(source)]

    def png(self, blind_text: str) -> bytes | None:
        """The drawing of ``blind_text``; None when PlantUML draws nothing from it."""
        self.prepare([blind_text])
        return self._pngs[blind_text]
