"""Issue 37, finding 3: a model name is text, never markup. One rule (``dmbench.core.escape``)
for Markdown, HTML and Zenodo's description; a name with markup is refused where it enters,
and one planted in a stored run (as an older or hand-edited package holds it) renders as
literal text in every table, the errata, the package README, datapackage.json and the deposit's
description."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from dmbench.cli import main
from dmbench.core.escape import html_text, markdown_text, one_line
from dmbench.core.names import check_name
from dmbench.errors import InputError
from dmbench.package import refresh
from dmbench.package.about import DepositFiles, readme
from dmbench.package.facts import package_facts
from dmbench.package.metadata import read_citation
from dmbench.release.deposit import zenodo_metadata
from dmbench.report.site import markdown_html
from dmbench.tables.errata import GROUP_HEADER, _group_label
from dmbench.tables.facts import GroupFacts
from dmbench.tables.render import markdown_table

EVIL = "a|b<script>\n## x"
RUNS = [f"calamo__glm-5.1_cloud__ds2__run{i}" for i in (1, 2, 3)]
ROOT = Path(__file__).resolve().parents[1]


class TestTheRule:
    def test_markdown_text_escapes_every_markup_character_and_keeps_one_line(self):
        assert markdown_text(EVIL) == "a\\|b&lt;script&gt;\\\\n\\#\\# x"
        assert markdown_text("[c](javascript:x)") == "\\[c\\]\\(javascript:x\\)"
        assert markdown_text("line\u2028sep") == "line\\\\u2028sep"

    def test_names_benchmarks_use_are_unchanged(self):
        for name in ("glm-5.1:cloud", "rule_based", "openai/gpt-4o", "chen__kimi-k2.6_cloud"):
            assert markdown_text(name) == html_text(name) == name

    def test_html_text_and_one_line(self):
        assert html_text(EVIL) == "a|b&lt;script&gt;\\n## x"
        assert one_line("a\r\n\tb\x00") == "a\\r\\n\\tb\\u0000"

    @pytest.mark.parametrize("name", [EVIL, "", "x" * 201, "a b", "../x\n", 5])
    def test_a_name_outside_the_safe_set_is_refused_in_one_short_line(self, name):
        with pytest.raises(InputError) as refused:
            check_name(name)
        assert "\n" not in str(refused.value) and len(str(refused.value)) < 200

    def test_the_cli_refuses_such_a_model_name_before_anything(self, tmp_path):
        result = CliRunner().invoke(main, ["judge", "--pairs", "-", "--model", EVIL,
                                           "--package", str(tmp_path)], input="")  # fmt: skip
        assert result.exit_code == 1 and len(result.stderr.strip().splitlines()) == 1
        assert "holds characters outside" in result.stderr


@pytest.fixture(scope="module")
def planted(tmp_path_factory, built_package) -> Path:
    package = tmp_path_factory.mktemp("planted") / "package"
    shutil.copytree(built_package, package)
    for run in RUNS:
        path = package / "runs" / run / "run.json"
        info = json.loads(path.read_text("utf-8"))
        info["model"] = info["settings"]["model"] = EVIL
        path.write_text(json.dumps(info, indent=2), "utf-8")
    refresh(package)
    return package


def test_every_markdown_and_json_table_shows_the_name_as_text(planted, tmp_path):
    """``dmbench tables`` on the planted package, and the errata's group rows."""
    out = tmp_path / "results"
    result = CliRunner().invoke(main, ["tables", "--out", str(out), "--package", str(planted)])
    assert result.exit_code == 0, result.output
    group = GroupFacts("calamo", EVIL, "ds2", True)
    (out / "errata-groups.md").write_text(
        "\n".join(markdown_table(list(GROUP_HEADER), [_group_label(group)], "llll")), "utf-8"
    )  # the errata's per-group tables (the whole errata re-scores: 200 s)
    markdowns = sorted(out.glob("*.md"))
    assert markdowns
    shown = 0
    for path in markdowns:
        text = path.read_text("utf-8")
        assert "<script>" not in text and "\n## x" not in text, path
        html = str(markdown_html(text))
        assert "<script" not in html and "<h2>x</h2>" not in html, path
        shown += html.count("a|b&lt;script&gt;\\n## x")
        for header, *rows in _tables(text):
            assert all(len(row) == len(header) for row in rows), path  # no forged cells
    assert shown, "the planted name is shown somewhere, as text"
    for path in sorted(out.glob("*.json")):
        assert EVIL in path.read_text("utf-8") or "script" not in path.read_text("utf-8")
        json.loads(path.read_text("utf-8"))  # JSON strings are literal by their nature


def _tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            if not line.startswith("| :---") and not line.startswith("| ---"):
                current.append(re.split(r"(?<!\\)\|", line.strip())[1:-1])
        elif current:
            tables.append(current)
            current = []
    return tables


def test_the_descriptions_show_the_name_as_text(planted):
    facts = package_facts(planted)
    assert EVIL in facts.llms
    zenodo = zenodo_metadata(read_citation(ROOT), 0, facts)
    description = zenodo["metadata"]["description"]
    assert "<script" not in description and "a|b&lt;script&gt;\\n## x" in description
    text = readme(
        facts, read_citation(ROOT), "0" * 40, "0.1.0", DepositFiles("p.zip", "c.zip"), "", []
    )
    assert "<script>" not in text and "\n## x" not in text
    assert "a\\|b&lt;script&gt;\\\\n\\#\\# x" in text
    descriptor = json.loads((planted / "datapackage.json").read_text("utf-8"))
    assert "<script" not in descriptor["description"]
    assert "a\\|b&lt;script&gt;\\\\n\\#\\# x" in descriptor["description"]
