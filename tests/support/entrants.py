"""The README's two candidates of one's own, read from the README's text so that what is tested
is what a newcomer copies: the shell script (and its command lines) and the plug-in, installed
as pip leaves a distribution (module plus ``.dist-info`` with its entry point)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import ROOT

PLUGIN_DISTRIBUTION = ("dmbench-nouns", "0.1.0")


def readme_block(marker: str) -> str:
    """The fenced code block right after ``<!-- marker -->`` in the README."""
    text = (ROOT / "README.md").read_text("utf-8")
    found = re.search(rf"<!-- {marker} -->\n```\w+\n(.*?)```\n", text, re.S)
    assert found, marker
    return found.group(1)


def install_readme_plugin(site: Path) -> Path:
    """The README's plug-in in ``site`` as ``pip install .`` of its ``pyproject.toml`` would
    leave it; put ``site`` on ``PYTHONPATH`` of a fresh ``dmbench`` process to use it."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "dmbench_nouns.py").write_text(readme_block("readme-plugin-candidate"), "utf-8")
    name, version = PLUGIN_DISTRIBUTION
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", "utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[dmbench.candidates]\nnouns = dmbench_nouns:SPEC\n", "utf-8"
    )
    return site
