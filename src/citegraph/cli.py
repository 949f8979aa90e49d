"""The ``citegraph`` command: a thin click layer over :class:`citegraph.pipeline.CiteGraph`.

Exit codes: 0 ok, 1 the user's mistake, 2 a backend or model unavailable, 3 partial success.
Errors are translated here, once; with ``--json`` the error is also printed as
``{"ok": false, "error": {...}}`` on stdout.
"""

from __future__ import annotations

import functools
import json
import sys
import tempfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from citegraph import output
from citegraph.errors import CitegraphError
from citegraph.pipeline import CiteGraph
from citegraph.settings import Setting, setting

EXIT_OK, EXIT_USER, EXIT_BACKEND, EXIT_PARTIAL = 0, 1, 2, 3
DEMO_QUESTION = "How long do exports stay available after cancellation?"

F = TypeVar("F", bound=Callable[..., Any])
stdout = Console(soft_wrap=True)
stderr = Console(stderr=True, soft_wrap=True)


def _option(s: Setting, *flags: str, **extra: Any) -> Callable[[F], F]:
    extra.setdefault("type", type(s.default))
    return click.option(
        *(flags or (f"--{s.name}",)), default=s.default, envvar=s.env, show_default=True, help=f"{s.help} [env {s.env}]", **extra
    )


def _db(f: F) -> F:
    f = _option(setting("embedder"))(f)
    return _option(setting("db"))(f)


def _labels(f: F) -> F:
    return click.option(
        "--as",
        "labels",
        multiple=True,
        default=("public",),
        show_default=True,
        help="access labels the caller holds (repeatable); only documents carrying one of them are read",
    )(f)


def _json(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of the rich view")(f)


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _errors(f: F) -> F:
    """Translate citegraph errors into a message and an exit code, once, for every command."""

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except CitegraphError as exc:
            if kwargs.get("as_json"):
                _print_json({"ok": False, "error": {"type": type(exc).__name__, "message": str(exc)}})
            stderr.print(f"[red]error:[/red] {exc}", highlight=False)
            sys.exit(exc.exit_code)

    return wrapper  # type: ignore[return-value]


def _open(db: str, embedder: str, **options: Any) -> CiteGraph:
    return CiteGraph.open(db, embedder, **options)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="citegraph")
