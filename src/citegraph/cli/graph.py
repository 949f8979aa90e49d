"""The commands over one store: ingest, ask, inspect, relabel, delete, check, export, and the demo.

Why this file is long: each command is its options, one call into the facade and its output; the
ones that write share how a write ends (:func:`~citegraph.cli.base.writing`). Divided further they
would only scatter the commands a reader looks for in one place."""

from __future__ import annotations

import contextlib
import tempfile
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import click

from citegraph import components, output
from citegraph.cli import views
from citegraph.cli.base import (
    DEMO_QUESTION,
    EXIT_BACKEND,
    EXIT_CORRUPT,
    EXIT_OK,
    EXIT_PARTIAL,
    db_options,
    json_option,
    labels_option,
    main,
    open_graph,
    option,
    print_json,
    split_labels,
    stderr,
    stdout,
    writing,
)
from citegraph.components import GraphSpec
from citegraph.errors import InputFileError, UserError
from citegraph.ingest.base import IngestOptions
from citegraph.ingest.indexer import DANGLING
from citegraph.ingest.workers import EXECUTORS
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.modes import MODES
from citegraph.retrieve.retriever import SCOPES
from citegraph.settings import setting
from citegraph.store.urls import is_postgres_url


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@db_options
@click.option(
    "--access",
    multiple=True,
    default=("public",),
    show_default=True,
    callback=split_labels,
    help="access labels for these documents (repeatable or comma-separated)",
)
@click.option(
    "--extractions",
    type=click.Path(path_type=Path),
    help="JSONL of extractions made elsewhere, imported for the documents it names; the others are extracted "
    "with --extractor (the report's 'extractor' column says which)",
)
@click.option("--id", "doc_id", help="document id, when ingesting a single file")
@click.option(
    "--prefix",
    default="",
    help="put this before every document id (a namespace, e.g. 'pub/'), so folders with the same file names can sit side by side",
)
@click.option("--version", "version_label", help="a human label for this version (the content hash is always kept)")
@click.option(
    "--date",
    "dated",
    help="the documents' own date, YYYY-MM-DD (over a front-matter date:, an HTML meta date or a PDF's date): which source is current",
)
@option(setting("extractor"))
@option(setting("dangling"), type=click.Choice(DANGLING))
@option(setting("max-file-mb"))
@option(setting("max-text-mb"))
@option(setting("workers"))
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="process",
    show_default=True,
    help="where --workers index: local processes, or Ray actors (pip install 'citegraph[ray]')",
)
@click.option("--ray-address", help="the Ray cluster to use with --executor ray (e.g. 10.0.0.5:6379); default: start a local one")
@click.option("--include-hidden", is_flag=True, help="also read hidden files and folders (names starting with a dot) under a folder")
@click.option("--quiet", is_flag=True, help="no progress bar")
@json_option
def ingest(
    paths: tuple[Path, ...],
    spec: GraphSpec,
    access: tuple[str, ...],
    extractions: Path | None,
    doc_id: str | None,
    prefix: str,
    version_label: str | None,
    dated: str | None,
    extractor: str,
    dangling: str,
    max_file_mb: float,
    max_text_mb: float,
    workers: int,
    executor: str,
    ray_address: str | None,
    include_hidden: bool,
    quiet: bool,
    as_json: bool,
) -> int:
    """Ingest files and folders (.txt .md .html .pdf .docx .xlsx .pptx .csv .eml .vtt .srt, chat .json) into the store.

    A document id already stored with other labels is refused, never relabelled: see `citegraph relabel`."""
    with (
        open_graph(spec, create=True, dangling=dangling, extractor=extractor, max_file_mb=max_file_mb, max_text_mb=max_text_mb) as graph,
        writing(graph),  # entered first, left last: the saved graphs are prepared once the progress bar is gone
        views.progress(stderr, "ingest", disable=quiet) as progress,
    ):
        options = IngestOptions(
            access=tuple(access),
            extractions=extractions,
            doc_id=doc_id,
            prefix=prefix,
            version_label=version_label,
            dated=dated,
            workers=workers,
            executor=executor,
            ray_address=ray_address,
            include_hidden=include_hidden,
        )
        report = graph.ingest(list(paths), options, progress=progress)
    if as_json:
        print_json(output.ingest_json(report))
    else:
        views.render_ingest(stdout, report)
    if report.unavailable:
        views.render_error(stderr, report.unavailable)
        return EXIT_BACKEND
    return EXIT_PARTIAL if report.partial else EXIT_OK


