"""The report's record pages show every run made after the paper (here a command candidate's),
after the paper's cells; the published non-canonical runs stay in the tables only."""

from __future__ import annotations

from results_support import copy_package

from dmbench import Package
from dmbench.report.data import record_views


def test_a_generated_run_has_a_cell_on_every_record_page_after_the_papers(tmp_path):
    package = copy_package(tmp_path / "package")
    script = tmp_path / "one.sh"
    script.write_text("#!/bin/sh\ncat >/dev/null\nprintf '@startuml\\nclass One\\n@enduml\\n'\n")
    (run,) = Package(package).generate(command=f"sh {script}", name="one", dataset="ds2")
    views = record_views(package)
    cells = [cell for cell, _ in views[0].outputs]
    assert [c.candidate for c in cells if not c.canonical] == ["one"]
    assert cells[-1].candidate == "one" and all(c.canonical for c in cells[:-1])
    assert not any("minimax" in (c.model or "") for c in cells)  # not canonical, published
    for view in views:
        (outputs,) = [outs for cell, outs in view.outputs if cell.candidate == "one"]
        if view.record.dataset == "ds2":
            assert [o.run_id for o in outputs] == [run.info.run_id]
            assert outputs[0].generated.startswith("@startuml\nclass One")
        else:
            assert outputs == ()
