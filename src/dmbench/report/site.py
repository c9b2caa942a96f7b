"""The report as a static site: an index, one page per record, the diagrams and the plots.

Everything the pages use is a file of the site (one stylesheet, SVG images), so the folder works
from ``file://`` with no network and can be carried in a deposit. The site is built in a staging
folder beside the target and swapped in at the end: an interrupted build leaves the previous
site as it was. The tables and the errata are the Markdown that ``dmbench tables`` and
``dmbench errata`` write, rendered to HTML, so the report always says what those files say.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from dmbench._version import __version__
from dmbench.core.hashing import add_files, sha256_text
from dmbench.errors import ParseError
from dmbench.metrics import METRICS, PUBLISHED_METRIC
from dmbench.package import DATASETS
from dmbench.package.descriptor import DESCRIPTOR
from dmbench.package.swap import PACKAGE_FOLDERS
from dmbench.plantuml import parse
from dmbench.render import (
    LAYOUT,
    PLANTUML_VERSION,
    Rendering,
    cache_dir_for,
    render_diagrams,
)
from dmbench.report import outdir
from dmbench.report.data import RecordView, perfect_on_nothing, record_views
from dmbench.report.link_check import SiteCheck, check_site
from dmbench.report.plots import DATASET_NAMES, all_plots
from dmbench.runs.opened import PackageSource, open_package
from dmbench.tables.errata import errata_markdown
from dmbench.tables.leaderboard_files import judge_leaderboard, leaderboard_markdown
from dmbench.tables.render import (
    TableSet,
    build_tables,
    comparisons_markdown,
    results_markdown,
    table1_markdown,
)
from dmbench.tables.results import PAPER_TABLES

_CODE_SUFFIXES = {".py", ".html", ".css", ".js", ".lark", ".json"}
_ASSETS = ("style.css", "tables.js", "diagrams.js")
REPORT_FILES = ("*.html", *_ASSETS, "diagrams", "plots")
"""What a report holds: a folder of only these (a report built before the marker) is one."""


@dataclass(frozen=True, slots=True)
class SiteResult:
    """What the report build wrote and PlantUML's verdicts, for the command's summary."""
    out_dir: Path
    record_pages: int
    diagrams: int
    rejected: int
    """Diagrams PlantUML rejects as written (most drawn after a repair)."""
    repaired: int
    failed: int
    """Diagrams nothing draws; their pages say why."""
    empty_outputs: int
    plots: int
    drawn: int
    """Diagrams PlantUML drew in this build (the others came from the cache)."""
    cached: int
    check: SiteCheck
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.check.problems

    def summary(self) -> str:
        verdict = "no broken link or image" if self.ok else f"{len(self.check.problems)} problems"
        return (
            f"{self.out_dir}: index + {self.record_pages} record pages, {self.diagrams} distinct "
            f"diagrams ({self.drawn} drawn now, {self.cached} cached; {self.rejected} rejected by "
            f"PlantUML as written, {self.repaired} of them drawn repaired, {self.failed} not drawn), "
            f"{self.plots} plots; {verdict}"
        )


@dataclass(frozen=True, slots=True)
class DiagramCounts:
    """PlantUML's verdicts counted as ``dmbench validity`` counts them: every non-empty output
    of every canonical run (a cell's three runs are three outputs, identical or not) and every
    reference; beside them, the distinct diagrams behind those (each drawn once)."""

    references: int
    references_rejected: int
    references_repaired: int
    references_not_drawn: int
    outputs: int
    outputs_rejected: int
    outputs_repaired: int
    outputs_not_drawn: int
    empty_outputs: int
    distinct: int
    distinct_rejected: int
    distinct_repaired: int
    distinct_not_drawn: int


def diagram_counts(views: list[RecordView], renderings: dict[str, Rendering]) -> DiagramCounts:
    """PlantUML's verdicts tallied over the references and the outputs with a diagram, each
    distinct source once, as the report's build page states them."""
    references = [renderings[sha256_text(v.record.reference)] for v in views]
    everything = [o for v in views for _, runs in v.outputs for o in runs]
    outputs = [renderings[o.sha256] for o in everything if o.has_diagram]
    distinct = {r.sha256: r for r in (*references, *outputs)}.values()

    def tally(verdicts) -> tuple[int, int, int, int]:
        verdicts = list(verdicts)
        rejected = [r for r in verdicts if r.verdict == "rejected"]
        return (
            len(verdicts),
            len(rejected),
            sum(r.ok for r in rejected),
            sum(not r.ok for r in verdicts),
        )

    return DiagramCounts(
        *tally(references),
        *tally(outputs),
        sum(not o.has_diagram for o in everything),
        *tally(distinct),
    )


@dataclass(frozen=True, slots=True)
class BuildInfo:
    """The versions and counts the report's build page states, so a reader knows what drew it."""
    dmbench_version: str
    plantuml_version: str
    layout: str
    diagrams: int
    rejected: int
    repaired: int
    failed: int
    empty_outputs: int
    counts: DiagramCounts


def markdown_html(text: str, shift: int = 0, anchors: str | None = None) -> Markup:
    """Markdown (CommonMark with GFM tables) as HTML; headings moved ``shift`` levels down so a
    document's ``#`` title sits under the page's own headings. Raw HTML is not passed through.
    With ``anchors``, a numbered heading ("7. ...") gets the id ``<anchors>-7``."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(text)
    for position, token in enumerate(tokens):
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + shift, 6)}"
        if anchors and token.type == "heading_open":
            number = re.match(r"(\d+)\. ", tokens[position + 1].content)
            if number:
                token.attrSet("id", f"{anchors}-{number.group(1)}")
        elif token.type == "th_open":
            token.attrSet("scope", "col")
    html = parser.renderer.render(tokens, parser.options, {})
    html = html.replace("<table>", '<div class="table-wrap"><table>')
    return Markup(html.replace("</table>", "</table></div>"))


def describe(source: str) -> str:
    """Alt text for a diagram: what it holds, as PlantUML means it (the standard reading)."""
    try:
        diagram = parse(source, "standard")
    except ParseError:
        return "class diagram (not readable as dmbench's PlantUML subset)"
    names = [c.name for c in diagram.classes] + [e.name for e in diagram.enums]
    listed = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    return (
        f"class diagram with {len(diagram.classes)} classes, {len(diagram.enums)} enumerations "
        f"and {len(diagram.relationships)} relationships" + (f": {listed}" if names else "")
    )


def _environment() -> jinja2.Environment:
    templates = resources.files("dmbench.report") / "templates"
    return jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda name: (templates / name).read_text("utf-8")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@dataclass(frozen=True, slots=True)
class OverviewCell:
    """One mean score of the index's records table, shaded like a heatmap, linking to the runs."""

    text: str
    anchor: str
    shade: str | None


def _overview(view: RecordView) -> list[OverviewCell]:
    """Per cell, the mean metrik-4 class, attribute and association scores over its runs."""
    values = []
    for cell, outputs in view.outputs:
        rows = [o.scores[PUBLISHED_METRIC] for o in outputs if PUBLISHED_METRIC in o.scores]
        for element in ("class_score", "attribute_score", "association_score"):
            scores = [getattr(row, element) for row in rows]
            if not scores:
                values.append(OverviewCell("–", f"{view.page}#{cell.slug}", None))
                continue
            mean = statistics.mean(scores)
            shade = f"hsl(210, 70%, {97 - 35 * mean:.0f}%)"
            values.append(OverviewCell(f"{mean:.3f}", f"{view.page}#{cell.slug}", shade))
    return values


def inputs_fingerprint(package_dir: Path) -> str:
    """The sha256 of everything a report is built from: the package's files and dmbench's code.

    A warm rebuild whose fingerprint matches the one the site was built from does nothing.
    """
    digest = hashlib.sha256()
    code = Path(__file__).resolve().parents[1]
    roots = [(code, p) for p in sorted(code.rglob("*")) if p.suffix in _CODE_SUFFIXES]
    package_dir = Path(package_dir)
    descriptor = package_dir / DESCRIPTOR
    roots += [(package_dir, descriptor)] if descriptor.is_file() else []
    for name in PACKAGE_FOLDERS:
        roots += [(package_dir, p) for p in sorted((package_dir / name).rglob("*"))]
    for root, path in roots:
        if path.is_file() and "__pycache__" not in path.parts:
            add_files(digest, root, [path])
    return digest.hexdigest()


def build_site(
    package: PackageSource,
    out_dir: Path,
    cache_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    tables: TableSet | None = None,
    errata: str | None = None,
) -> SiteResult:
    """Build the report of ``package_dir`` into ``out_dir`` (replaced whole) and check it.

    ``cache_dir`` holds the rendered SVG (default: the package's render cache). When the
    package holds judge runs, the index shows the judge leaderboard and each record page the
    judges' scores and reasons. ``out_dir`` must be new, empty or an earlier report (see
    ``outdir``); a report built from the same inputs is kept as it is. ``tables`` (the published
    metrik-4 tables) and ``errata`` (``errata_markdown``'s text) are used when already made.
    """
    started = time.perf_counter()
    opened = open_package(package)
    package_dir, out_dir = opened.path, Path(out_dir)
    say = progress or (lambda message: None)
    outdir.refuse_foreign(out_dir, package_dir, "report", own_files=REPORT_FILES)
    outdir.finish_interrupted(out_dir)
    fingerprint = inputs_fingerprint(package_dir)
    if (kept := _unchanged(out_dir, fingerprint, started)) is not None:
        say("the report is up to date with the package")
        return kept
    say("reading the package and explaining metrik-4's matches")
    views = record_views(opened)
    outputs = [o for v in views for _, runs in v.outputs for o in runs]
    sources = [v.record.reference for v in views] + [o.generated for o in outputs if o.has_diagram]
    say(f"rendering {len(set(sources))} distinct diagrams")
    batch = render_diagrams(sources, cache_dir or cache_dir_for(package_dir))
    say("drawing the plots")
    plots = all_plots(views)
    tables = tables or build_tables(opened, PUBLISHED_METRIC, "published")
    judged = judge_leaderboard(opened)

    staging = outdir.staging_for(out_dir)
    try:
        (staging / "diagrams").mkdir()
        (staging / "plots").mkdir()
        for rendering in batch.renderings.values():
            if rendering.path is not None:
                shutil.copyfile(rendering.path, staging / "diagrams" / f"{rendering.sha256}.svg")
        for plot in plots:
            (staging / "plots" / plot.name).write_bytes(plot.svg)
        for asset in _ASSETS:
            text = (resources.files("dmbench.report") / "templates" / asset).read_text("utf-8")
            (staging / asset).write_text(text, "utf-8")
        info = BuildInfo(
            dmbench_version=__version__,
            plantuml_version=PLANTUML_VERSION,
            layout=LAYOUT,
            diagrams=len(batch.renderings),
            rejected=batch.rejected,
            repaired=batch.repaired,
            failed=batch.failed,
            empty_outputs=sum(not o.has_diagram for o in outputs),
            counts=diagram_counts(views, batch.renderings),
        )
        environment = _environment()
        scored = [m for m in METRICS if any(m in o.scores for o in outputs)]
        environment.globals.update(
            build=info,
            describe=describe,
            metrics=scored,
            published_metric=PUBLISHED_METRIC,
            perfect_on_nothing=perfect_on_nothing,
        )
        by_dataset = [
            (DATASET_NAMES.get(name, name), [v for v in views if v.record.dataset == name])
            for name in DATASETS
        ]
        references = {v.record.record_id: batch.renderings[sha256_text(v.record.reference)] for v in views}
        index = environment.get_template("index.html").render(
            records=[v.record for v in views],
            dataset_counts=[(n, len(vs)) for n, vs in by_dataset],
            cells=[cell for cell, _ in views[0].outputs] if views else [],
            tables=[markdown_html(table1_markdown(tables.corpus), 2)]
            + [markdown_html(results_markdown(tables, d), 2) for d in PAPER_TABLES]
            + [markdown_html(comparisons_markdown(tables), 2)],
            leaderboard=markdown_html(leaderboard_markdown(judged), 2) if judged["rows"] else None,
            plots=plots,
            by_dataset=by_dataset,
            references=references,
            overview={v.record.record_id: _overview(v) for v in views},
            errata=markdown_html(errata or errata_markdown(opened), 2, anchors="errata"),
        )
        (staging / "index.html").write_text(index, "utf-8")
        page = environment.get_template("record.html")
        for position, view in enumerate(views):
            html = page.render(
                view=view,
                record=view.record,
                dataset_name=DATASET_NAMES.get(view.record.dataset, view.record.dataset),
                reference=batch.renderings[sha256_text(view.record.reference)],
                rendered=batch.renderings,
                previous=views[position - 1] if position > 0 else None,
                next=views[position + 1] if position + 1 < len(views) else None,
            )
            (staging / view.page).write_text(html, "utf-8")
        check = check_site(staging)
        result = SiteResult(
            out_dir=out_dir,
            record_pages=len(views),
            diagrams=len(batch.renderings),
            rejected=batch.rejected,
            repaired=batch.repaired,
            failed=batch.failed,
            empty_outputs=info.empty_outputs,
            plots=len(plots),
            drawn=batch.drawn,
            cached=batch.cached,
            check=check,
            seconds=0.0,
        )
        outdir.swap_in(staging, out_dir, _marker(result, fingerprint))
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return replace(result, seconds=time.perf_counter() - started)


_COUNTS = ("record_pages", "diagrams", "rejected", "repaired", "failed", "empty_outputs", "plots")


def _marker(result: SiteResult, fingerprint: str) -> str:
    """What the site was built from and what it holds; a site with problems is never kept."""
    counts = {name: getattr(result, name) for name in _COUNTS}
    inputs = fingerprint if result.ok else None
    return json.dumps({"inputs": inputs, **counts}, indent=2, sort_keys=True) + "\n"


def _unchanged(out_dir: Path, fingerprint: str, started: float) -> SiteResult | None:
    marker = out_dir / outdir.MARKER
    try:
        built = json.loads(marker.read_text("utf-8"))
        if built.get("inputs") != fingerprint:
            return None
        counts = {name: int(built[name]) for name in _COUNTS}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return SiteResult(
        out_dir=out_dir,
        **counts,
        drawn=0,
        cached=counts["diagrams"],
        check=SiteCheck(0, 0, 0, ()),
        seconds=time.perf_counter() - started,
    )


