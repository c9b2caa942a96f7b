"""Each candidate is one spec in its own module; the registry, the CLI and the runs read it."""

from __future__ import annotations

import inspect
import re

import pytest
from click.testing import CliRunner

import dmbench
from dmbench.candidates import CandidateSpec, register, upstream_names
from dmbench.cli import main
from dmbench.errors import DuplicateNameError, OptionError, UnknownNameError
from dmbench.judge import JUDGE, JudgeOptions
from dmbench.llm.llm_candidate import LLMCandidate
from dmbench.runs.import_published import effective_settings


def test_candidates_lists_the_three_specs_in_table_order():
    specs = dmbench.candidates()
    assert [s.name for s in specs] == ["rule_based", "chen", "calamo"]
    assert [s.upstream_name for s in specs] == [
        "rule_based",
        "zenodo_zero_shot",
        "kaiser_zero_shot",
    ]
    assert [s.uses_llm for s in specs] == [False, True, True]
    assert specs[0].options == {} and specs[0].prompt_files == ()
    assert specs[1].prompt_files == ("chen_system.txt", "chen_task.txt", "chen_translate.txt")
    assert specs[1].options["temperature_translate"] == 0.0
    assert "temperature_translate" not in specs[2].options
    assert all(s.options["temperature"] == 0.7 and s.options["timeout"] == 600 for s in specs[1:])


def test_a_duplicate_name_is_refused_and_the_first_spec_kept():
    chen = dmbench.candidates()[1]
    impostor = CandidateSpec("chen", 9, "other", False, "", factory=chen.factory)
    with pytest.raises(DuplicateNameError, match="'chen' is already registered"):
        register(impostor)
    assert dmbench.candidates()[1] is chen


def test_the_upstream_names_are_read_from_the_specs():
    assert upstream_names() == {
        "rule_based": "rule_based",
        "zenodo_zero_shot": "chen",
        "kaiser_zero_shot": "calamo",
    }


def test_each_option_default_is_the_constructors_default():
    """The spec's upstream defaults and the constructor's keyword defaults are one set of values."""
    base = inspect.signature(LLMCandidate.__init__).parameters
    for spec in dmbench.candidates()[1:]:
        own = inspect.signature(spec.factory.__init__).parameters
        for name, default in spec.options.items():
            assert {**base, **own}[name].default == default, (spec.name, name)


def test_published_runs_record_the_spec_defaults():
    chen = effective_settings("chen", "glm-5.1:cloud")
    assert (chen["temperature"], chen["temperature_translate"], chen["num_predict"]) == (
        0.7,
        0.0,
        1024,
    )
    assert (chen["timeout_seconds"], chen["think"], chen["truncate"]) == (600, False, True)
    calamo = effective_settings("calamo", "glm-5.1:cloud")
    assert calamo["temperature_translate"] is None and calamo["truncate"] is None
    assert effective_settings("rule_based", None)["uses_llm"] is False


def test_generate_offers_the_registered_candidates_and_their_defaults():
    shown = " ".join(CliRunner().invoke(main, ["generate", "--help"]).output.split())
    assert "[rule_based|chen|calamo]" in shown or "rule_based|chen|calamo" in shown.replace(" ", "")
    assert "[default: 0.7]" in shown and "[default: 0.0]" in shown and "[default: 1024]" in shown


@pytest.mark.parametrize(
    ("candidate", "settings", "error", "message"),
    [
        ("rule_based", {"seed": 1}, OptionError, "are for the LLM candidates; rule_based takes none"),
        ("calamo", {"model": "m", "temperature_translate": 0.1}, OptionError,
         "--temperature-translate is for chen: calamo does not take it"),
        ("calamo", {"model": "m", "truncate": False}, OptionError, "--no-truncate is for chen"),
        ("chen", {}, OptionError, "chen needs --model"),
        ("chen", {"model": "m", "temprature": 0.1}, UnknownNameError, "'temprature'"),
        ("nope", {}, UnknownNameError, "unknown candidate 'nope'"),
    ],
)  # fmt: skip
def test_the_api_refuses_what_the_candidate_does_not_take(
    tmp_path, candidate, settings, error, message
):
    """The rules live with the specs, so a library caller meets them as the CLI user does."""
    with pytest.raises(error, match=re.escape(message)):
        dmbench.Package(tmp_path).generate(candidate, dataset="ds2", **settings)
    assert list(tmp_path.iterdir()) == []


def test_the_judge_spec_holds_its_criteria_prompt_version_and_defaults():
    assert (JUDGE.criteria_file, JUDGE.prompt_version) == ("criteria-v1.json", "2")
    assert JUDGE.options == JudgeOptions() and JUDGE.timeout == 600
    assert inspect.signature(dmbench.Package.judge).parameters["options"].default is JUDGE.options
    shown = " ".join(CliRunner().invoke(main, ["judge", "--help"]).output.split())
    assert f"[default: {JUDGE.options.num_predict}; x>=1]" in shown and "criteria-v1.json" in shown
