"""The report as a static site: an index, one page per record, the diagrams and the plots.

Everything the pages use is a file of the site (one stylesheet, SVG images), so the folder works
from ``file://`` with no network and can be carried in a deposit. The site is built in a staging
folder beside the target and swapped in at the end: an interrupted build leaves the previous
site as it was. The tables and the errata are the Markdown that ``dmbench tables`` and
``dmbench errata`` write, rendered to HTML, so the report always says what those files say.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jinja2
from markdown_it import MarkdownIt
from markupsafe import Markup

from dmbench._version import __version__
from dmbench.core.hashing import sha256_text
from dmbench.errors import ParseError
from dmbench.judge import leaderboard_rows
from dmbench.metrics import METRICS, PUBLISHED_METRIC
from dmbench.package import DATASETS
from dmbench.plantuml import parse
from dmbench.render import LAYOUT, PLANTUML_VERSION, RenderBatch, cache_dir_for, render_diagrams
from dmbench.report.data import RecordView, record_views
from dmbench.report.link_check import SiteCheck, check_site
from dmbench.report.plots import DATASET_NAMES, all_plots
from dmbench.tables.errata import errata_markdown
from dmbench.tables.leaderboard_files import leaderboard_markdown
from dmbench.tables.render import (
    build_tables,
    comparisons_markdown,
    results_markdown,
    table1_markdown,
)
from dmbench.tables.results import PAPER_TABLES


@dataclass(frozen=True, slots=True)
class SiteResult:
    out_dir: Path
    record_pages: int
    diagrams: int
    rejected: int
    empty_outputs: int
    plots: int
    render: RenderBatch
    check: SiteCheck
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.check.problems

    def summary(self) -> str:
        verdict = "no broken link or image" if self.ok else f"{len(self.check.problems)} problems"
        return (
            f"{self.out_dir}: index + {self.record_pages} record pages, {self.diagrams} diagrams "
            f"({self.render.drawn} drawn, {self.render.cached} cached, {self.rejected} rejected "
            f"by PlantUML), {self.plots} plots; {verdict}"
        )


@dataclass(frozen=True, slots=True)
class BuildInfo:
    dmbench_version: str
    plantuml_version: str
    layout: str
    diagrams: int
    rejected: int
    empty_outputs: int


def markdown_html(text: str, shift: int = 0) -> Markup:
    """Markdown (CommonMark with GFM tables) as HTML; headings moved ``shift`` levels down so a
    document's ``#`` title sits under the page's own headings. Raw HTML is not passed through."""
    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(text)
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + shift, 6)}"
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


def _overview(view: RecordView) -> list[str]:
    values = []
    for _, outputs in view.outputs:
        scores = [
            o.scores[PUBLISHED_METRIC].class_score for o in outputs if PUBLISHED_METRIC in o.scores
        ]
        values.append(f"{statistics.mean(scores):.3f}" if scores else "–")
    return values


def build_site(
    package_dir: Path,
    out_dir: Path,
    cache_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> SiteResult:
    """Build the report of ``package_dir`` into ``out_dir`` (replaced whole) and check it.

    ``cache_dir`` holds the rendered SVG (default: the package's render cache). When the
    package holds judge runs, the index shows the judge leaderboard and each record page the
    judges' scores and reasons.
    """
    started = time.perf_counter()
    package_dir, out_dir = Path(package_dir), Path(out_dir)
    say = progress or (lambda message: None)
    say("reading the package and explaining metrik-4's matches")
    views = record_views(package_dir)
    outputs = [o for v in views for _, runs in v.outputs for o in runs]
    sources = [v.record.reference for v in views] + [o.generated for o in outputs if o.has_diagram]
    say(f"rendering {len(set(sources))} distinct diagrams")
    batch = render_diagrams(sources, cache_dir or cache_dir_for(package_dir))
    say("drawing the plots")
    plots = all_plots(views)
    tables = build_tables(package_dir, PUBLISHED_METRIC, "published")
    judged = leaderboard_rows(package_dir)

    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-", dir=out_dir.parent))
    try:
        (staging / "diagrams").mkdir()
        (staging / "plots").mkdir()
        for rendering in batch.renderings.values():
            shutil.copyfile(rendering.path, staging / "diagrams" / f"{rendering.sha256}.svg")
        for plot in plots:
            (staging / "plots" / plot.name).write_bytes(plot.svg)
        style = resources.files("dmbench.report") / "templates" / "style.css"
        (staging / "style.css").write_text(style.read_text("utf-8"), "utf-8")
        info = BuildInfo(
            dmbench_version=__version__,
            plantuml_version=PLANTUML_VERSION,
            layout=LAYOUT,
            diagrams=len(batch.renderings),
            rejected=batch.rejected,
            empty_outputs=sum(not o.has_diagram for o in outputs),
        )
        environment = _environment()
        scored = [m for m in METRICS if any(m in o.scores for o in outputs)]
        environment.globals.update(build=info, describe=describe, metrics=scored)
        by_dataset = [
            (DATASET_NAMES.get(name, name), [v for v in views if v.record.dataset == name])
            for name in DATASETS
        ]
        reference_state = {
            v.record.record_id: "drawn"
            if batch.renderings[sha256_text(v.record.reference)].ok
            else "rejected by PlantUML"
            for v in views
        }
        index = environment.get_template("index.html").render(
            records=[v.record for v in views],
            dataset_counts=[(n, len(vs)) for n, vs in by_dataset],
            cells=[cell for cell, _ in views[0].outputs] if views else [],
            tables=[markdown_html(table1_markdown(tables.corpus), 2)]
            + [markdown_html(results_markdown(tables, d), 2) for d in PAPER_TABLES]
            + [markdown_html(comparisons_markdown(tables), 2)],
            leaderboard=markdown_html(leaderboard_markdown(judged), 2) if judged else None,
            plots=plots,
            by_dataset=by_dataset,
            reference_state=reference_state,
            overview={v.record.record_id: _overview(v) for v in views},
            errata=markdown_html(errata_markdown(package_dir), 2),
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
        _swap_in(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return SiteResult(
        out_dir=out_dir,
        record_pages=len(views),
        diagrams=len(batch.renderings),
        rejected=batch.rejected,
        empty_outputs=info.empty_outputs,
        plots=len(plots),
        render=batch,
        check=check,
        seconds=time.perf_counter() - started,
    )


def _swap_in(staging: Path, out_dir: Path) -> None:
    old = None
    if out_dir.exists():
        old = out_dir.with_name(f".{out_dir.name}-old-{staging.name}")
        out_dir.rename(old)
    staging.rename(out_dir)
    if old is not None:
        shutil.rmtree(old)
