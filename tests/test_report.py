"""The report site on a small real package: pages, diagrams, accessibility, links, a real browser.

The package is the built one cut down to three records (one per kind of reference: drawn by
PlantUML, rejected by PlantUML, and a DS-2 one), so PlantUML draws a few dozen real diagrams
instead of the ~750 of the whole package; the whole package is checked by the main job, whose
report stage fails on a missing page, diagram or link.
"""

from __future__ import annotations

import shutil
import signal
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import Chromium, find_chromium
from click.testing import CliRunner
from fake_ollama import Reply, judge_reply
from kill_support import in_child_killed_after
from results_support import deposit_ready_package, standard_scored_package

from dmbench.cli import main
from dmbench.core.hashing import sha256_text
from dmbench.metrics import PUBLISHED_METRIC, STANDARD_METRIC
from dmbench.report import build_site, check_site
from dmbench.report.outdir import MARKER, finish_interrupted, staging_for, swap_in
from dmbench.runs.scores import read_scores, write_scores
from dmbench.runs.store import list_runs, read_outputs
from dmbench.sources.records import read_records, write_records

RECORDS = ("ds1-AirTravel", "ds1-BankAccount", "ds2-HBMS")
CELLS = 5
RUNS = 3


def cut_package(package: Path, keep: tuple[str, ...]) -> Path:
    """The package with only the ``keep`` records, in every table and run."""
    records_csv = package / "data" / "records.csv"
    write_records(records_csv, [r for r in read_records(records_csv) if r.id in keep])
    for run in list_runs(package):
        kept = [o for o in read_outputs(run.outputs_path) if o.record_id in keep]
        run.outputs_path.write_text("".join(o.to_json_line() for o in kept), "utf-8")
        write_scores(run.path, [s for s in read_scores(run.path) if s.record_id in keep])
    return package


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    """Both metrics' scores, as after the main job (the errata tests share the scoring). The
    deposit-ready package is asked for first: its making drew every diagram into the session's
    render cache, so this file's are not drawn a second time in parallel with it."""
    deposit_ready_package()
    target = tmp_path_factory.mktemp("report") / "package"
    return cut_package(shutil.copytree(standard_scored_package(), target), RECORDS)