def main() -> None:
    """Local GraphRAG with sentence-level citations that are checked, not assumed."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@_db
@click.option("--access", multiple=True, default=("public",), show_default=True, help="access label for these documents (repeatable)")
@click.option("--extractions", type=click.Path(path_type=Path), help="JSONL of external extractions to import instead of extracting")
@click.option("--id", "doc_id", help="document id, when ingesting a single file")
@click.option("--version", "version_label", help="a human label for this version (the content hash is always kept)")
@_option(setting("dangling"), type=click.Choice(["infer", "reject"]))
@click.option("--quiet", is_flag=True, help="no progress bar")
@_json
@_errors
def ingest(
    paths: tuple[Path, ...],
    db: str,
    embedder: str,
    access: tuple[str, ...],
    extractions: Path | None,
    doc_id: str | None,
    version_label: str | None,
    dangling: str,
    quiet: bool,
    as_json: bool,
) -> None:
    """Ingest files and folders (.txt, .md, .html, .pdf) into the store."""
    with (
        _open(db, embedder, dangling=dangling) as graph,
        Progress(
            TextColumn("ingest"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            console=stderr,
            disable=quiet,
            transient=False,
        ) as bar,
    ):
        task = bar.add_task("", total=None)

        def progress(done: int, total: int, current: str) -> None:
            bar.update(task, completed=done, total=total, description=current)

        report = graph.ingest(
            list(paths), access=access, extractions=extractions, doc_id=doc_id, version_label=version_label, progress=progress
        )
    if as_json:
        _print_json(output.ingest_json(report))
    else:
        output.render_ingest(stdout, report)
    if any("model unavailable" in d.reason for d in report.documents):
        sys.exit(EXIT_BACKEND)
    if report.partial:
        sys.exit(EXIT_PARTIAL)


@main.command()
@click.argument("question")
@_db
@_labels
@_option(setting("hops"))
@_option(setting("top-k"))
@_option(setting("context-size"))
@_option(setting("depth-penalty"))
@click.option(
    "--answer-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="check an answer written elsewhere against this question's context instead of answering",
)
@click.option("--include-superseded", is_flag=True, help="also retrieve from superseded document versions")
@_json
@_errors
def ask(
    question: str,
    db: str,
    embedder: str,
    labels: tuple[str, ...],
    hops: int,
    top_k: int,
    context_size: int,
    depth_penalty: float,
    answer_file: Path | None,
    include_superseded: bool,
    as_json: bool,
) -> None:
    """Answer QUESTION from the store, every claim cited to a source sentence."""
    answer_text = answer_file.read_text(encoding="utf-8") if answer_file else None
    with _open(db, embedder, hops=hops, top_k=top_k, context_size=context_size, depth_penalty=depth_penalty) as graph:
        answer = graph.ask(question, labels=labels, answer_text=answer_text, include_superseded=include_superseded)
    if as_json:
        _print_json(output.answer_json(answer))
    else:
        output.render_answer(stdout, answer)


@main.command()
@click.argument("entities", nargs=-1, required=True)
@_db
@_labels
@_option(setting("hops"))
@_json
@_errors
def traverse(entities: tuple[str, ...], db: str, embedder: str, labels: tuple[str, ...], hops: int, as_json: bool) -> None:
    """Multi-source breadth-first search from the named ENTITIES (all start at depth 0)."""
    with _open(db, embedder) as graph:
        nodes = graph.traverse(list(entities), labels=labels, hops=hops)
    if as_json:
        _print_json({"seeds": sorted({n.seed for n in nodes if n.depth == 0}), "hops": hops, "nodes": output.nodes_json(nodes)})
        return
    for n in nodes:
        stdout.print(f"{'  ' * n.depth}{n.name} [dim](depth {n.depth})[/dim]  [dim]{output._route_text(n.route)}[/dim]", highlight=False)


@main.group()
def show() -> None:
    """Inspect entities and relations with their provenance."""


@show.command("entity")
@click.argument("name")
@_db
@_labels
@_json
@_errors
def show_entity(name: str, db: str, embedder: str, labels: tuple[str, ...], as_json: bool) -> None:
    """Every mention of one entity: span, document and version (superseded ones flagged)."""
    with _open(db, embedder) as graph:
        entity = graph.entity(name, labels=labels)
    if as_json:
        _print_json(output.entity_json(entity))
        return
    stdout.print(f"[bold]{entity.name}[/bold] (key {entity.key!r}), {len(entity.mentions)} mention(s)", highlight=False)
    for m in entity.mentions:
        flag = "" if m.current else " [yellow](superseded)[/yellow]"
        stdout.print(f"  {m.span.document}@{m.span.version[:8]}:{m.span.start}-{m.span.end}{flag} “{m.span.text}”", highlight=False)


@show.command("relations")
@click.option("--between", nargs=2, help="only relations between these two entities")
@_db
@_labels
@click.option("--include-superseded", is_flag=True)
@_json
@_errors
def show_relations(
    between: tuple[str, str] | None, db: str, embedder: str, labels: tuple[str, ...], include_superseded: bool, as_json: bool
) -> None:
    """Relations (a multigraph: one row per asserting sentence), each with its span."""
    with _open(db, embedder) as graph:
        rels = graph.relations(labels=labels, between=tuple(between) if between else None, include_superseded=include_superseded)  # type: ignore[arg-type]
    if as_json:
        _print_json(output.relations_json(rels))
        return
    for r in rels:
        stdout.print(
            f"{r.source} -[{r.type}]-> {r.target}  [dim]{r.span.document}:{r.span.start}-{r.span.end} “{r.span.text}”[/dim]",
            highlight=False,
        )


@main.command()
@_db
@_labels
@_json
@_errors
def documents(db: str, embedder: str, labels: tuple[str, ...], as_json: bool) -> None:
    """Stored documents, every version, with status and counts."""
    with _open(db, embedder) as graph:
        docs = graph.documents(labels=labels)
    if as_json:
        _print_json(output.documents_json(docs))
        return
    for d in output.documents_json(docs):
        cur = "current" if d["current"] else "superseded"
        stdout.print(
            f"{d['id']} {d['version'][:8]} {cur} {d['status']}: {d['sentences']} sentences, {d['entities']} entities, "
            f"{d['relations']} relations, access {','.join(d['access'])}",
            highlight=False,
        )


@main.command()
@_option(setting("embedder"))
@click.option("--question", default=DEMO_QUESTION, show_default=True)
@_json
@_errors
def demo(embedder: str, question: str, as_json: bool) -> None:
    """Ingest the bundled Larkspur handbook into a temporary store and ask it a question."""
    corpus = resources.files("citegraph.demo") / "larkspur"
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(corpus) as folder, _open(str(Path(tmp) / "demo.db"), embedder) as graph:
        report = graph.ingest([folder])
        answer = graph.ask(question)
    if as_json:
        _print_json({"ingest": output.ingest_json(report), "answer": output.answer_json(answer)})
        return
    stdout.rule("citegraph demo: the Larkspur handbook")
    output.render_ingest(stdout, report)
    stdout.print()
    output.render_answer(stdout, answer, routes=6)
    stdout.print()
    stdout.print(
        "[dim]Each citation shows the exact span (document@version:start-end) and the graph route that found it. "
        "Without an entailment model a citation is 'unverified': cited is not verified.[/dim]"
    )


if __name__ == "__main__":  # pragma: no cover
    main()
