"""The ``citegraph`` command: a thin click layer over :class:`citegraph.pipeline.CiteGraph`.

Exit codes: 0 ok, 1 the user's mistake (a bad flag, value or argument included), 2 a backend or
model unavailable (a locked or damaged store included), 3 partial success, 4 ``citegraph check``
found problems in the store, 5 an internal error (a bug in citegraph), 130 interrupted.
Errors are translated here, once, by :class:`_Main`; with ``--json`` anywhere on the command line
every error is also printed as ``{"ok": false, "error": {"type", "message"}}`` on stdout. A command
that ends with a result other than ok (3, 4, or 2 for an ingest a model stopped) returns its exit
code, and :class:`_Main` exits with it: no command exits by itself.
This module holds the group, its error translation and the options every command shares; the commands
live by family in :mod:`~citegraph.cli.graph`, :mod:`~citegraph.cli.serving`, :mod:`~citegraph.cli.models`
and :mod:`~citegraph.cli.evaluate`. A command is options, one library call and one view (:mod:`citegraph.cli.views`); every
human-readable line goes through those views, which escape control characters and read no markup.
Spec strings (``--embedder``, ``--generator``, ...) are handed on as they are: :mod:`citegraph.components`
reads them.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from citegraph.cli import views
from citegraph.components import GraphSpec
from citegraph.cores import one_blas_thread
from citegraph.errors import CitegraphError, UserError, store_error
from citegraph.pipeline import CiteGraph
from citegraph.settings import Setting, setting

EXIT_OK, EXIT_USER, EXIT_BACKEND, EXIT_PARTIAL, EXIT_CORRUPT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
DEMO_QUESTION = "How long do exports stay available after cancellation?"

F = TypeVar("F", bound=Callable[..., Any])
# Neither console reads markup, emoji codes or highlighting from what it prints: the views hand them
# rich Text made terminal-safe (views.safe).
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


def option(s: Setting, *flags: str, **extra: Any) -> Callable[[F], F]:
    extra.setdefault("type", _Checked(s) if s.range else type(s.default))
    where = f"{s.range}; env {s.env}" if s.range else f"env {s.env}"
    return click.option(
        *(flags or (f"--{s.name}",)), default=s.default, envvar=s.env, show_default=True, help=f"{s.help} [{where}]", **extra
    )


def open_graph(spec: GraphSpec, *, create: bool = False, **changes: Any) -> CiteGraph:
    """The graph the command's flags name (``spec``, with a command's own ``changes``). Only
    ``ingest`` passes ``create=True``: a read on a missing store is an error naming it, not a new
    empty store."""
    return CiteGraph.from_spec(spec.replace(**changes), create=create)


@contextlib.contextmanager
def writing(graph: CiteGraph) -> Iterator[None]:
    """Around a command's write: the callers whose graph the store keeps saved (a large store; see
    :mod:`citegraph.store.snapshots`) get it prepared again for the store as the write left it, so
    that their next ``ask`` maps it instead of reading and indexing the store (said on stderr: at a
    million sentences it takes as long as that first ask would have)."""
    callers = graph.saved_callers()
    yield
    if callers:
        err = Console(stderr=True, highlight=False)
        views.say(err, f"preparing the saved graph of {len(callers)} caller(s) for the next ask …")
        try:
            graph.prepare_views(callers)
        except (CitegraphError, OSError) as exc:  # the write is done and stays done: only the preparing failed
            views.say(err, f"warning: the saved graphs were not prepared ({exc}); the next ask reads the store instead")


def db_options(f: F) -> F:
    """--db, --embedder, --timeout and --lock-timeout, handed to the command as one
    :class:`~citegraph.components.GraphSpec` (``spec``). A ``sqlite3`` error from the store becomes
    the error that names it (locked, read-only, damaged)."""

    @functools.wraps(f)
    def wrapper(*args: Any, db: str, embedder: str, timeout: float, lock_timeout: float, **kwargs: Any) -> Any:
        spec = GraphSpec(db=db, embedder=embedder, timeout=timeout, lock_timeout=lock_timeout)
        try:
            return f(*args, spec=spec, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise store_error(db, exc, waited=lock_timeout) from exc

    for name in ("lock-timeout", "timeout", "embedder", "db"):
        wrapper = option(setting(name))(wrapper)
    return wrapper  # type: ignore[return-value]


def split_labels(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
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


def labels_option(f: F) -> F:
    return click.option(
        "--as",
        "labels",
        multiple=True,
        default=("public",),
        show_default=True,
        callback=split_labels,
        help="access labels the caller holds (repeatable or comma-separated); only documents carrying one of them are read",
    )(f)


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="print one JSON object instead of the rich view")(f)


def print_json(data: Any, *, compact: bool = False) -> None:
    """``data`` as JSON on stdout: indented, or on one line (``compact``: JSON Lines)."""
    click.echo(json.dumps(data, ensure_ascii=False, indent=None if compact else 2))


def fail(as_json: bool, kind: str, message: str, code: int, *, hint: str = "", label: str = "error") -> int:
    """Print one error (and, with ``--json``, its JSON object on stdout); return its exit code."""
    if as_json:
        print_json({"ok": False, "error": {"type": kind, "message": message}})
    views.render_error(stderr, message, label=label)
    if hint:
        views.say(stderr, hint)
    return code


class Main(click.Group):
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
            code = fail(as_json, "UsageError", exc.format_message(), EXIT_USER, hint=hint)
        except click.Abort as exc:
            interrupted = isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)
            code = fail(as_json, "Interrupted", "interrupted" if interrupted else "aborted", EXIT_INTERRUPTED if interrupted else EXIT_USER)
        except CitegraphError as exc:
            code = fail(as_json, type(exc).__name__, str(exc), exc.exit_code)
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
            code = fail(as_json, "InternalError", message, EXIT_INTERNAL, label="internal error")
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


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
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
    one_blas_thread()  # the models' onnxruntime sessions take the cores (citegraph.cores)
    path = config or (Path("citegraph.toml") if Path("citegraph.toml").is_file() else None)
    if path is not None:
        ctx.default_map = _config_defaults(main, path)
