"""The pipeline's layers stay one-way, and a light stage stays light to import."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
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


def _dynamic_imports_and_lazy_names(path: Path) -> list[str]:
    """``importlib.import_module`` / ``__import__`` calls and the package's lazily loaded names
    (``dmbench.Package``, ``parse``, ``score_pair``, ``candidates``) used in ``path``."""
    lazy = {"Package", "parse", "score_pair", "candidates"}
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func)
            if name in {"importlib.import_module", "import_module", "__import__"}:
                found.append(f"{path.name}:{node.lineno} {name}")
        elif isinstance(node, ast.ImportFrom) and node.module == "dmbench":
            found += [f"{path.name}:{node.lineno} dmbench.{a.name}" for a in node.names
                      if a.name in lazy]  # fmt: skip
        elif isinstance(node, ast.Attribute) and ast.unparse(node.value) == "dmbench":
            if node.attr in lazy:
                found.append(f"{path.name}:{node.lineno} dmbench.{node.attr}")
    return found


def test_no_stage_below_the_api_imports_dynamically_or_through_the_lazy_names():
    """import-linter sees only import statements: a dynamic import or ``dmbench.Package`` via
    the package's lazy loader would pass it unseen. Only the top (the package's own loader,
    the API and the CLI's lazy command group) may use them."""
    top = {SOURCE / "__init__.py", *(SOURCE / "api").glob("*.py"), *(SOURCE / "cli").glob("*.py")}
    below = [p for p in sorted(SOURCE.rglob("*.py")) if p not in top]
    assert [hit for path in below for hit in _dynamic_imports_and_lazy_names(path)] == []
    assert _dynamic_imports_and_lazy_names(SOURCE / "cli" / "_group.py")  # the finder finds
