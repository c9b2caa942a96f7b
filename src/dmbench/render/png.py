"""Diagrams drawn as PNG by the pinned PlantUML, for a judge that looks at the drawings.

One JVM per batch, as for the SVGs, with ``-nometadata`` so that the PNG does not carry the
PlantUML source in a text chunk (PlantUML embeds it by default), and every text chunk left
(PlantUML 1.2025 still adds a ``copyleft`` one) dropped: the image holds the drawing and nothing
else. Cached by the source's sha256 beside the SVG cache; a source PlantUML
rejects or draws nothing from is remembered as such (an empty ``.none`` file) with no repair: what is
drawn here is text dmbench writes itself.
"""

from __future__ import annotations

import struct
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from dmbench.core import atomic
from dmbench.core.hashing import sha256_text
from dmbench.errors import JvmFailedError
from dmbench.render.plantuml import (
    LAYOUT,
    PLANTUML_VERSION,
    SECONDS_PER_DIAGRAM,
    _die_with_parent,
    _jar,
    _rejections,
    batch_inputs,
    find_dot,
    find_java,
    jvm_command,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_cache_dir_for(svg_cache_dir: Path) -> Path:
    """The PNG cache beside a package's SVG cache (same PlantUML version and layout)."""
    return Path(svg_cache_dir).with_name(f"plantuml-{PLANTUML_VERSION}-{LAYOUT}-png")


def draw_png(sources: Iterable[str], cache_dir: Path) -> dict[str, bytes | None]:
    """The PNG of every distinct source by its sha256 (None when PlantUML draws nothing):
    cached, else drawn now in one JVM."""
    cache_dir = Path(cache_dir)
    by_sha = {sha256_text(source): source for source in sources}
    drawn: dict[str, bytes | None] = {}
    missing: dict[str, str] = {}
    for sha, source in by_sha.items():
        if (cache_dir / f"{sha}.png").is_file():
            drawn[sha] = without_text_chunks((cache_dir / f"{sha}.png").read_bytes())
        elif (cache_dir / f"{sha}.none").is_file():
            drawn[sha] = None
        else:
            missing[sha] = source
    if missing:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for sha, png in _run(missing, cache_dir).items():
            if png is None:
                atomic.write_bytes(cache_dir / f"{sha}.none", b"")
            else:
                atomic.write_bytes(cache_dir / f"{sha}.png", png)
            drawn[sha] = png
    return {sha: drawn[sha] for sha in by_sha}


def _run(sources: dict[str, str], workdir: Path) -> dict[str, bytes | None]:
    with tempfile.TemporaryDirectory(prefix=".png-", dir=workdir) as tmp:
        outputs, files = batch_inputs(sources, Path(tmp))
        drawing = ["-tpng", "-nometadata"]
        command = jvm_command(find_java(), _jar(), find_dot(), drawing, outputs, files)
        timeout = SECONDS_PER_DIAGRAM + len(files)
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                                  cwd=tmp, env={}, timeout=timeout,
                                  preexec_fn=_die_with_parent, check=False)  # fmt: skip
        except subprocess.TimeoutExpired:
            raise JvmFailedError(f"PlantUML did not draw the PNGs within {timeout} s") from None
        rejected = _rejections(done.stderr.decode("utf-8", errors="replace"))
        found: dict[str, bytes | None] = {}
        for sha in sources:
            if sha in rejected:  # PlantUML draws its error screen: no drawing of the diagram
                found[sha] = None
                continue
            png = outputs / f"{sha}.png"
            data = png.read_bytes() if png.is_file() else b""
            found[sha] = without_text_chunks(data) if data.startswith(PNG_SIGNATURE) else None
        return found


TEXT_CHUNKS = (b"tEXt", b"zTXt", b"iTXt")


def without_text_chunks(png: bytes) -> bytes:
    """``png`` without its text chunks; every other chunk as it was (each carries its own CRC,
    so dropping whole chunks keeps the file valid)."""
    kept, at = [png[: len(PNG_SIGNATURE)]], len(PNG_SIGNATURE)
    while at + 8 <= len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        end = at + 12 + length
        if png[at + 4 : at + 8] not in TEXT_CHUNKS:
            kept.append(png[at:end])
        at = end
    return b"".join(kept)
