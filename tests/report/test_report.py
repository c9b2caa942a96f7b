"""The report site on a small real package: pages, diagrams, accessibility, links, a real browser.

The package is the built one cut down to four records (one per kind of reference: drawn by
PlantUML, rejected by PlantUML, and two DS-2 ones, OTS the widest), so PlantUML draws a few dozen
real diagrams
instead of the ~750 of the whole package; the whole package is checked by the main job, whose
report stage fails on a missing page, diagram or link.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
from collections import Counter
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
from dmbench.metrics import PUBLISHED_METRIC, STANDARD_METRIC, explain
from dmbench.report import build_site, check_site
from dmbench.report.outdir import MARKER, finish_interrupted, staging_for, swap_in
from dmbench.runs.scores import read_scores, write_scores
from dmbench.runs.store import list_runs, read_outputs
from dmbench.sources.records import read_records, write_records
from dmbench.tables.nothing_to_match import count_perfect_on_nothing
from dmbench.tables.validity import COUNTS, validity_table

RECORDS = ("ds1-AirTravel", "ds1-BankAccount", "ds2-HBMS", "ds2-OTS")
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


def _lines(text: str) -> tuple[str, ...]:
    return tuple(sorted(text.splitlines()))


def test_every_reference_and_canonical_output_is_drawn_on_its_page(site, package: Path) -> None:
    """The reference and all 15 canonical outputs (5 cells x 3 runs) of each record are shown
    as SVG images of the site, the same lines in another order (rule_based's runs) once; an
    empty output, or one nothing draws, says so instead."""
    outputs = {
        (run.info.run_id, o.record_id): o.generated
        for run in list_runs(package)
        if run.info.canonical
        for o in run.outputs()
    }
    for record in read_records(package / "data" / "records.csv"):
        page = Page(site.out_dir / f"{record.id}.html")
        images = [i["src"] for i in page.all("img")]
        undrawn = [d["data-sha256"] for d in page.all("div") if "failed" in d.get("class", "")]
        expected = [record.reference] + [
            text for (_, rid), text in outputs.items() if rid == record.id and text.strip()
        ]
        assert f"diagrams/{sha256_text(record.reference)}.svg" == images[0]
        by_file = {f"diagrams/{sha256_text(t)}.svg": t for t in expected[1:]}
        shown = set(images[1:]) | {f"diagrams/{sha}.svg" for sha in undrawn}
        assert shown <= set(by_file)
        assert {_lines(by_file[f]) for f in shown} == {_lines(t) for t in expected[1:]}
        assert len([t for (_, rid), t in outputs.items() if rid == record.id]) == CELLS * RUNS
        for src in images:
            assert (site.out_dir / src).stat().st_size > 0


def test_a_diagram_plantuml_rejects_is_drawn_repaired_with_a_badge(site) -> None:
    """ds1-AirTravel's reference writes ``"0..1"o--"0..*"``, which PlantUML 1.2022.6 called a
    syntax error and 1.2025.9 draws as written: no badge on it. An output with an empty
    multiplicity ``""`` is drawn after that repair, PlantUML's message beside the drawing."""
    page = (site.out_dir / "ds1-AirTravel.html").read_text("utf-8")
    reference = Page(site.out_dir / "ds1-AirTravel.html").all("img")[0]
    assert "class diagram with" in reference["alt"]
    svg = (site.out_dir / reference["src"]).read_text("utf-8")
    assert "contentStyleType" in svg and ">Airline<" in svg
    reference_figure = page[page.index(reference["src"]) :].split("</figure>")[0]
    assert "badge" not in reference_figure
    assert re.search(
        r'<figcaption class="badge" data-verdict="rejected">PlantUML rejects line \d+: Syntax '
        r"Error\?; drawn after the repair: empty multiplicity (&#34;|&quot;|\")\1 dropped",
        page,
    )
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
    """rule_based's three identical runs are one article marked x3, with one scores table."""
    html = (site.out_dir / "ds1-AirTravel.html").read_text("utf-8")
    articles = Page(site.out_dir / "ds1-AirTravel.html").all("article")
    assert sum(int(a["data-count"]) for a in articles) == CELLS * RUNS
    assert html.count("Scores of run") == len(articles) < CELLS * RUNS
    for metric in (PUBLISHED_METRIC, STANDARD_METRIC):
        assert html.count(f'<th scope="row">{metric} <span') == len(articles)
    assert "rule_based, runs 1, 2 and 3 <span class=\"times\"" in html
    assert "gave the same lines, in a different order, and the same scores" in html
    assert "11 class pairs, 1 reference and 0 output classes unmatched" in html  # rule_based
    assert '<span data-unmatched="reference" data-n="1">Ticket</span>' in html


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
    assert check.pages == 1 + len(RECORDS) and check.images > len(RECORDS) * CELLS
    for path in site.out_dir.glob("*.html"):
        page = Page(path)
        scripts = [{"src": "tables.js"}, {"src": "diagrams.js"}]
        assert page.all("script") == scripts and page.all("iframe") == []
        assert [link["href"] for link in page.all("link")] == ["style.css"]
    assert "url(" not in (site.out_dir / "style.css").read_text("utf-8")
    for name in ("tables.js", "diagrams.js"):
        script = (site.out_dir / name).read_text("utf-8")
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
    """``dmbench judge`` of one run against the scripted Ollama server, then the report; of
    DS-2 only HBMS is kept, so that it is the one record the judge sees."""
    judged_package = cut_package(
        shutil.copytree(package, tmp_path / "package"), tuple(r for r in RECORDS if r != "ds2-OTS")
    )
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
    assert page.count("<summary>Judge test-model") == 2  # both orders
    assert "names every booking class" in page
    verdict = page[page.index('<p class="judge-verdict"') :].split("</p>")[0]
    assert "S_final" in verdict and "the mean of 1 order (" in verdict
    assert "1 order failed" in verdict
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
        " const grid = document.querySelectorAll('.runs')[1];"
        " return Array.from(grid.children).map(a => +a.dataset.class); })()"
    )
    assert order == sorted(order, reverse=True) and len(order) == RUNS  # chen's three runs

    load = browser.load((site.out_dir / "index.html").resolve().as_uri())
    assert load.console == []
    column = 2  # the first cell's class score, under the cell's name in a second head row
    values = browser.evaluate(
        f"(() => {{ const t = document.querySelector('table.records');"
        f" t.tHead.querySelector('th[data-column=\"{column}\"] button').click();"
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


GOLDEN_SCORES = Path(__file__).resolve().parents[3] / "shared" / "golden" / "scores.jsonl"
EXPLAINED_OUTPUTS = 20


class Explained(HTMLParser):
    """What a record page lists of metrik-4's matching, per output (article) shown."""

    def __init__(self, path: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.outputs: list[dict] = []
        self._kind: str | None = None
        self._cells: list[str] | None = None
        self._unmatched: str | None = None
        self.feed(path.read_text("utf-8"))

    def handle_starttag(self, tag: str, attrs) -> None:
        attrs = dict(attrs)
        if tag == "article":
            self.outputs.append({"sha256": attrs["data-generated-sha256"], "kinds": {}})
        elif tag == "table" and "data-kind" in attrs:
            self._kind = attrs["data-kind"]
            self.outputs[-1]["kinds"][self._kind] = {"pairs": [], "unmatched": {}}
        elif tag == "tr" and self._kind and "data-similarity" in attrs:
            self._cells = []
            pair = {key[5:]: value for key, value in attrs.items() if key.startswith("data-")}
            pair["attribute-pairs"] = []
            self.outputs[-1]["kinds"][self._kind]["pairs"].append(pair)
        elif tag == "span" and "data-similarity" in attrs and self._kind == "class":
            pairs = self.outputs[-1]["kinds"]["class"]["pairs"]
            pairs[-1]["attribute-pairs"].append(float(attrs["data-similarity"]))
        elif tag in ("td", "th") and self._cells is not None:
            self._cells.append("")
        elif tag == "span" and "data-unmatched" in attrs and self._kind:
            self._unmatched = attrs["data-unmatched"]
            unmatched = self.outputs[-1]["kinds"][self._kind]["unmatched"]
            unmatched[self._unmatched] = {"n": int(attrs["data-n"]), "text": ""}

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr" and self._cells is not None:
            self.outputs[-1]["kinds"][self._kind]["pairs"][-1]["cells"] = self._cells
            self._cells = None
        elif tag == "span":
            self._unmatched = None
        elif tag == "details":
            self._kind = None

    def handle_data(self, data: str) -> None:
        if self._cells:
            self._cells[-1] += data
        if self._unmatched:
            self.outputs[-1]["kinds"][self._kind]["unmatched"][self._unmatched]["text"] += data


def _set_score(similarities: list[float], n_reference: int, n_generated: int) -> float:
    """metrik-4's set similarity, summed in the order the page lists the pairs."""
    if n_reference == n_generated == 0:
        return 1.0
    if not n_reference or not n_generated:
        return 0.0
    total = 0.0
    for value in similarities:
        total += value
    return 2.0 * total / (n_reference + n_generated)


def test_the_pages_list_the_pairs_metrik4_itself_matched(site, package: Path) -> None:
    """For 20 outputs, the class, attribute and edge pairs a page lists, with the unmatched
    elements, give back metrik-4's own intermediates: every set score (2 x the pairs' sum over
    both sizes) equals propSim, raSim, rdSim and rgSim of ``../shared/golden/scores.jsonl``
    (upstream's metric run on the same two texts) and each class pair's similarity is 0.571 x
    name + 0.429 x its attributes' set score; the class pairs are those ``explain`` returns."""
    if not GOLDEN_SCORES.is_file():
        pytest.skip("../shared/golden is not beside the checkout")
    golden = {}
    for line in GOLDEN_SCORES.read_text("utf-8").splitlines():
        row = json.loads(line)
        golden[row["ref_sha256"], row["gen_sha256"]] = row
    references = {r.id: r.reference for r in read_records(package / "data" / "records.csv")}
    texts = {
        sha256_text(o.generated): o.generated
        for run in list_runs(package)
        for o in run.outputs()
    }
    checked: dict[tuple[str, str], None] = {}
    for record_id in RECORDS:
        reference = references[record_id]
        for output in Explained(site.out_dir / f"{record_id}.html").outputs:
            key = (sha256_text(reference), output["sha256"])
            if "class" not in output["kinds"] or key in checked:
                continue
            checked[key] = None
            row = golden[key]
            own = explain(reference, texts[output["sha256"]], PUBLISHED_METRIC)
            classes = output["kinds"]["class"]
            pairs = classes["pairs"]
            listed = [(p["cells"][0], p["cells"][1], float(p["similarity"])) for p in pairs]
            assert listed == [(m.reference, m.generated, m.similarity) for m in own.class_matching]
            for pair in classes["pairs"]:
                sizes = [int(n) for n in pair["attributes"].split()]
                attributes = _set_score(pair["attribute-pairs"], *sizes)
                assert attributes == float(pair["attribute-similarity"])
                name = float(pair["name-similarity"])
                assert 0.571 * name + 0.429 * attributes == float(pair["similarity"])
            for kind, intermediate, counted in (
                ("class", "propSim", "classes"),
                ("association", "raSim", "associations"),
                ("dependency", "rdSim", "dependencies"),
                ("generalization", "rgSim", "generalizations"),
            ):
                listed = output["kinds"].get(kind, {"pairs": [], "unmatched": {}})
                paired = len(listed["pairs"])
                sizes = [
                    paired + listed["unmatched"].get(side, {"n": 0})["n"]
                    for side in ("reference", "generated")
                ]
                assert sizes == [row["counts_ref"][counted], row["counts_gen"][counted]], kind
                similarities = [float(p["similarity"]) for p in listed["pairs"]]
                assert _set_score(similarities, *sizes) == pytest.approx(
                    row["intermediates"][intermediate], abs=1e-12
                ), (record_id, kind)
            if len(checked) == EXPLAINED_OUTPUTS:
                return
    pytest.fail(f"only {len(checked)} explained outputs on the pages")


class Counted(HTMLParser):
    """The index's ``data-count`` numbers, or a record page's drawings and undrawn boxes, each
    with the number of outputs it stands for."""

    def __init__(self, path: Path) -> None:
        super().__init__(convert_charrefs=True)
        self.index: dict[str, str] = {}
        self.shown: list[tuple[str, str, int, bool]] = []  # (where, verdict, outputs, drawn)
        self._count: str | None = None
        self._in_reference = False
        self.feed(path.read_text("utf-8"))

    def handle_starttag(self, tag: str, attrs) -> None:
        attrs = dict(attrs)
        if tag == "span" and "data-count" in attrs:
            self._count = attrs["data-count"]
        elif tag == "section" and attrs.get("class") == "pinned":
            self._in_reference = True
        elif tag == "article":
            self._in_reference = False
        if "data-outputs" in attrs:
            where = "reference" if self._in_reference else "output"
            verdict = attrs.get("data-verdict", "empty")
            self.shown.append((where, verdict, int(attrs["data-outputs"]), tag == "figure"))

    def handle_data(self, data: str) -> None:
        if self._count:
            self.index[self._count] = data
            self._count = None


def test_the_index_the_pages_and_validity_count_the_same_outputs(site, package: Path) -> None:
    """``dmbench validity``'s totals (every non-empty output of every canonical run, and the
    references) are the index's numbers and the sum over the pages of what each drawing, badge
    and undrawn box stands for (an output shown once for three runs counts three)."""
    table = validity_table(package)
    llm, others = table.totals(llm=True), table.totals(llm=False)
    outputs = {name: llm[name] + others[name] for name in COUNTS}
    references = {name: sum(c[name] for c in table.references.values()) for name in COUNTS}
    index = {name: int(value) for name, value in Counted(site.out_dir / "index.html").index.items()}
    assert index["outputs"] == outputs["outputs"]
    assert index["references"] == references["outputs"] == len(RECORDS)
    for verdict in ("rejected", "repaired", "not_drawn"):
        assert index[f"outputs_{verdict}"] == outputs[f"plantuml_{verdict}"], verdict
        assert index[f"references_{verdict}"] == references[f"plantuml_{verdict}"], verdict
    shown = [s for r in RECORDS for s in Counted(site.out_dir / f"{r}.html").shown]
    for where, totals in (("output", outputs), ("reference", references)):
        mine = [(verdict, n) for w, verdict, n, _ in shown if w == where]
        assert sum(n for verdict, n in mine if verdict != "empty") == totals["outputs"], where
        assert sum(n for verdict, n in mine if verdict == "rejected") == totals["plantuml_rejected"]
    undrawn = [
        n for where, verdict, n, drawn in shown
        if where == "output" and verdict != "empty" and not drawn
    ]  # fmt: skip
    assert sum(undrawn) == outputs["plantuml_not_drawn"]
    assert sum(n for _, verdict, n, _ in shown if verdict == "empty") == index["empty_outputs"]


def test_the_pages_mark_every_perfect_score_on_nothing_the_errata_count(site, package) -> None:
    """Each line saying a metric gave 1.000 with nothing to match, times the outputs it stands
    for, adds up to the errata's section 7 count per metric and element (and some exist)."""
    marked: Counter[tuple[str, str]] = Counter()
    for record in RECORDS:
        page = Page(site.out_dir / f"{record}.html")
        count = 1
        for tag, attrs in page.tags:
            if tag == "article":
                count = int(attrs["data-count"])
            elif "note vacuous" in attrs.get("class", ""):
                marked[attrs["data-metric"], attrs["data-element"]] += count
    assert marked and marked == count_perfect_on_nothing(package)
    index = (site.out_dir / "index.html").read_text("utf-8")
    section = index[index.index('id="errata-7"') :]
    cell = r"<td[^>]*>([^<]*)</td>\s*"
    rows = re.findall(rf"<tr>\s*{cell}{cell}<td[^>]*>(\d+)</td>", section)
    assert {(metric, element): int(n) for metric, element, n in rows} == marked


def test_identical_runs_of_rule_based_are_shown_once_with_their_count(site) -> None:
    """rule_based is deterministic: on every page its three runs are one output marked x3
    (their lines come in another order from run to run, which the page says)."""
    for record in RECORDS:
        page = (site.out_dir / f"{record}.html").read_text("utf-8")
        start = page.index('<h2 id="rule-based--no-llm">')
        section = page[start : page.index("</section>", start)]
        assert section.count('<article class="run"') == 1, record
        assert 'data-count="3"' in section
        assert '<span class="times" title="3 runs gave this same output">×3</span>' in section


VIEWPORTS = [(1280, 800), (1920, 1080)]
OVERFLOWING = """(() => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  const width = document.documentElement.clientWidth, found = [];
  for (const element of document.querySelectorAll('body *')) {
    const box = element.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1) continue;
    let parent = element.parentElement, contained = false;
    while (parent && parent !== document.body) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(parent).overflowX)) {
        contained = parent.getBoundingClientRect().right <= width + 1;
        break;
      }
      parent = parent.parentElement;
    }
    if (!contained) found.push(element.tagName + '.' + element.className + ' ' + box.right);
  }
  return [document.documentElement.scrollWidth - width, found.slice(0, 10)];
})()"""
"""With every ``<details>`` open: how far the page scrolls sideways, and elements reaching past
the viewport that no scroll container of their own holds."""


def _largest_font(svg: Path) -> float:
    return max(float(size) for size in re.findall(r'font-size="([0-9.]+)"', svg.read_text("utf-8")))


def _box(browser, selector: str) -> dict:
    return browser.evaluate(
        f"(() => {{ const b = document.querySelector({json.dumps(selector)})"
        ".getBoundingClientRect(); return {left: b.left, top: b.top, width: b.width,"
        " height: b.height}; })()"
    )


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_chromium_draws_the_widest_reference_readable_zoomable_and_pannable(
    site, browser, viewport
) -> None:
    """On OTS's page (a DS-2 reference 934 px wide) "fit width" draws the reference's largest
    class name at least 11 px high, the mouse wheel zooms a diagram and a drag pans it, the
    stacked layout gives the reference the whole width, and nothing runs off the page."""
    browser.set_viewport(*viewport)
    try:
        load = browser.load((site.out_dir / "ds2-OTS.html").resolve().as_uri())
        assert load.console == [] and load.broken_images == []
        image = ".pinned .viewport img"
        browser.evaluate("document.getElementById('compare').scrollIntoView()")
        natural = browser.evaluate(f"document.querySelector('{image}').naturalWidth")
        fitted = _box(browser, image)
        source = browser.evaluate(f"document.querySelector('{image}').getAttribute('src')")
        assert _largest_font(site.out_dir / source) * fitted["width"] / natural >= 11
        outputs = browser.evaluate(
            "Array.from(document.querySelectorAll('.outputs .viewport img'))"
            ".map(i => i.getBoundingClientRect().width / i.naturalWidth)"
        )
        assert outputs and all(s == pytest.approx(fitted["width"] / natural) for s in outputs)

        box = _box(browser, ".pinned .viewport")
        centre = (box["left"] + box["width"] / 2, box["top"] + min(box["height"], 300) / 2)
        browser.wheel(*centre, -300)
        zoomed = _box(browser, image)
        assert zoomed["width"] > 1.3 * fitted["width"]
        browser.drag(centre, (centre[0] - 120, centre[1] - 50))
        panned = _box(browser, image)
        assert panned["left"] == pytest.approx(zoomed["left"] - 120, abs=2)
        assert panned["top"] == pytest.approx(zoomed["top"] - 50, abs=2)

        browser.evaluate("document.querySelector('[data-zoom=fit]').click()")
        assert _box(browser, image)["width"] == pytest.approx(fitted["width"], abs=0.5)
        side = _box(browser, ".pinned")["width"]
        browser.evaluate("document.querySelector('[data-layout=stacked]').click()")
        assert _box(browser, ".pinned")["width"] > 1.8 * side
        assert browser.evaluate(OVERFLOWING) == [0, []]
    finally:
        browser.set_viewport(None)


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v[0]}x{v[1]}")
def test_chromium_fits_every_table_and_keeps_the_record_column_in_view(
    site, browser, viewport
) -> None:
    """No table of the index or of a record page (every detail open) runs off the page; the
    Records table scrolls sideways in its own box, keeping its Record column (and, when it
    scrolls down, its head) in view."""
    browser.set_viewport(*viewport)
    try:
        for page in ("ds1-AirTravel.html", "ds2-HBMS.html", "index.html"):
            load = browser.load((site.out_dir / page).resolve().as_uri())
            assert load.console == [], page
            assert browser.evaluate(OVERFLOWING) == [0, []], page
        wrap = "document.querySelector('table.records').parentNode"
        browser.evaluate(f"{wrap}.scrollIntoView()")
        width = browser.evaluate(f"{wrap}.scrollWidth - {wrap}.clientWidth")
        browser.evaluate(f"{wrap}.scrollLeft = 400; {wrap}.scrollTop = 200")
        scrolled_down = browser.evaluate(f"{wrap}.scrollTop")
        record = _box(browser, "table.records tbody th")
        head = _box(browser, "table.records thead th")
        frame = _box(browser, ".table-wrap:has(> table.records)")
        if viewport[0] < 1600:  # wider, the table fits its box and does not scroll sideways
            assert width > 0
            assert record["left"] == pytest.approx(frame["left"], abs=1.5)
        else:
            assert width == 0
        if scrolled_down:  # the whole package's table scrolls down in its box, this one fits
            assert head["top"] == pytest.approx(frame["top"], abs=1.5)
        visible = browser.evaluate(
            "(() => { const rows = Array.from(document.querySelectorAll('table.records tbody th'));"
            " const th = rows.find(r => r.getBoundingClientRect().top >"
            f" {head['top'] + head['height'] + 40});"
            " const b = th.getBoundingClientRect();"
            " return th.contains(document.elementFromPoint(b.left + 5, b.top + b.height / 2)); })()"
        )
        assert visible  # the Record cell is drawn over the scores scrolled beneath it
    finally:
        browser.set_viewport(None)
