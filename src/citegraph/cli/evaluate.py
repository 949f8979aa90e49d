"""`citegraph eval`: the evaluation harnesses (data paths are arguments)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from citegraph.cli import views
from citegraph.cli.base import (
    F,
    json_option,
    main,
    option,
    print_json,
    stderr,
    stdout,
)
from citegraph.pipeline import CiteGraph
from citegraph.settings import setting


def _bars(label: str) -> Any:
    return views.progress(stderr, label)


def _show(as_json: bool) -> Callable[[Path], None]:
    """Print each report's Markdown as it is written (not with --json: the summaries are the output)."""
    return (lambda _path: None) if as_json else (lambda path: views.render_lines(stdout, path.read_text(encoding="utf-8")))


def _data(help_text: str, *, folders: bool = False) -> Callable[[F], F]:
    """The harnesses' repeatable ``--data PATH`` (files, or with ``folders`` a folder too)."""
    kind = click.Path(exists=True, path_type=Path) if folders else click.Path(exists=True, dir_okay=False, path_type=Path)
    return click.option("--data", "data", type=kind, required=True, multiple=True, help=help_text)


_OUT = click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-results"), show_default=True)


@main.group("eval")
def eval_() -> None:
    """Evaluation harnesses (data paths are arguments)."""


@eval_.command("support")
@_data(
    "HaluEval qa/dialogue/summarization, AttributionBench, HotpotQA, 2WikiMultihopQA or MuSiQue files, or behaviour cases "
    "(bench/build_behaviour.py: reported per family), JSON or JSON lines, format detected from the fields (repeatable)"
)
@option(setting("verifier"))
@option(setting("timeout"))
@click.option(
    "--limit", default=500, show_default=True, help="source lines sampled per file (2 pairs each, 1 for AttributionBench), seed 13"
)
@_OUT
@click.option(
    "--fit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="write the judge's calibration record (Platt scaling fitted on the dev halves, its threshold and test ECE) here",
)
@json_option
def eval_support(data: tuple[Path, ...], verifier: str, timeout: float, limit: int, out: Path, fit: Path | None, as_json: bool) -> None:
    """Balanced accuracy, F1, calibration (ECE, reliability plot), stages and latency of the support check."""
    from citegraph.eval.support import run

    summaries = run(
        data, verifier, timeout=timeout, limit=limit, out=out, fit=fit, bars=_bars, each=_show(as_json), say=lambda m: views.say(stderr, m)
    )
    if as_json:
        print_json(summaries)


@eval_.command("citations")
@_data(
    "ALCE items {question, docs, output|answer}: a JSON list, {data: [...]} (ALCE's saved generations) or {demos: [...]} "
    "(its prompt files) (repeatable)"
)
@option(setting("verifier"))
@option(setting("support-threshold"))
@option(setting("timeout"))
@click.option("--limit", type=int, help="only the first N answers of each file")
@click.option(
    "--list/--sentences",
    "as_list",
    default=None,
    help="claims are the answer's comma-separated items, each prefixed by the question (ALCE's QAMPARI rule); "
    "default: on for a file whose name says qampari",
)
@_OUT
@json_option
def eval_citations(
    data: tuple[Path, ...],
    verifier: str,
    support_threshold: float,
    timeout: float,
    limit: int | None,
    as_list: bool | None,
    out: Path,
    as_json: bool,
) -> None:
    """ALCE's citation recall and precision of cited answers, each check made by citegraph's verifier."""
    from citegraph.eval.citations import run

    summaries = run(
        data,
        verifier,
        threshold=support_threshold,
        timeout=timeout,
        limit=limit,
        as_list=as_list,
        out=out,
        bars=_bars,
        each=_show(as_json),
    )
    if as_json:
        print_json(summaries)


@eval_.command("retrieval")
@_data(
    "HotpotQA (either layout), 2WikiMultihopQA or MuSiQue questions (JSON or JSON lines), or the plain format: "
    "{corpus, questions} JSON, a folder with corpus.json and questions.json, or a questions file with --corpus (repeatable)",
    folders=True,
)
@click.option(
    "--corpus", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="passages [{title, text}] for a plain questions file"
)
@click.option("--mode", "modes", multiple=True, help="retrieval modes to compare (repeatable; default: all)")
@option(setting("embedder"))
@option(setting("extractor"))
@option(setting("context-size"))
@click.option("--limit", type=int, help="only the first N questions of each data set")
@_OUT
@json_option
def eval_retrieval(
    data: tuple[Path, ...],
    corpus: Path | None,
    modes: tuple[str, ...],
    embedder: str,
    extractor: str,
    context_size: int,
    limit: int | None,
    out: Path,
    as_json: bool,
) -> None:
    """All-gold-retrieved, passage and sentence recall at k, context size and latency of each retrieval mode.

    The passages are ingested into OUT/NAME.db (reused when present); dev and test are halves of the questions."""
    from citegraph.eval.retrieval import run

    def open_graph(db: Path) -> CiteGraph:
        return CiteGraph.open(db, embedder, extractor=extractor, context_size=context_size)

    summaries = run(
        data,
        corpus=corpus,
        modes=modes,
        limit=limit,
        out=out,
        context_size=context_size,
        open_graph=open_graph,
        bars=_bars,
        each=_show(as_json),
    )
    if as_json:
        print_json(summaries)