@main.command()
@click.argument("question")
@db_options
@labels_option
@option(setting("retrieval"), type=click.Choice(sorted(MODES)))
@option(setting("hops"))
@option(setting("top-k"))
@option(setting("context-size"))
@option(setting("depth-penalty"))
@option(setting("generator"))
@option(setting("verifier"))
@option(setting("support-threshold"))
@option(setting("max-answer-chars"))
@option(setting("max-claims"))
@option(setting("max-question-chars"))
@click.option("--verify/--no-verify", default=True, show_default=True, help="check each citation with the verifier")
@click.option(
    "--answer-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="check an answer written elsewhere against this question's context instead of answering",
)
@click.option("--include-superseded", is_flag=True, help="also retrieve from old versions and superseded documents (shown as stale)")
@click.option("--as-of", "as_of", help="answer from the documents current on this day (YYYY-MM-DD): their dates and supersessions")
@click.option(
    "--scope",
    type=click.Choice(SCOPES),
    default="auto",
    show_default=True,
    help="'global': answer from the communities of the graph (a question about the whole corpus); "
    "'local': rank sentences; 'auto': global when the question asks about the whole corpus",
)
@json_option
def ask(
    question: str,
    spec: GraphSpec,
    labels: tuple[str, ...],
    retrieval: str,
    hops: int,
    top_k: int,
    context_size: int,
    depth_penalty: float,
    generator: str,
    verifier: str,
    support_threshold: float,
    max_answer_chars: int,
    max_claims: int,
    max_question_chars: int,
    verify: bool,
    answer_file: Path | None,
    include_superseded: bool,
    as_of: str | None,
    scope: str,
    as_json: bool,
) -> None:
    """Answer QUESTION from the store, every claim cited to a source sentence."""
    answer_text = _read_answer_file(answer_file) if answer_file else None
    options: dict[str, Any] = {"verifier": verifier if verify else "none", "support_threshold": support_threshold}
    if answer_file is None:  # an answer file needs no generator
        options["generator"] = generator
    limits = {"max_answer_chars": max_answer_chars, "max_claims": max_claims, "max_question_chars": max_question_chars}
    ranking = {"retrieval": retrieval, "hops": hops, "top_k": top_k, "context_size": context_size, "depth_penalty": depth_penalty}
    with open_graph(spec.replace(**ranking, **limits, **options)) as graph:
        loading = _load_sessions_behind(graph)
        answer = graph.ask(
            question, labels=labels, answer_text=answer_text, include_superseded=include_superseded, as_of=as_of, scope=scope
        )
        loading.join()  # done by now when the answer needed them; never left running while the store closes
    if as_json:
        print_json(output.answer_json(answer))
    else:
        views.render_answer(stdout, answer)


def _load_sessions_behind(graph: CiteGraph) -> threading.Thread:
    """The ONNX sessions an answer needs (embedder, reader, checker) made in a thread while this one loads
    spaCy (C++ work beside work that holds the interpreter); each loader runs once whichever thread
    asks first, and an error is left for the answer to meet and report."""

    def load() -> None:
        with contextlib.suppress(Exception):
            from citegraph.answer.reader import default_reader

            getattr(graph.embedder, "session", None), default_reader(), getattr(graph.verifier, "checker", None)

    (thread := threading.Thread(target=load, name="citegraph-sessions", daemon=True)).start()
    return thread


@main.command()
@click.argument("entities", nargs=-1, required=True)
@db_options
@labels_option
@option(setting("hops"))
@json_option
def traverse(entities: tuple[str, ...], spec: GraphSpec, labels: tuple[str, ...], hops: int, as_json: bool) -> None:
    """Multi-source breadth-first search from the named ENTITIES (all start at depth 0)."""
    with open_graph(spec) as graph:
        nodes = graph.traverse(list(entities), labels=labels, hops=hops)
    if as_json:
        print_json(output.traverse_json(nodes, hops))
    else:
        views.render_nodes(stdout, nodes)


@main.group()
def show() -> None:
    """Inspect entities and relations with their provenance."""


@show.command("entity")
@click.argument("name")
@db_options
@labels_option
@json_option
def show_entity(name: str, spec: GraphSpec, labels: tuple[str, ...], as_json: bool) -> None:
    """Every mention of one entity: span, document and version (superseded ones flagged)."""
    with open_graph(spec) as graph:
        entity = graph.entity(name, labels=labels)
    if as_json:
        print_json(output.entity_json(entity))
    else:
        views.render_entity(stdout, entity)


