"""``dmbench agreement``: the metric study's consistency table recomputed, and section 3.3 checked.

The paper chose metrik-4 from a table of five metrics against the experts' F1 on the study's 39
pairs. Rows come from two sources: ``published`` (the study's per-pair results of its five
metrics) and ``dmbench`` (dmbench's own scores of the same pairs, for every registered metric).
:func:`agreement_rows` takes per-pair values of any "metric", so the judge's study runs
stored in the package (``dmbench judge --study``) get rows the same way, named
``judge:<model>``. A metric that cannot score a pair (the standard reading rejects the HBMS
reference) leaves that pair out of its rows; the table lists every such pair with the reason.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from dmbench.core.atomic import json_text, write_text
from dmbench.core.csvio import csv_text
from dmbench.core.escape import markdown_text
from dmbench.judge.runs import JudgeRun, list_judge_runs
from dmbench.judge.study_run import judged_values
from dmbench.metrics import METRICS, PUBLISHED_METRIC, score_benchmark, score_benchmark_many
from dmbench.sources.study import StudyPair, published_study_scores, study_pairs
from dmbench.tables.render import markdown_table
from dmbench.tables.results import ELEMENTS
from dmbench.tables.statistics import (
    CONFIDENCE,
    RESAMPLES,
    SEED,
    Agreement,
    element_agreement,
    library_versions,
    overall_agreement,
    round_half_up,
)

OVERALL = "overall"
SOURCES = ("published", "dmbench")
AGREEMENT_FIELDS = (
    "metric",
    "element",
    "source",
    *(f.name for f in Agreement.__dataclass_fields__.values()),
)
"""The columns of the agreement table (CSV header, JSON row keys), in order."""


@dataclass(frozen=True, slots=True)
class AgreementRow:
    """One metric's agreement with the experts on one element, from one source."""
    metric: str
    element: str
    source: str
    stats: Agreement

    def to_record(self) -> dict:
        return {"metric": self.metric, "element": self.element, "source": self.source} | asdict(
            self.stats
        )


def agreement_rows(
    metric: str,
    source: str,
    values: Mapping[str, Mapping[str, float]],
    pairs: Sequence[StudyPair],
    seed: int = SEED,
    resamples: int = RESAMPLES,
    overall: Mapping[str, float] | None = None,
) -> list[AgreementRow]:
    """One row per element and the overall row, for per-pair ``values`` (pair id -> element ->
    score). Pairs without values are left out (no rows when none is left); r's interval
    resamples the reference models.

    A rater with its own overall score per pair (a judge's S_final) gives it as ``overall``:
    the overall row then compares it with the pair's mean human F1, with every statistic of an
    element row, instead of pooling the elements."""
    scored = [p for p in pairs if p.pair_id in values]
    if not scored:
        return []
    clusters = [p.model for p in scored]
    metric_values = np.array([[values[p.pair_id][e] for e in ELEMENTS] for p in scored])
    human = np.array([[p.human_f1[e] for e in ELEMENTS] for p in scored])
    rows = [
        AgreementRow(
            metric,
            element,
            source,
            element_agreement(metric_values[:, i], human[:, i], clusters, seed, resamples),
        )
        for i, element in enumerate(ELEMENTS)
    ]
    if overall is None:
        stats = overall_agreement(metric_values, human)
    else:
        own = [overall[p.pair_id] for p in scored]
        stats = element_agreement(own, human.mean(axis=1), clusters, seed, resamples)
    rows.append(AgreementRow(metric, OVERALL, source, stats))
    return rows