@pytest.fixture(scope="module")
def site(package: Path, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    return build_site(package, out)


class Page(HTMLParser):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(path.read_text("utf-8"))

    def handle_starttag(self, tag: str, attrs) -> None:
        self.tags.append((tag, dict(attrs)))

    def all(self, tag: str) -> list[dict]:
        return [attrs for name, attrs in self.tags if name == tag]


def test_index_and_one_page_per_record(site) -> None:
    assert site.ok, site.check.problems
    out = site.out_dir
    pages = sorted(p.name for p in out.glob("*.html"))
    assert pages == sorted(["index.html", *(f"{r}.html" for r in RECORDS)])
    links = {a.get("href") for a in Page(out / "index.html").all("a")}
    assert {f"{r}.html" for r in RECORDS} <= links
    assert site.record_pages == len(RECORDS)
    index = (out / "index.html").read_text("utf-8")
    for title in ("Table 1: the reference diagrams", "Table 2: scores on DS-1", "Errata"):
        assert title in index
    assert "<h3>Paired comparisons of the canonical cells of Tables 2-3</h3>" in index


def test_every_reference_and_canonical_output_is_drawn_on_its_page(site, package: Path) -> None:
    """The reference and all 15 canonical outputs (5 cells x 3 runs) of each record are shown
    as SVG images of the site; an empty output says so instead."""
    outputs = {
        (run.info.run_id, o.record_id): o.generated
        for run in list_runs(package)
        if run.info.canonical
        for o in run.outputs()
    }
    for record in read_records(package / "data" / "records.csv"):
        images = [i["src"] for i in Page(site.out_dir / f"{record.id}.html").all("img")]
        expected = [record.reference] + [
            text for (_, rid), text in outputs.items() if rid == record.id and text.strip()
        ]
        assert f"diagrams/{sha256_text(record.reference)}.svg" == images[0]
        assert sorted(images[1:]) == sorted(f"diagrams/{sha256_text(t)}.svg" for t in expected[1:])
        assert len([t for (_, rid), t in outputs.items() if rid == record.id]) == CELLS * RUNS
        for src in images:
            assert (site.out_dir / src).stat().st_size > 0


def test_a_reference_plantuml_rejects_is_drawn_repaired_with_a_badge(site) -> None:
    """ds1-AirTravel's reference writes ``"0..1"o--"0..*"``, which PlantUML calls a syntax error:
    it is drawn with a space put in, and PlantUML's message is shown beside the drawing."""
    page = (site.out_dir / "ds1-AirTravel.html").read_text("utf-8")
    reference = Page(site.out_dir / "ds1-AirTravel.html").all("img")[0]
    assert "class diagram with" in reference["alt"]
    svg = (site.out_dir / reference["src"]).read_text("utf-8")
    assert "contentStyleType" in svg and ">Airline<" in svg
    assert (
        '<figcaption class="badge" data-verdict="rejected">PlantUML rejects line 65: Syntax '
        "Error?; drawn after the repair: space put between an arrow and its multiplicity"
    ) in page
    drawn = Page(site.out_dir / "ds1-BankAccount.html").all("img")[0]
    assert "class diagram with 6 classes" in drawn["alt"]


def test_every_file_in_diagrams_is_a_plantuml_drawing(site) -> None:
    """No error card and no crash dump (PlantUML's exception screen) among the diagrams."""
    svgs = list((site.out_dir / "diagrams").glob("*.svg"))
    assert len(svgs) == site.diagrams - site.failed
    for svg in svgs:
        text = svg.read_text("utf-8")
        assert "contentStyleType" in text and "error has occur" not in text, svg.name
    assert site.rejected > site.repaired - 1 > 0


def test_record_page_shows_scores_failures_and_the_class_matching(site) -> None:
    html = (site.out_dir / "ds1-AirTravel.html").read_text("utf-8")
    assert html.count('<article class="run"') == CELLS * RUNS
    assert html.count("Scores of run") == CELLS * RUNS
    for metric in (PUBLISHED_METRIC, STANDARD_METRIC):
        assert html.count(f'<th scope="row">{metric} <span') == CELLS * RUNS
    assert "metrik-4 classes: 11 matched, 1 missing, 0 extra" in html  # rule_based
    assert "Missing</strong> (in the reference, unmatched): Ticket" in html


def test_pages_are_accessible(site) -> None:
    """One h1 per page, alt text on every image, header cells in every table, a language."""
    for path in site.out_dir.glob("*.html"):
        page = Page(path)
        assert len(page.all("h1")) == 1, path.name
        assert page.all("html")[0].get("lang") == "en"
        assert all(img.get("alt", "").strip() for img in page.all("img")), path.name
        html = path.read_text("utf-8")
        assert html.count("<table") == html.count("<thead"), path.name
        assert html.count("<th") > 0


def test_the_site_names_nothing_outside_itself(site) -> None:
    check = site.check
    assert check.problems == ()
    assert check.pages == 1 + len(RECORDS) and check.images >= len(RECORDS) * (1 + CELLS * RUNS)
    for path in site.out_dir.glob("*.html"):
        page = Page(path)
        assert page.all("script") == [{"src": "tables.js"}] and page.all("iframe") == []
        assert [link["href"] for link in page.all("link")] == ["style.css"]
    assert "url(" not in (site.out_dir / "style.css").read_text("utf-8")
    script = (site.out_dir / "tables.js").read_text("utf-8")
    assert "http" not in script and "fetch(" not in script and "XMLHttpRequest" not in script


def test_the_check_finds_a_missing_image_a_remote_asset_and_a_dead_anchor(site, tmp_path) -> None:
    broken = shutil.copytree(site.out_dir, tmp_path / "broken")
    page = broken / "ds1-BankAccount.html"
    first_image = Page(page).all("img")[0]["src"]
    (broken / first_image).unlink()
    html = page.read_text("utf-8").replace(
        "</main>",
        '<img src="https://cdn.example/x.png" alt="x"><a href="index.html#nowhere">x</a></main>',
    )
    page.write_text(html, "utf-8")
    problems = check_site(broken).problems
    assert any(first_image in p and "no such file" in p for p in problems)
    assert any("cdn.example" in p and "outside the site" in p for p in problems)
    assert any("#nowhere" in p and "no element with id 'nowhere'" in p for p in problems)


def test_a_failed_build_leaves_the_previous_site(site, tmp_path: Path) -> None:
    out = shutil.copytree(site.out_dir, tmp_path / "site")
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(Exception, match="records"):
        build_site(tmp_path / "no-package", out)
    assert sorted(p.name for p in out.iterdir()) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []


def test_plots_are_svg_with_alt_text(site) -> None:
    index = Page(site.out_dir / "index.html")
    plots = [i for i in index.all("img") if i["src"].startswith("plots/")]
    assert (
        len(plots) == site.plots == 12
    )  # per dataset: 3 distributions, metrics, failures, heatmap
    for img in plots:
        assert (site.out_dir / img["src"]).read_bytes().startswith(b"<?xml")
        assert len(img["alt"]) > 60


@pytest.fixture(scope="module")
def browser():
    if find_chromium() is None:
        pytest.fail("chromium is missing: `bash scripts/setup.sh` (as root) installs it")
    with Chromium() as chromium:
        yield chromium


@pytest.mark.parametrize("page", ["index.html", "ds1-AirTravel.html"])
def test_chromium_loads_the_page_from_file_without_errors(site, browser, page, tmp_path) -> None:
    url = (site.out_dir / page).resolve().as_uri()
    load = browser.load(url)
    assert load.console == []
    assert load.failed == []
    assert load.broken_images == []
    assert all(u.startswith(("file://", "data:")) for u in load.requests), load.requests
    assert len(load.requests) > 3  # the page, its stylesheet and its images were loaded
    assert load.title.endswith("· dmbench report")
    shot = browser.screenshot(tmp_path / f"{page}.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    width = browser.evaluate("document.documentElement.scrollWidth")
    assert width <= 1366  # nothing wider than a laptop screen but the scrollable tables


def _judged_site(package: Path, fake_ollama, responder, tmp_path: Path):
    """``dmbench judge`` of one run against the scripted Ollama server, then the report."""
    judged_package = shutil.copytree(package, tmp_path / "package")
    fake_ollama.responder = responder
    run = "chen__glm-5.1_cloud__ds2__run1"
    done = CliRunner().invoke(
        main,
        ["judge", "--model", "test-model", "--host", fake_ollama.url, "--package",
         str(judged_package), "--runs", run],
    )  # fmt: skip
    return done, build_site(judged_package, tmp_path / "site")


def test_judge_runs_show_as_the_leaderboard_and_on_the_record_pages(
    package: Path, site, fake_ollama, tmp_path
) -> None:
    """Without judge runs there is no leaderboard; after ``dmbench judge`` (the scripted Ollama
    server on 127.0.0.1 as the judge) the index has it and the judged output its reasons."""
    assert "Judge leaderboard" not in (site.out_dir / "index.html").read_text("utf-8")
    scores = judge_reply(8, 4, "names every booking class")
    asked = []  # the first order is scored, the other one fails: its raw reply is shown

    def respond(body):
        asked.append(body)
        return scores(body) if len(asked) == 1 else Reply("I refuse <b>to</b> score")

    done, judged = _judged_site(package, fake_ollama, respond, tmp_path)
    assert done.exit_code == 0, done.output
    assert judged.ok, judged.check.problems
    index = (judged.out_dir / "index.html").read_text("utf-8")
    assert '<a href="#judge">Judge leaderboard</a>' in index and "Overall [95% CI]" in index
    page = (judged.out_dir / "ds2-HBMS.html").read_text("utf-8")
    assert page.count("Judge test-model") == 2  # both orders
    assert "names every booking class" in page
    assert "The judge's last reply:</p><pre>I refuse &lt;b&gt;to&lt;/b&gt; score</pre>" in page


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_report_command_rebuilds_the_site_byte_for_byte(site, package: Path, tmp_path) -> None:
    """``dmbench report`` into a new folder writes the fixture's site again, every diagram from
    the render cache."""
    result = CliRunner().invoke(
        main, ["report", "--out", str(tmp_path / "again"), "--package", str(package)]
    )
    assert result.exit_code == 0, result.output
    assert f"index + {len(RECORDS)} record pages" in result.output
    assert f"(0 drawn now, {site.diagrams} cached;" in result.output
    assert "no broken link or image" in result.output
    assert _files(tmp_path / "again") == _files(site.out_dir)


def test_a_warm_rebuild_keeps_the_site_when_nothing_changed(site, package: Path, tmp_path) -> None:
    """The fixture's site, moved elsewhere (its marker names what it was built from, not where)."""
    first = shutil.copytree(site.out_dir, tmp_path / "site")
    index = first / "index.html"
    stamp = index.stat().st_mtime_ns
    kept = build_site(package, tmp_path / "site")
    assert (kept.diagrams, kept.record_pages, kept.ok) == (site.diagrams, site.record_pages, True)
    assert index.stat().st_mtime_ns == stamp  # not rewritten
    changed = cut_package(shutil.copytree(package, tmp_path / "changed"), RECORDS[1:])
    rebuilt = build_site(changed, tmp_path / "site")
    assert rebuilt.record_pages == len(RECORDS) - 1
    assert not (tmp_path / "site" / "ds1-AirTravel.html").exists()


def _runs(package: Path) -> dict[str, bytes]:
    return _files(package / "runs")


@pytest.mark.parametrize("target", ["runs", ".", "data", "runs/new", ".."])
def test_report_refuses_to_replace_the_package_or_its_folders(
    package: Path, tmp_path: Path, target: str
) -> None:
    copy = shutil.copytree(package, tmp_path / "pkg" / "package")
    before = _runs(copy)
    result = CliRunner().invoke(
        main, ["report", "--out", str(copy / target), "--package", str(copy)]
    )
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and result.output.startswith("Error: --out ")
    assert "Traceback" not in result.output
    assert _runs(copy) == before and (copy / "datapackage.json").is_file()


def test_report_refuses_a_folder_it_did_not_write(package: Path, tmp_path: Path) -> None:
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep me", "utf-8")
    result = CliRunner().invoke(main, ["report", "--out", str(foreign), "--package", str(package)])
    assert result.exit_code == 1 and "did not write" in result.output
    assert (foreign / "thesis.tex").read_text("utf-8") == "keep me"
    render = CliRunner().invoke(main, ["render", "--out", str(foreign), "--package", str(package)])
    assert render.exit_code == 1 and "did not write" in render.output
    assert sorted(p.name for p in foreign.iterdir()) == ["thesis.tex"]


def test_a_swap_killed_between_its_renames_is_finished_by_the_next_build(
    site, package: Path, tmp_path: Path
) -> None:
    """Killed after moving the old site aside: no report/ for a moment; the next build puts the
    old one back before it starts (and removes a killed build's staging folder)."""
    out = tmp_path / "report"
    shutil.copytree(site.out_dir, out)
    staging = staging_for(out)
    killed = in_child_killed_after(1, lambda: swap_in(staging, out, "killed\n"))
    assert killed == -signal.SIGKILL and not out.exists()
    finish_interrupted(out)
    assert (out / "index.html").is_file() and (out / MARKER).read_text("utf-8") != "killed\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


def test_render_out_writes_only_drawings(package: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["render", "--out", str(tmp_path / "svg"), "--package", str(package)]
    )
    assert result.exit_code == 0, result.output
    assert "drawn repaired" in result.output
    svgs = list((tmp_path / "svg").glob("*.svg"))
    assert svgs and all("contentStyleType" in p.read_text("utf-8") for p in svgs)
    again = CliRunner().invoke(
        main, ["render", "--out", str(tmp_path / "svg"), "--package", str(package)]
    )
    assert again.exit_code == 0, again.output


def test_chromium_shows_a_repaired_output_and_sorts_and_filters_the_records(
    site, browser
) -> None:
    load = browser.load((site.out_dir / "ds1-AirTravel.html").resolve().as_uri())
    assert load.console == [] and load.broken_images == []
    badges = browser.evaluate(
        "Array.from(document.querySelectorAll('figure.repaired')).filter("
        "f => f.querySelector('img').naturalWidth > 0 && f.querySelector('.badge')).length"
    )
    assert badges >= 1
    order = browser.evaluate(
        "(() => { const s = document.querySelector('#order select'); s.value = 'class';"
        " s.dispatchEvent(new Event('change'));"
        " const grid = document.querySelector('.runs');"
        " return Array.from(grid.children).map(a => +a.dataset.class); })()"
    )
    assert order == sorted(order, reverse=True) and len(order) == RUNS

    load = browser.load((site.out_dir / "index.html").resolve().as_uri())
    assert load.console == []
    column = 3  # the first cell's class score
    values = browser.evaluate(
        f"(() => {{ const t = document.querySelector('table.records');"
        f" t.tHead.rows[0].cells[{column}].querySelector('button').click();"
        f" return Array.from(t.tBodies[0].rows).map(r => r.cells[{column}].textContent); }})()"
    )
    numbers = [float(v) for v in values]
    assert numbers == sorted(numbers) and len(numbers) == 2  # DS-1 has two records here
    shown = browser.evaluate(
        "(() => { const f = document.querySelector('input.filter'); f.value = 'bank';"
        " f.dispatchEvent(new Event('input'));"
        " const t = document.querySelector('table.records');"
        " return Array.from(t.tBodies[0].rows).filter(r => !r.hidden)"
        ".map(r => r.cells[0].textContent.trim()); })()"
    )
    assert shown == ["ds1-BankAccount"]


def test_a_failed_judgement_shows_the_judges_raw_reply(package: Path, fake_ollama, tmp_path):
    """A judge that answers prose instead of the JSON asked for: the page says the judgement
    failed and shows the reply as it came, escaped."""
    responder = lambda body: Reply("I think <b>A</b> is better.")  # noqa: E731
    done, judged = _judged_site(package, fake_ollama, responder, tmp_path)
    assert done.exit_code in (0, 1), done.output
    assert judged.ok, judged.check.problems
    page = (judged.out_dir / "ds2-HBMS.html").read_text("utf-8")
    assert "The judge's last reply:</p><pre>I think &lt;b&gt;A&lt;/b&gt; is better.</pre>" in page