@show.command("relations")
@click.option("--between", nargs=2, help="only relations between these two entities")
@db_options
@labels_option
@click.option("--include-superseded", is_flag=True)
@json_option
def show_relations(
    between: tuple[str, str] | None, spec: GraphSpec, labels: tuple[str, ...], include_superseded: bool, as_json: bool
) -> None:
    """Relations (a multigraph: one row per asserting sentence), each with its span."""
    with open_graph(spec) as graph:
        rels = graph.relations(labels=labels, between=between or None, include_superseded=include_superseded)
    if as_json:
        print_json(output.relations_json(rels))
    else:
        views.render_relations(stdout, rels)


@main.command()
@db_options
@labels_option
@click.option("--level", type=click.IntRange(0, 2), default=0, show_default=True, help="0: the broadest communities; 1, 2: finer ones")
@json_option
def communities(spec: GraphSpec, labels: tuple[str, ...], level: int, as_json: bool) -> None:
    """Communities of the entity graph you may read: their size, central entities, documents, and a
    few cited sentences that sum each one up."""
    with open_graph(spec) as graph:
        reports = graph.communities(labels=labels, level=level)
    if as_json:
        print_json(output.communities_json(reports))
    else:
        views.render_communities(stdout, reports)


@main.command()
@db_options
@labels_option
@json_option
def documents(spec: GraphSpec, labels: tuple[str, ...], as_json: bool) -> None:
    """Stored documents, every version, with status and counts."""
    with open_graph(spec) as graph:
        docs = graph.documents(labels=labels)
    if as_json:
        print_json(output.documents_json(docs))
    else:
        views.render_documents(stdout, docs)


def _stored_id(graph: CiteGraph, doc_id: str) -> str:
    """A document id as citegraph printed it (:func:`~citegraph.views.safe`: a newline as ``\\n``, a
    backslash as ``\\\\``), read back as the stored id it stands for: exactly what was printed names
    exactly the id that printed so. An id typed as stored that holds a backslash, but that no printed
    id reads as, is taken as typed."""
    unescaped = views.unescape(doc_id)
    if unescaped == doc_id:
        return doc_id
    known = {d for d, _version in graph.store.visible(None, include_superseded=True)}
    return unescaped if unescaped in known else doc_id


@main.command()
@click.argument("doc_id")
@db_options
@labels_option
@json_option
def history(doc_id: str, spec: GraphSpec, labels: tuple[str, ...], as_json: bool) -> None:
    """Every stored version of one document: current first, then newest first."""
    with open_graph(spec) as graph:
        versions = graph.history(_stored_id(graph, doc_id), labels=labels)
    if as_json:
        print_json(output.documents_json(versions))
    else:
        views.render_history(stdout, versions)


@main.command("rm")
@click.argument("doc_ids", nargs=-1, required=True)
@db_options
@json_option
def rm(doc_ids: tuple[str, ...], spec: GraphSpec, as_json: bool) -> None:
    """Delete documents (every version). Entities and relations stay only if another live span supports them."""
    with open_graph(spec) as graph, writing(graph):
        results = graph.remove([_stored_id(graph, d) for d in doc_ids])
    if as_json:
        print_json(output.removed_json(results))
    else:
        views.render_removed(stdout, stderr, results, postgres=is_postgres_url(spec.db))


@main.command()
@click.argument("old_id")
@click.option("--by", "new_id", help="the document that replaces it")
@click.option("--undo", is_flag=True, help="take the mark away: OLD_ID is current again")
@db_options
@json_option
def supersede(old_id: str, new_id: str | None, undo: bool, spec: GraphSpec, as_json: bool) -> None:
    """Mark document OLD_ID (every version) as superseded by another document (--by NEW_ID): it is left
    out of answers like an old version (`ask --include-superseded` brings it back), and shown as stale.
    A document can say the same itself, with `supersedes: [OLD_ID]` in its front matter."""
    if (new_id is None) == (not undo):
        raise UserError("give --by NEW_ID (the document that replaces it), or --undo")
    with open_graph(spec) as graph, writing(graph):
        old = _stored_id(graph, old_id)
        new = None if undo else _stored_id(graph, new_id or "")
        before = graph.supersede(old, by=new)
        unseen = () if new is None else graph.unseen_supersession(old, new)
    if as_json:
        print_json({"document": old, "superseded_by": new, "before": before, "unseen_by": list(unseen)})
    if unseen:
        views.say(
            stderr,
            f"warning: {views.safe(old)} is readable with {', '.join(map(views.safe, unseen))}, which cannot read "
            f"{views.safe(new or '')}: for callers holding only those labels {views.safe(old)} stays current and is not "
            "shown as superseded (they see nothing of the document that replaces it)",
        )
    if as_json:
        return
    if new is None:
        views.say(
            stdout,
            f"{views.safe(old)} is current again"
            + (f" (it was superseded by {views.safe(before)})" if before else " (it was not superseded)"),
        )
    else:
        views.say(stdout, f"{views.safe(old)} is superseded by {views.safe(new)}: left out of answers unless --include-superseded")


