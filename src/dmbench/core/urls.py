"""URLs as dmbench stores them: scheme, host, port and path, never credentials or a query.

A URL that reaches ``run.json`` or a call record is published with the package; user info
(``user:password@``), a query (``?api_key=…``) and a fragment are dropped before it is stored,
and the caller warns that they were.
"""

from __future__ import annotations

import urllib.parse


def public_url(url: str) -> tuple[str, tuple[str, ...]]:
    """``url`` without user info, query and fragment, and the names of the parts dropped.

    Raises ``ValueError`` for a URL without a host name or with a port that is no port.
    """
    split = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
    split.port  # noqa: B018 - a port out of range or not a number raises here
    if not split.hostname:
        raise ValueError("no host name")
    scheme = f"{split.scheme}://" if "://" in url else ""
    public = f"{scheme}{split.netloc.rpartition('@')[2]}{split.path}".rstrip("/")
    dropped = tuple(
        part
        for part, given in (
            ("user name and password", "@" in split.netloc),
            ("query", "?" in url),
            ("fragment", "#" in url),
        )
        if given
    )
    return public, dropped
