"""The pipeline's layers stay one-way, and a light stage stays light to import."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "dmbench"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_layers_contract_holds():
    """import-linter's exhaustive layers contracts in pyproject.toml: no stage imports a later one."""
    result = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def _function_level_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(node):
            names = []
            if isinstance(inner, ast.ImportFrom) and inner.module:
                names = [inner.module]
            elif isinstance(inner, ast.Import):
                names = [alias.name for alias in inner.names]
            found += [f"{path}:{inner.lineno} {n}" for n in names if n.split(".")[0] == "dmbench"]
    return found


def test_no_dmbench_import_hides_inside_a_function():
    """An import inside a function would let a cycle through unseen; every one is at the top."""
    hidden = [hit for path in sorted(SOURCE.rglob("*.py")) for hit in _function_level_imports(path)]
    assert hidden == []


def test_the_plantuml_stage_loads_no_llm_client_or_spacy():
    """``import dmbench.plantuml`` (what every parse needs) pulls in neither ollama, httpx nor spaCy."""
    probe = "import sys, json, dmbench.plantuml; print(json.dumps(sorted(sys.modules)))"
    loaded = json.loads(subprocess.check_output([sys.executable, "-c", probe], text=True))
    heavy = {"ollama", "httpx", "spacy", "pandas", "frictionless"}
    assert heavy.isdisjoint(loaded)
    assert "dmbench.plantuml" in loaded
