"""The public Python API, as the README shows it to a notebook user."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from fake_ollama import DIGEST, MODEL, diagram_reply, judge_reply
from results_support import built_package, copy_package

import dmbench
import dmbench.api
from dmbench.metrics import compute
from dmbench.plantuml import parse as parse_any_reading

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _python_api_section() -> str:
    section = README.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 1, "the Python API section shows one notebook session"
    return blocks[0]


def test_readme_python_api_section_runs_as_written(monkeypatch, tmp_path, fake_ollama):
    """The session as written, its Ollama server the scripted one: generate -> score -> tables."""
    monkeypatch.chdir(copy_package(tmp_path / "package"))
    monkeypatch.setenv("OLLAMA_HOST", fake_ollama.url)
    fake_ollama.models["glm-5.1:cloud"] = DIGEST
    fake_ollama.responder = diagram_reply
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(_python_api_section(), "README.md#python-api", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert lines[0] == "{'ds1': 45, 'ds2': 8}"
    assert "True" in lines
    assert lines[-2:] == ["['rule_based', 'chen', 'calamo']", "calamo glm-5.1:cloud 1"]
    assert len(fake_ollama.chats()) == 8  # one call per ds2 record


def test_package_judge_drives_a_panel_against_the_scripted_server(tmp_path, fake_ollama):
    package = dmbench.Package(copy_package(tmp_path / "package"))
    fake_ollama.responder = diagram_reply
    (run,) = package.generate("calamo", model=MODEL, dataset="ds2", hosts=[fake_ollama.url])
    fake_ollama.responder = judge_reply(6, 8)
    judged = package.judge([MODEL], runs=[run.info.run_id], hosts=[fake_ollama.url])
    assert judged.info["totals"] == {"n_instances": 8, "n_failed": 0, "n_empty_generated": 0,
                                     "n_unreadable_generated": 0}  # fmt: skip
    (row,) = package.leaderboard()["rows"]
    assert (row["candidate"], row["judge"], row["n"]) == ("calamo", MODEL, 8)
    frame = package.leaderboard_frame()  # the LLM column named as in every frame, ranks integers
    assert (frame.model[0], frame["rank"][0], frame["rank"].dtype) == (row["llm"], 1, "Int64")
    shown_both_ways = {round(6 / 14, 9), round(8 / 14, 9), 0.5}  # the seeded order decides
    assert {round(r["s_final"], 9) for r in judged.rows()} <= shown_both_ways
    with pytest.raises(dmbench.errors.OptionError, match="given twice"):
        package.judge([MODEL, MODEL], runs=[run.info.run_id], hosts=[fake_ollama.url])


def test_public_names_are_exactly_the_documented_ones():
    assert set(dmbench.__all__) == {
        "DmbenchError",
        "Package",
        "ParseError",
        "UnknownNameError",
        "__version__",
        "candidates",
        "parse",
        "score_pair",
    }
    for name in dmbench.__all__:
        assert getattr(dmbench, name) is not None
    with pytest.raises(AttributeError):
        dmbench.Nope  # noqa: B018


def test_package_tables_are_plain_dataframes():
    package = dmbench.Package(built_package())
    records, runs, outputs, scores = (
        package.records(),
        package.runs(),
        package.outputs(),
        package.scores(),
    )
    assert len(records) == 53 and list(records.index) == list(range(53))
    assert len(runs) == 42 and runs.run_id.is_unique
    assert len(outputs) == len(scores) == 1113
    assert scores.class_score.dtype == float
    assert list(scores.columns[:4]) == ["run_id", "record_id", "metric", "origin"]


@pytest.mark.needs_nltk
def test_parse_reads_standard_by_default_as_everywhere_and_score_pair_scores_strings():
    text = "@startuml\nclass Customer {\n  -name: String\n}\nclass Order\n@enduml\n"
    assert dmbench.parse(text) == parse_any_reading(text) == parse_any_reading(text, "standard")
    assert dmbench.parse(text, "compat") == parse_any_reading(text, "compat")
    assert dmbench.parse(text) != dmbench.parse(text, "compat")
    other = "@startuml\nclass Client {\n  name: String\n}\n@enduml\n"
    assert dmbench.score_pair(text, other) == compute(text, other, "metrik-4")
    assert dmbench.score_pair(text, other) != compute(text, other, "metrik-4-standard")


def test_errors_are_one_hierarchy():
    with pytest.raises(dmbench.ParseError) as parse_error:
        dmbench.parse("not plantuml")
    assert isinstance(parse_error.value, ValueError | dmbench.DmbenchError)
    with pytest.raises(dmbench.UnknownNameError) as unknown:
        dmbench.score_pair("@startuml\n@enduml", "@startuml\n@enduml", metric="metrik-9")
    assert isinstance(unknown.value, LookupError)


def test_a_folder_without_a_package_is_refused_and_left_empty(tmp_path):
    with pytest.raises(dmbench.DmbenchError) as refused:
        dmbench.Package(tmp_path).score()
    assert refused.value.hint and "--package" in refused.value.hint
    assert list(tmp_path.iterdir()) == []


def test_table2_is_a_frame_of_flat_numeric_columns_with_the_papers_rows():
    """Each element's statistics are float columns (NaN where none), unrounded; the minimax
    rows (imported, not canonical) come only when asked for."""
    package = dmbench.Package(built_package())
    table2 = package.tables(table="table2")
    assert list(table2.index) == list(range(len(table2))) and table2.canonical.all()
    cells = [f"{e}_{s}" for e in ("class", "attribute", "association")
             for s in ("median", "std", "ci_low", "ci_high")]  # fmt: skip
    assert all(table2[c].dtype == float for c in [*cells, "fail_pct", "rejected_pct"])
    assert "model" in table2.columns and "llm" not in table2.columns
    published = package.table_set().results
    (chen,) = [r for r in published if r.table == "table2" and r.series == "chen__glm-5.1_cloud"]
    row = table2[table2.series == "chen__glm-5.1_cloud"].iloc[0]
    assert row.class_median == chen.median["class"] and row.class_ci_low == chen.ci_low["class"]
    every = package.tables(table="table2", all_rows=True)
    assert len(every) > len(table2) and not every.canonical.all()
    assert set(package.tables(table="table3").dataset) == {"ds2"}
    with pytest.raises(dmbench.UnknownNameError, match="table4"):
        package.tables(table="table4")


def test_a_deposit_zip_is_read_as_the_folder_it_was_made_from(deposit, deposit_package):
    """records(), runs(), scores() and tables() of the package zip equal the folder's."""
    from dmbench.release.deposit import PACKAGE_ZIP

    zipped, folder = dmbench.Package(deposit / PACKAGE_ZIP), dmbench.Package(deposit_package)
    assert zipped.records().equals(folder.records())
    assert zipped.runs().equals(folder.runs())
    assert zipped.scores().equals(folder.scores())
    assert zipped.tables(table="table3").equals(folder.tables(table="table3"))