@main.command()
@click.argument("doc_id")
@db_options
@click.option(
    "--access",
    multiple=True,
    required=True,
    callback=split_labels,
    help="the document's new access labels (repeatable or comma-separated); they replace the old ones",
)
@json_option
def relabel(doc_id: str, spec: GraphSpec, access: tuple[str, ...], as_json: bool) -> None:
    """Give a document (every stored version) new access labels, and say who gains and who loses it.

    The only way labels change: an ingest never relabels a stored document."""
    with open_graph(spec) as graph, writing(graph):
        result = graph.relabel(_stored_id(graph, doc_id), access)
    if as_json:
        print_json(output.relabel_json(result))
    else:
        views.render_relabel(stdout, result)


@main.command()
@db_options
@json_option
def check(spec: GraphSpec, as_json: bool) -> int:
    """Integrity check of the store: offsets, references, vectors, one current version per document."""
    with open_graph(spec) as graph:
        problems = graph.check()
    if as_json:
        print_json(output.check_json(problems))
    else:
        views.render_check(stdout, problems)
    return EXIT_CORRUPT if problems else EXIT_OK


@main.command()
@db_options
@labels_option
@click.option("--format", "fmt", type=click.Choice(["graphml", "json"]), default="graphml", show_default=True)
@click.option("--include-superseded", is_flag=True, help="also export superseded document versions (flagged current=false)")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False, path_type=Path), help="write to this file instead of stdout")
def export(spec: GraphSpec, labels: tuple[str, ...], fmt: str, include_superseded: bool, out: Path | None) -> None:
    """The graph the caller may see, with spans, documents and versions (GraphML for Gephi, or JSON)."""
    if out is not None and not out.parent.is_dir():  # before any work
        raise UserError(f"{out}: folder {out.parent} does not exist; create it, or give -o a file in an existing folder")
    with open_graph(spec) as graph:
        text = graph.export(fmt, labels=labels, include_superseded=include_superseded)
    if out is None:
        click.echo(text, nl=False)
    else:
        _write_file(out, text)


def _read_answer_file(path: Path) -> str:
    """An ``--answer-file``'s text: UTF-8 (or UTF-16/32 with a byte order mark), else an error naming it."""
    from citegraph.ingest.loaders import decode

    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputFileError(str(path), f"cannot read the answer file ({exc.strerror or exc})") from exc
    return decode(str(path), data)


def _write_file(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"{path}: cannot write it ({exc.strerror or exc}); check the folder exists and is writable, or choose another -o"
        ) from exc


@main.command()
@option(setting("embedder"))
@click.option(
    "--generator",
    default="auto",
    show_default=True,
    help=f"answer writer; 'auto' uses gguf:{components.DEMO_MODEL} when pulled, else 'extractive' (and says so)",
)
@click.option(
    "--verifier",
    default="auto",
    show_default=True,
    help=f"support check; 'auto' judges with gguf:{components.DEMO_MODEL} when pulled, else 'guards' (and says so)",
)
@click.option("--question", default=DEMO_QUESTION, show_default=True)
@json_option
def demo(embedder: str, generator: str, verifier: str, question: str, as_json: bool) -> None:
    """Ingest the bundled Larkspur handbook into a temporary store, ask it a question, check the answer."""
    generator, note = components.demo_model("generator", generator)
    verifier, verifier_note = components.demo_model("verifier", verifier)
    note = note or verifier_note
    if note:
        views.render_error(stderr, note, label="note", style="yellow")
    corpus = resources.files("citegraph.demo") / "larkspur"
    with (
        tempfile.TemporaryDirectory() as tmp,
        resources.as_file(corpus) as folder,
        CiteGraph.open(str(Path(tmp) / "demo.db"), embedder, generator=generator, verifier=verifier) as graph,
    ):
        report = graph.ingest([folder])
        answer = graph.ask(question)
    if as_json:
        print_json(output.demo_json(report, answer, note))
    else:
        views.render_demo(stdout, report, answer)