@eval_.command("answers")
@_data(
    "a corpus folder (corpus.json beside its documents: right answers per question kind), or HotpotQA (either layout), "
    "2WikiMultihopQA, MuSiQue questions or the plain format (repeatable)",
    folders=True,
)
@option(setting("embedder"))
@option(setting("generator"))
@option(setting("verifier"))
@click.option(
    "--baseline",
    default="dense-sentence",
    show_default=True,
    help="a corpus's questions are asked again with this retrieval mode, the same answerer, in the same run ('none': not)",
)
@option(setting("context-size"))
@click.option(
    "--rewriter",
    help="a language model spec that writes out the follow-ups of a corpus's conversations the rules cannot read "
    "(default: the generator's model, when it is one)",
)
@click.option("--limit", type=int, help="only the first N questions of each data set")
@_OUT
@json_option
def eval_answers(
    data: tuple[Path, ...],
    embedder: str,
    generator: str,
    verifier: str,
    baseline: str,
    context_size: int,
    rewriter: str | None,
    limit: int | None,
    out: Path,
    as_json: bool,
) -> None:
    """Right answers on a corpus of documents (per question kind: right, abstained, confidently wrong,
    seconds per question); on multi-hop sets, abstention with each question's gold passages hidden by
    access labels, answering with them visible, and the gold answer in the cited claims.

    The documents are ingested into OUT/answers-NAME.db (reused when present); a corpus says each
    question's split, a multi-hop set's dev and test are its halves."""
    from citegraph.components import make_chat_model
    from citegraph.eval import report_name
    from citegraph.eval.answers import run
    from citegraph.eval.corpus import is_corpus
    from citegraph.eval.corpus import run as run_corpus

    rewrites = None if rewriter is None else make_chat_model(rewriter)

    def open_graph(db: Path, retrieval: str | None = None) -> CiteGraph:
        chosen: dict[str, Any] = {} if retrieval is None else {"retrieval": retrieval}
        graph = CiteGraph.open(db, embedder, generator=generator, verifier=verifier, context_size=context_size, **chosen)
        if rewrites is not None:
            graph.rewriter = rewrites
        return graph

    try:
        corpora = [path for path in data if is_corpus(path)]
        sets = [path for path in data if not is_corpus(path)]
        summaries: list[dict[str, object]] = []
        taken: set[str] = set()
        for folder in corpora:
            name = report_name(folder.name, taken, folder)
            result, md = run_corpus(folder, open_graph, out=out, name=name, baseline=None if baseline == "none" else baseline, bars=_bars)
            _show(as_json)(md)
            summaries.append({"name": name, **{split: result["product"][split]["all"] for split in ("dev", "test")}})
        if sets:
            summaries += run(sets, open_graph, out=out, limit=limit, bars=_bars, each=_show(as_json))
    finally:
        if rewrites is not None:
            rewrites.close()
    if as_json:
        print_json(summaries)


@eval_.command("conflicts")
@_data(
    "HotpotQA (either layout), 2WikiMultihopQA or MuSiQue questions: their paragraphs build the pairs; or a corpus folder "
    "(corpus.json): its planted pairs (repeatable)",
    folders=True,
)
@click.option("--limit", type=int, help="only the first N questions of each data set")
@_OUT
@json_option
def eval_conflicts(data: tuple[Path, ...], limit: int | None, out: Path, as_json: bool) -> None:
    """Precision and recall of the check for sources that disagree, on pairs built from the data:
    a sentence against a copy with a number, year, negation or moment changed, and against the
    unchanged copy, an equivalent rewrite, its neighbour and the most similar sentence elsewhere;
    on a corpus folder, the pairs its corpus.json plants (a dated FAQ against the current policy,
    and sentences about different things)."""
    from citegraph.eval.conflicts import run

    summaries = run(data, out=out, limit=limit, bars=_bars, each=_show(as_json))
    if as_json:
        print_json(summaries)