def test_the_command_line_verbs_work_from_python(tmp_path):
    """What ``parse --jsonl``, ``score-pairs``, ``score-pair`` and ``leaderboard`` call."""
    good, bad = "@startuml\nclass A\n@enduml\n", "@startuml\nclass A {\n@enduml\n"
    parsed = list(dmbench.api.parse_many([(1, good), ("two", bad)]))
    assert [(r["id"], r["ok"]) for r in parsed] == [(1, True), ("two", False)]
    heard = []
    dmbench.parse(good.replace("\n", "\r"), on_warning=heard.append)
    assert heard == ["cr_only_line_endings"]
    (scored,) = dmbench.api.score_many([("p", good, "")])
    assert scored == {"id": "p", "class_score": 0.0, "attribute_score": 0.0,
                      "association_score": 0.0, "error": "empty_generated_model"}  # fmt: skip
    package = dmbench.Package(built_package() / "datapackage.json")
    assert package.path == built_package()
    assert package.leaderboard()["rows"] == []
    with pytest.raises(dmbench.DmbenchError, match="no judge runs in the package"):
        package.leaderboard(out=tmp_path, strict=True)
    with pytest.raises(dmbench.DmbenchError, match="md or csv"):
        package.leaderboard(out=tmp_path, fmt="json")
    assert list(tmp_path.iterdir()) == []
