"""The command line is a thin layer over ``dmbench.api``: it imports nothing else of dmbench
(a test over every module of ``dmbench.cli``, read with ast), and each command, on every way
through its body that does not end in an error, makes exactly one call of an API verb."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import NamedTuple

SOURCE = Path(__file__).resolve().parents[2] / "src" / "dmbench"
CLI = SOURCE / "cli"

#: What the command line may import besides its own modules: the files a user names are read
#: by the API's verbs (they take paths), the package folder by ``Package``.
ALLOWED = {"dmbench", "dmbench.api", "dmbench.errors"}


def _is_module(dotted: str) -> bool:
    relative = Path(*dotted.split(".")[1:])
    return (SOURCE / relative).with_suffix(".py").is_file() or (SOURCE / relative).is_dir()


def _dmbench_imports(tree: ast.AST) -> set[str]:
    """The dmbench modules imported, ``from pkg import module`` counted as ``pkg.module``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "dmbench"}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "dmbench":
            module = node.module or ""
            found |= {f"{module}.{a.name}" if _is_module(f"{module}.{a.name}") else module
                      for a in node.names}  # fmt: skip
    return found


def _cli_modules() -> list[Path]:
    return sorted(CLI.glob("*.py"))


def test_the_command_line_imports_only_the_api_the_errors_and_its_own_helpers():
    stray = {
        f"{path.name}: {module}"
        for path in _cli_modules()
        for module in _dmbench_imports(ast.parse(path.read_text("utf-8")))
        if module not in ALLOWED and not module.startswith("dmbench.cli")
    }
    assert stray == set()


def test_the_import_check_sees_a_stage_import():
    """The walk above would pass a stage import it cannot see; it sees both forms."""
    tree = ast.parse("from dmbench.metrics import METRICS\nfrom dmbench import plantuml\n")
    assert _dmbench_imports(tree) == {"dmbench.metrics", "dmbench.plantuml"}


class _Path(NamedTuple):
    calls: int
    ended: bool  # returned: later statements do not run
    raised: bool  # ended in an error, which needs no verb


class _Verbs:
    """Recognises a call of an API verb: a function imported from ``dmbench.api`` or a method
    of a ``Package`` (built in place or held in a variable)."""

    def __init__(self, tree: ast.Module, function: ast.FunctionDef) -> None:
        self.functions: set[str] = set()
        self.package_class: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "dmbench.api":
                for alias in node.names:
                    local = alias.asname or alias.name
                    if alias.name == "Package":
                        self.package_class.add(local)
                    elif alias.name[0].islower():
                        self.functions.add(local)
        self.packages = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and self._is_package(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }

    def _is_package(self, node: ast.expr) -> bool:
        return isinstance(node, ast.Call) and ast.unparse(node.func) in self.package_class

    def count(self, node: ast.AST | None) -> int:
        if node is None:
            return 0
        total = 0
        for inner in ast.walk(node):
            if not isinstance(inner, ast.Call):
                continue
            func = inner.func
            if isinstance(func, ast.Name) and func.id in self.functions:
                total += 1
            elif isinstance(func, ast.Attribute) and (
                (isinstance(func.value, ast.Name) and func.value.id in self.packages)
                or self._is_package(func.value)
            ):
                total += 1
        return total


def _then(first: list[_Path], second: list[_Path]) -> list[_Path]:
    return [
        p if p.ended else _Path(p.calls + q.calls, q.ended, q.raised) for p in first for q in second
    ]


def _body(statements: list[ast.stmt], verbs: _Verbs) -> list[_Path]:
    paths = [_Path(0, False, False)]
    for statement in statements:
        paths = _then(paths, _statement(statement, verbs))
    return paths


def _statement(node: ast.stmt, verbs: _Verbs) -> list[_Path]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [_Path(0, False, False)]  # a callback's body runs inside the verb
    if isinstance(node, ast.Return):
        return [_Path(verbs.count(node.value), True, False)]
    if isinstance(node, ast.Raise):
        return [_Path(verbs.count(node.exc), True, True)]
    if isinstance(node, ast.If):
        test = [_Path(verbs.count(node.test), False, False)]
        return _then(test, _body(node.body, verbs)) + _then(test, _body(node.orelse, verbs))
    if isinstance(node, ast.For | ast.AsyncFor):
        head = [_Path(verbs.count(node.iter), False, False)]
        return _then(_then(head, _body(node.body, verbs)), _body(node.orelse, verbs))
    if isinstance(node, ast.With | ast.AsyncWith):
        head = [_Path(sum(verbs.count(item.context_expr) for item in node.items), False, False)]
        return _then(head, _body(node.body, verbs))
    if isinstance(node, ast.Try):
        # A handler that does not re-raise would be a way through of its own; the commands'
        # handlers translate an error into another, so each is an error path.
        done = _then(_body(node.body, verbs), _body(node.orelse, verbs))
        return _then(done, _body(node.finalbody, verbs))
    return [_Path(verbs.count(node), False, False)]


def _is_command(function: ast.FunctionDef) -> bool:
    return any(".command" in ast.unparse(d) for d in function.decorator_list)


def _verb_calls_per_way(path: Path) -> dict[str, list[int]]:
    tree = ast.parse(path.read_text("utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and _is_command(node):
            ways = _body(node.body, _Verbs(tree, node))
            found[f"{path.stem}.{node.name}"] = sorted({w.calls for w in ways if not w.raised})
    return found


def test_each_command_makes_one_api_verb_call_on_every_way_through():
    """Parsing options and printing the result stay in the command; everything between is one
    verb of the API, so a notebook can do what the command does in one call."""
    counted = {}
    for path in _cli_modules():
        counted |= _verb_calls_per_way(path)
    assert len(counted) >= 26  # every command was found (LAZY_COMMANDS lists them)
    assert {name: calls for name, calls in counted.items() if calls != [1]} == {}


def test_the_verb_count_sees_two_calls_and_none(tmp_path):
    """The count is not blind: a command chaining two verbs, or calling none, is reported."""
    source = tmp_path / "commands_x.py"
    source.write_text(
        "import click\nfrom dmbench.api import Package, parse\n"
        "@click.command()\ndef two(flag):\n    package = Package('.')\n    if flag:\n"
        "        raise click.UsageError('no')\n    parse(package.records())\n"
        "@click.command()\ndef none():\n    click.echo('nothing')\n",
        encoding="utf-8",
    )
    assert _verb_calls_per_way(source) == {"commands_x.two": [2], "commands_x.none": [0]}
