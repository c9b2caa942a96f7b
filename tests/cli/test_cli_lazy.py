"""The command group lists every command without importing it, and runs each from its module."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from dmbench.cli import LAZY_COMMANDS, main

CLI_DIR = Path(__file__).resolve().parents[2] / "src" / "dmbench" / "cli"
HEAVY = {"pandas", "frictionless", "nltk", "spacy", "httpx", "ollama", "matplotlib", "numpy"}


def _loaded_after(*argv: str) -> set[str]:
    probe = (
        "import sys, json\nfrom dmbench.cli import main\n"
        f"try:\n    main({list(argv)!r})\nexcept SystemExit:\n    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def _loaded_by_importing(*modules: str) -> set[str]:
    """The modules a fresh Python has loaded after importing ``modules``."""
    probe = "import importlib, json, sys\n" + "".join(
        f"importlib.import_module({module!r})\n" for module in modules
    ) + "print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_help_lists_every_command_and_imports_none_of_them():
    loaded = _loaded_after("--help")
    assert HEAVY.isdisjoint(loaded)
    assert not {name for name in loaded if name.startswith("dmbench.cli.commands_")}
    listed = CliRunner().invoke(main, ["--help"]).output
    assert all(f"  {command.name} " in listed for command in LAZY_COMMANDS)


def test_parse_loads_only_the_plantuml_stage(tmp_path):
    diagram = tmp_path / "d.puml"
    diagram.write_text("@startuml\nclass A\n@enduml\n", encoding="utf-8")
    loaded = _loaded_after("parse", str(diagram))
    assert "dmbench.plantuml" in loaded
    assert HEAVY.isdisjoint(loaded) and "dmbench.metrics" not in loaded


def test_no_command_loads_scipy_stats_to_start():
    """Only the study's statistics and the rankings use it (0.6 s of every command's start)."""
    modules = sorted({f"dmbench.cli.{command.module}" for command in LAZY_COMMANDS})
    assert "scipy.stats" not in _loaded_by_importing(*modules)


def test_each_summary_is_its_commands_help_and_every_command_is_listed():
    """A summary is the first paragraph of the command's own help, and no command is missing."""
    by_name = {command.name: command for command in LAZY_COMMANDS}
    defined = {}
    for path in sorted(CLI_DIR.glob("commands_*.py")):
        module = importlib.import_module(f"dmbench.cli.{path.stem}")
        commands = [v for v in vars(module).values() if isinstance(v, click.Command)]
        nested = {id(sub) for group in commands if isinstance(group, click.Group)
                  for sub in group.commands.values()}  # fmt: skip
        for command in commands:
            if id(command) not in nested:
                defined[command.name] = (path.stem, command)
    assert sorted(defined) == sorted(by_name)
    for name, (module, command) in defined.items():
        assert by_name[name].module == module
        assert by_name[name].summary == " ".join(command.help.split("\n\n")[0].split())


def test_the_main_job_imports_the_llm_client_and_matplotlib_only_when_used():
    """A warm main job asks no model and draws no plot; importing ollama (its pydantic models)
    and matplotlib cost it about a second."""
    loaded = _loaded_by_importing("dmbench.api", "dmbench.flows.reproduce", "dmbench.llm.client")
    assert not {"ollama", "matplotlib"} & loaded


def test_a_metrik4_pair_loads_neither_numpy_nor_scipy(tmp_path):
    """One cold pair with the published metric: numpy and scipy serve the other metrics only."""
    reference, generated = tmp_path / "ref.puml", tmp_path / "gen.puml"
    reference.write_text("@startuml\nclass Customer {\n  name\n}\n@enduml\n", encoding="utf-8")
    generated.write_text("@startuml\nclass Client {\n  fullName\n}\n@enduml\n", encoding="utf-8")
    loaded = _loaded_after("score-pair", str(reference), str(generated))
    assert "dmbench.metrics.metrik4" in loaded
    assert not {"numpy", "scipy", "pandas", "networkx"} & loaded


def test_blas_runs_one_thread_in_a_command_unless_the_user_chose():
    """OpenBLAS's idle threads spin: a dmbench command asks for one unless OPENBLAS_NUM_THREADS
    is set; the library leaves numpy's default alone."""
    import os

    probe = (
        "import os, sys, dmbench.api\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))\n"
        "from dmbench.cli import main\nprint(os.environ['OPENBLAS_NUM_THREADS'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, expected in ((None, "None\n1"), ("3", "3\n3")):
        run_env = env if given is None else {**env, "OPENBLAS_NUM_THREADS": given}
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=run_env
        )
        assert done.stdout.strip() == expected