def dmbench_study_scores(
    pairs: Sequence[StudyPair], metric: str
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """dmbench's scores of the study pairs, and the pairs it could not score with the reason
    (which diagram the metric rejected, and its message)."""
    scores = score_benchmark_many([(p.reference, p.generated) for p in pairs], metric)
    values, excluded = {}, {}
    for pair, score in zip(pairs, scores, strict=True):
        if score.error is None:
            values[pair.pair_id] = {e: getattr(score, f"{e}_score") for e in ELEMENTS}
            continue
        side = "generated"
        if score_benchmark(pair.reference, pair.reference, metric).error is not None:
            side = "reference"
        excluded[pair.pair_id] = f"{metric} rejects the {side} diagram: {score.error}"
    return values, excluded


@dataclass(frozen=True, slots=True)
class StudyClaim:
    """One of section 3.3's claims and whether the recomputed table bears it out."""
    claim: str
    holds: bool
    measured: str

    def to_record(self) -> dict:
        return asdict(self)


LOWER_IS_BETTER = ("mad", "residual_std", "abs_bias", "median_abs")
HIGHER_IS_BETTER = ("pearson_r",)
RANKED_STATISTICS = LOWER_IS_BETTER + HIGHER_IS_BETTER
"""Statistics with a direction: a metric that agrees better with the experts wins the cell."""
STATISTIC_NAMES = {
    "mad": "MAD",
    "residual_std": "residual std",
    "abs_bias": "|bias|",
    "median_abs": "median |delta|",
    "pearson_r": "Pearson r",
}
PAPER_WINNERS = ("metrik-1", "metrik-3", "metrik-4", "metrik-5")
"""Section 3.3: "the per-element winners split across M-1, M-3, M-4, and M-5"."""


BEST_CLAIMS = (
    (
        'M-4 "achieving the best correlation on classes (r = 0.42)"',
        PUBLISHED_METRIC,
        "class",
        "pearson_r",
        0.42,
    ),
    (
        "M-4 the best correlation on relationships (r = 0.42)",
        PUBLISHED_METRIC,
        "association",
        "pearson_r",
        0.42,
    ),
    (
        'M-3 "the highest correlation on attributes (r = 0.65)"',
        "metrik-3",
        "attribute",
        "pearson_r",
        0.65,
    ),
    ('M-4 "the best attribute MAD (0.14)"', PUBLISHED_METRIC, "attribute", "mad", 0.14),
)
"""(claim, metric, element, statistic, claimed value to two decimals)."""


def winners(rows: Sequence[AgreementRow], statistic: str) -> dict[str, AgreementRow]:
    """Per element, the row that wins ``statistic`` (the first in metric order on a tie)."""
    best = {}
    for element in ELEMENTS:
        candidates = [r for r in rows if r.element == element]
        if statistic in HIGHER_IS_BETTER:
            best[element] = max(candidates, key=lambda r: getattr(r.stats, statistic))
        else:
            best[element] = min(candidates, key=lambda r: getattr(r.stats, statistic))
    return best


def _names(statistics: Sequence[str]) -> str:
    return ", ".join(STATISTIC_NAMES[s] for s in statistics)


def _short(metric: str) -> str:
    return metric.replace("metrik-", "M-")


def _value(row: AgreementRow, statistic: str) -> str:
    return f"{_short(row.metric)} {getattr(row.stats, statistic):.4f}"


def _ranking(rows: Sequence[AgreementRow], element: str, statistic: str) -> str:
    chosen = sorted(
        (r for r in rows if r.element == element),
        key=lambda r: getattr(r.stats, statistic),
        reverse=statistic in HIGHER_IS_BETTER,
    )
    return ", ".join(_value(r, statistic) for r in chosen)


def _best_claim(
    rows: Sequence[AgreementRow], text: str, metric: str, element: str, statistic: str, value: float
) -> StudyClaim:
    best = winners(rows, statistic)[element]
    measured = getattr(best.stats, statistic)
    holds = best.metric == metric and round_half_up(measured, 2) == round_half_up(value, 2)
    ranking = _ranking(rows, element, statistic)
    return StudyClaim(text, holds, f"{STATISTIC_NAMES[statistic]}, {element}: {ranking}")


def _winner_sets(rows: Sequence[AgreementRow]) -> dict[tuple[str, ...], set[str]]:
    """For every four of the ranked statistics, the metrics that win at least one cell."""
    return {
        chosen: {r.metric for s in chosen for r in winners(rows, s).values()}
        for chosen in itertools.combinations(RANKED_STATISTICS, 4)
    }


def check_study_claims(
    published: Sequence[AgreementRow], association_deltas: Mapping[str, Sequence[float]]
) -> list[StudyClaim]:
    """Section 3.3's sentences against the published rows of the five metrics.

    ``association_deltas`` gives each metric's per-pair association deltas (metric − human),
    for the claim of "constant" overestimation (read as: every delta positive).
    """
    rows = [r for r in published if r.element in ELEMENTS]
    claims = [
        _best_claim(rows, text, metric, element, statistic, value)
        for text, metric, element, statistic, value in BEST_CLAIMS
    ]
    r_wins = [e for e, r in winners(rows, "pearson_r").items() if r.metric == PUBLISHED_METRIC]
    sets = _winner_sets(rows)
    matching = [chosen for chosen, won in sets.items() if won == set(PAPER_WINNERS)]
    four = matching[0] if len(matching) == 1 else None
    cells = (
        [(s, e) for s in four for e, r in winners(rows, s).items() if r.metric == PUBLISHED_METRIC]
        if four
        else []
    )
    claims.append(
        StudyClaim(
            'M-4 "winning 2 of 3 element-by-statistic cells"',
            len(r_wins) == 2,
            f"read as the three Pearson r cells: M-4 wins {len(r_wins)} of 3 "
            f"({', '.join(r_wins)})"
            + (
                f"; over the 12 cells of {_names(four)} it wins {len(cells)}"
                if four
                else ""
            ),
        )
    )
    names = _names(four) if four else "none"
    claims.append(
        StudyClaim(
            'a consistency table of "four statistics"',
            four is not None,
            f"the study file ranks {len(RANKED_STATISTICS)} per-element statistics with a "
            f"direction ({_names(RANKED_STATISTICS)}); "
            f"{len(matching)} choice(s) of four give the winners the paper names: {names}",
        )
    )
    won = sorted(sets[four]) if four else []
    others = sorted(
        set.intersection(*(w - set(won) for chosen, w in sets.items() if chosen != four))
    )
    claims.append(
        StudyClaim(
            '"the per-element winners split across M-1, M-3, M-4, and M-5"',
            four is not None,
            f"winners over {names}: {', '.join(_short(m) for m in won)}; every other choice of "
            f"four also has {', '.join(_short(m) for m in others) or 'no other metric'} win a cell"
            if four
            else "no choice of four ranked statistics gives exactly these winners",
        )
    )
    deltas = np.asarray(association_deltas[PUBLISHED_METRIC])
    positive = int((deltas > 0).sum())
    claims.append(
        StudyClaim(
            "M-4's \"constant overestimation on relationships\" (every delta positive)",
            positive == len(deltas),
            f"{positive} of {len(deltas)} association deltas are positive; mean "
            f"{deltas.mean():+.4f}, smallest {deltas.min():+.4f}",
        )
    )
    return claims


@dataclass(frozen=True, slots=True)
class AgreementTable:
    """The metric study's consistency table and claims, with what it could not score and the
    bootstrap settings and library versions that make it reproducible."""
    rows: list[AgreementRow]
    claims: list[StudyClaim]
    excluded: dict[str, dict[str, str]]
    """(metric) -> pair id -> why dmbench could not score it."""
    n_pairs: int
    seed: int = SEED
    resamples: int = RESAMPLES
    confidence: float = CONFIDENCE
    versions: dict[str, str] = field(default_factory=library_versions)

    def markdown(self) -> str:
        """The table and the claims for reading (``dmbench agreement``)."""
        return agreement_markdown(self)

    def csv(self) -> str:
        """The rows as CSV (``dmbench agreement --format csv``)."""
        return agreement_csv(self)

    def text(self, fmt: str) -> str:
        """The table as ``dmbench agreement --format`` prints it: ``md``, ``csv`` or ``json``."""
        if fmt == "json":
            return json_text(self.to_json())
        return self.csv() if fmt == "csv" else self.markdown()

    def write(self, out: Path, fmt: str) -> None:
        """The table in ``fmt`` written to ``out`` atomically, as every file dmbench writes."""
        write_text(Path(out), self.text(fmt))

    def to_json(self) -> dict:
        return {
            "rows": [r.to_record() for r in self.rows],
            "claims": [c.to_record() for c in self.claims],
            "excluded": [
                {"metric": m, "source": "dmbench", "pair": p, "reason": why}
                for m, pairs in self.excluded.items()
                for p, why in pairs.items()
            ],
            "pairs": self.n_pairs,
            "bootstrap": {
                "seed": self.seed,
                "resamples": self.resamples,
                "confidence": self.confidence,
                "clusters": "reference models",
            },
            "versions": self.versions,
        }


def published_rows(
    sources: Path, pairs: Sequence[StudyPair]
) -> tuple[list[AgreementRow], dict[str, dict[str, dict[str, float]]]]:
    """The agreement rows of the study's five metrics as the study published their scores, and
    those scores (per metric, pair and element) for the claims."""
    published = published_study_scores(sources)
    rows = [
        row
        for name, values in published.items()
        for row in agreement_rows(name, "published", values, pairs)
    ]
    return rows, published


def study_claims(
    rows: Sequence[AgreementRow],
    published: Mapping[str, Mapping[str, Mapping[str, float]]],
    pairs: Sequence[StudyPair],
) -> list[StudyClaim]:
    """Section 3.3's claims, each measured on the published scores and the human ratings."""
    deltas = {
        name: [values[p.pair_id]["association"] - p.human_f1["association"] for p in pairs]
        for name, values in published.items()
    }
    return check_study_claims([r for r in rows if r.source == "published"], deltas)


def judge_metric_names(runs: Sequence[JudgeRun]) -> dict[str, str]:
    """``judge:<model>`` (``+`` joins a panel) per study run; the run id's hash is added where
    two runs have the same judges (another seed, other options)."""
    names = {run.run_id: "judge:" + "+".join(run.info["settings"]["judges"]) for run in runs}
    repeated = {n for n in names.values() if list(names.values()).count(n) > 1}
    return {
        run_id: f"{name}@{run_id.rsplit('__', 1)[-1]}" if name in repeated else name
        for run_id, name in names.items()
    }


def judge_study_rows(
    package_dir: Path, pairs: Sequence[StudyPair]
) -> tuple[list[AgreementRow], dict[str, dict[str, str]]]:
    """Rows of every stored study run (``dmbench judge --study``) except identity controls:
    the CA ratio against the class and attribute F1, the LA ratio against the association F1,
    S_final against the mean F1; and the pairs each run leaves out, with the reason."""
    runs = [r for r in list_judge_runs(package_dir, study=True)
            if r.info["settings"]["control"] is None]  # fmt: skip
    names = judge_metric_names(runs)
    rows, excluded = [], {}
    for run in runs:
        name = names[run.run_id]
        overall, values, excluded[name] = judged_values(run.rows())
        rows += agreement_rows(name, "dmbench", values, pairs, overall=overall)
    return rows, excluded


def agreement_table(
    sources: Path, metrics: Sequence[str] | None = None, package_dir: Path | None = None
) -> AgreementTable:
    """Published rows of the study's five metrics, dmbench rows of every registered metric
    and of every judge study run stored in ``package_dir``."""
    pairs = study_pairs(sources)
    rows, published = published_rows(sources, pairs)
    excluded = {}
    for name in METRICS if metrics is None else metrics:
        values, excluded[name] = dmbench_study_scores(pairs, name)
        rows += agreement_rows(name, "dmbench", values, pairs)
    if package_dir is not None:
        judge_rows, judge_excluded = judge_study_rows(package_dir, pairs)
        rows += judge_rows
        excluded |= judge_excluded
    excluded = {m: pairs_out for m, pairs_out in excluded.items() if pairs_out}
    return AgreementTable(rows, study_claims(rows, published, pairs), excluded, len(pairs))


def _md(text: str) -> str:
    """Text for a Markdown table cell (a bare ``|`` would end the cell)."""
    return text.replace("|", "\\|")


def winners_markdown(rows: Sequence[AgreementRow]) -> list[str]:
    """Which metric wins each (statistic, element) cell, with its value."""
    body = [
        [_md(STATISTIC_NAMES[statistic])]
        + [_value(winners(rows, statistic)[e], statistic) for e in ELEMENTS]
        for statistic in RANKED_STATISTICS
    ]
    return markdown_table(["Statistic", *(e.capitalize() for e in ELEMENTS)], body, "llll")


def claims_markdown(claims: Sequence[StudyClaim]) -> list[str]:
    """The claims as a Markdown table: claim, whether it holds, what was measured."""
    return markdown_table(
        ["Claim", "Holds", "Measured"],
        [[_md(c.claim), "yes" if c.holds else "**no**", _md(c.measured)] for c in claims],
        "lll",
    )


def _f(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def agreement_csv(table: AgreementTable) -> str:
    """The agreement rows as CSV, one row per metric, source and element."""
    return csv_text(AGREEMENT_FIELDS, (r.to_record() for r in table.rows))


def agreement_markdown(table: AgreementTable) -> str:
    """The agreement table and the claims checked against it, for reading."""
    header = [
        "Metric",
        "Source",
        "Element",
        "n",
        "MAD",
        "Resid. std",
        "Bias",
        "Median \\|Δ\\|",
        "r [95% CI]",
        "Spearman",
        "Kendall",
        "Slope",
        "Intercept",
    ]
    body = []
    for r in table.rows:
        s = r.stats
        r_text = (
            f"{_f(s.pearson_r)} [{_f(s.r_ci_low)}, {_f(s.r_ci_high)}]"
            if s.r_ci_low is not None
            else _f(s.pearson_r)
        )
        body.append(
            [markdown_text(r.metric), r.source, r.element, str(s.n)]
            + [_f(v) for v in (s.mad, s.residual_std, s.bias, s.median_abs)]
            + [r_text]
            + [_f(v) for v in (s.spearman, s.kendall, s.slope, s.intercept)]
        )
    lines = [
        "# The metric study's consistency table",
        "",
        f"{table.n_pairs} pairs (8 reference models × 5 prompt settings, one generation "
        "missing), each rated by experts with an F1 per element. delta = metric − human F1; "
        "MAD mean |delta|, residual std the sample std of delta, bias mean delta; slope and "
        "intercept regress the human F1 on the metric; the overall row pools the three elements "
        "(its residual std is over each pair's mean score minus its mean F1). r's 95% interval "
        f"is a percentile cluster bootstrap over the 8 reference models ({table.resamples:,} "
        f"resamples, seed {table.seed}; "
        + ", ".join(f"{k} {v}" for k, v in table.versions.items())
        + "). `published`: the study's per-pair results; `dmbench`: dmbench's own scores. "
        "`judge:<model>` rows (stored `dmbench judge --study` runs) compare the CA ratio with "
        "the class and attribute F1, the LA ratio with the association F1, and S_final with "
        "each pair's mean F1 (overall, with every statistic of an element row).",
        "",
        *markdown_table(header, body, "llllrrrrrrrrr"),
        "",
    ]
    if table.excluded:
        lines += ["Pairs a metric could not score (left out of its rows):", ""]
        lines += [
            f"- `{metric}` {pair}: {why}"
            for metric, pairs in table.excluded.items()
            for pair, why in pairs.items()
        ]
        lines.append("")
    published = [r for r in table.rows if r.source == "published"]
    lines += ["## Winners of the published rows", "", *winners_markdown(published), ""]
    lines += ["## Section 3.3, checked against the published rows", ""]
    lines += claims_markdown(table.claims)
    return "\n".join(lines) + "\n"
