"""One crash-safe folder swap: no module but ``core.swap`` renames a folder into place (and
``core.atomic`` a written file), so every swap is settled the same way after a kill."""

from __future__ import annotations

import re

from conftest import ROOT

ALLOWED = {"core/swap.py", "core/atomic.py"}


def test_only_core_swap_and_atomic_rename_anything_into_place():
    source = ROOT / "src" / "dmbench"
    renaming = sorted(
        str(path.relative_to(source))
        for path in source.rglob("*.py")
        if re.search(r"\bos\.(replace|rename)\(|\.rename\(|shutil\.move\(", path.read_text("utf-8"))
    )
    assert set(renaming) <= ALLOWED, renaming
