"""A link check of a static site: every link and image resolves to a file of the site.

A site that works from ``file://`` without network must not name anything outside its folder:
any URL with a scheme or a host is reported, as are missing files and ``#fragments`` that name
no element of their page. The SVG images are read too, since an SVG can load what it names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

_INLINE = r"(?!#|data:)"
"""A fragment of the same file or inline data: neither reaches outside the image."""
_SVG_REFERENCE = re.compile(
    rf"""(?:href\s*=\s*["']{_INLINE}[^"']*["']|url\(\s*["']?{_INLINE}[^)"']*|@import)"""
)


@dataclass(frozen=True, slots=True)
class SiteCheck:
    """The built site's links and images as checked: what is broken, so ``report`` can fail
    rather than ship a dead link."""
    pages: int
    links: int
    images: int
    problems: tuple[str, ...]
    """Each as ``page: what is wrong``, paths relative to the site folder."""


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.references: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            if name in ("href", "src", "srcset", "data", "poster") and value is not None:
                self.references.append((tag, name, value))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text("utf-8"))
    return page


def check_site(site: Path) -> SiteCheck:
    """Every link and image of the site's pages resolves inside the site: a report opened from
    ``file://`` must not show a broken one."""
    site = Path(site)
    pages = {p: _parse(p) for p in sorted(site.rglob("*.html"))}
    problems: list[str] = []
    links = images = 0
    for path, page in pages.items():
        name = path.relative_to(site).as_posix()
        for tag, attribute, value in page.references:
            if tag == "img":
                images += 1
            else:
                links += 1
            problem = _resolve(site, path, value, pages)
            if problem:
                problems.append(f"{name}: <{tag} {attribute}={value!r}>: {problem}")
    for svg in sorted(site.rglob("*.svg")):
        text = svg.read_text("utf-8", errors="replace")
        for match in _SVG_REFERENCE.finditer(text):
            problems.append(f"{svg.relative_to(site).as_posix()}: loads {match.group(0)[:120]!r}")
    return SiteCheck(len(pages), links, images, tuple(problems))


def _resolve(site: Path, page: Path, value: str, pages: dict[Path, _Page]) -> str | None:
    parts = urlsplit(value)
    if parts.scheme == "data":
        return None
    if parts.scheme or parts.netloc or value.startswith("//"):
        return "points outside the site"
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
    if site.resolve() not in (target, *target.parents):
        return "points outside the site folder"
    if not target.is_file():
        return "no such file"
    if parts.fragment:
        anchors = pages.get(target) or next(
            (p for k, p in pages.items() if k.resolve() == target), None
        )
        if anchors is None or parts.fragment not in anchors.ids:
            return f"no element with id {parts.fragment!r}"
    return None
