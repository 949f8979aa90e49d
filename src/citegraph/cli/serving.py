"""`citegraph serve` and the API tokens it reads."""

from __future__ import annotations

import importlib
import json
import os

import click

from citegraph.cli import views
from citegraph.cli.base import (
    db_options,
    json_option,
    main,
    option,
    print_json,
    split_labels,
    stderr,
)
from citegraph.components import GraphSpec
from citegraph.errors import MissingExtra, UserError
from citegraph.settings import setting

_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _needs(command: str, *modules: str) -> None:
    """Refuse ``command`` (exit 1) naming the extra that brings ``modules`` when one is not installed:
    a missing optional extra is the user's to install, not a bug in citegraph."""
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise MissingExtra(command, module, "serve") from exc


@main.command()
@db_options
@option(setting("generator"))
@option(setting("verifier"))
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on")
@click.option("--port", default=8321, show_default=True, type=click.IntRange(1, 65535), help="port to listen on")
@option(setting("workers"))
@option(setting("max-file-mb"))
@option(setting("max-text-mb"))
@option(setting("max-request-mb"))
@option(setting("max-query-kb"))
@option(setting("max-question-chars"))
def serve(
    spec: GraphSpec,
    generator: str,
    verifier: str,
    host: str,
    port: int,
    workers: int,
    max_file_mb: float,
    max_text_mb: float,
    max_request_mb: float,
    max_query_kb: float,
    max_question_chars: int,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs) and the page (/) over long-lived graphs.

    Without a token a request reads as 'public'; `citegraph token add` makes tokens for other labels.
    Listening on an address other than loopback is refused until a token exists. With --workers N,
    N processes answer at once; upload jobs live beside the store, so any of them reports any job."""
    _needs("citegraph serve", "fastapi", "uvicorn")
    import uvicorn

    from citegraph.serve.app import OPTIONS_ENV, create_app, open_served
    from citegraph.serve.tokens import TokenStore

    tokens = TokenStore(spec.db)
    if host not in _LOOPBACK and not tokens.any_active():
        raise UserError(
            f"refusing to listen on {host} with no access token: anyone who can reach it would read as 'public' and no one as more. "
            "Make one first (citegraph token add NAME --labels LABELS), or listen on 127.0.0.1"
        )
    spec = spec.replace(
        generator=generator, verifier=verifier, max_file_mb=max_file_mb, max_text_mb=max_text_mb, max_question_chars=max_question_chars
    )
    limits = {
        "max_file_bytes": int(max_file_mb * 1048576),
        "max_request_bytes": int(max_request_mb * 1048576),
        "max_query_bytes": int(max_query_kb * 1024),
    }
    graph, writer = open_served(spec)  # here first, so a bad flag or a missing model fails with its message
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
    os.environ[OPTIONS_ENV] = json.dumps({"graph": spec.to_json(), "app": limits})  # each worker opens its own graphs from these
    uvicorn.run("citegraph.serve.app:app_from_env", factory=True, workers=workers, host=host, port=port, log_level="info")


@main.command()
@db_options
@option(setting("generator"))
@option(setting("verifier"))
@click.option(
    "--token",
    "token_value",
    envvar="CITEGRAPH_TOKEN",
    help="stdio: read with this API token's labels (default: public); env CITEGRAPH_TOKEN",
)
@click.option("--http", is_flag=True, help="serve streamable HTTP at /mcp instead of stdio; each request's bearer token gives its labels")
@click.option("--host", default="127.0.0.1", show_default=True, help="--http: address to listen on")
@click.option("--port", default=8322, show_default=True, type=click.IntRange(1, 65535), help="--http: port to listen on")
def mcp(spec: GraphSpec, generator: str, verifier: str, token_value: str | None, http: bool, host: str, port: int) -> None:
    """Serve the Model Context Protocol: tools ask, verify_answer, search_evidence, show_document and
    list_documents, each result with its spans, verdicts and stages, for the caller's labels.

    Over stdio (the default: an agent host starts this command) every call reads with --token's labels,
    or as 'public'. With --http, a streamable HTTP endpoint at http://HOST:PORT/mcp behind the same
    tokens as `citegraph serve`."""
    _needs("citegraph mcp", "mcp", *(("uvicorn",) if http else ()))
    from citegraph.cli.base import open_graph
    from citegraph.serve.mcp_server import TokenCheck, build_server
    from citegraph.serve.tokens import TokenStore

    tokens = TokenStore(spec.db)
    if http and token_value:
        raise UserError("--token is for stdio; over --http each request sends its own 'Authorization: Bearer TOKEN'")
    labels: tuple[str, ...] = ("public",)
    if token_value:
        found = tokens.labels(token_value.strip())
        if found is None:
            raise UserError(
                "unknown or revoked token (--token or CITEGRAPH_TOKEN); make one with: citegraph token add NAME --labels LABELS"
            )
        labels = found
    if http and host not in _LOOPBACK and not tokens.any_active():
        raise UserError(
            f"refusing to listen on {host} with no access token: make one first (citegraph token add NAME --labels LABELS), or listen on 127.0.0.1"
        )
    graph = open_graph(spec, generator=generator, verifier=verifier)
    try:
        if not http:
            build_server(graph, labels=labels).run("stdio")
            return
        import uvicorn

        app = build_server(graph, tokens).streamable_http_app(streamable_http_path="/mcp", host=host)
        uvicorn.run(TokenCheck(app, tokens), host=host, port=port, log_level="info")
    finally:
        graph.close()


@main.group()
def token() -> None:
    """API tokens for `citegraph serve`: each maps to a set of access labels."""


@token.command("add")
@click.argument("name")
@db_options
@click.option("--labels", multiple=True, required=True, callback=split_labels, help="access labels the token grants (comma-separated)")
def token_add(name: str, spec: GraphSpec, labels: tuple[str, ...]) -> None:
    """Make a token NAME granting LABELS; it is printed once and only its hash is stored."""
    from citegraph.serve.tokens import TokenStore

    value = TokenStore(spec.db).add(name, labels)
    views.render_token_added(stderr, name, labels)
    click.echo(value)


@token.command("list")
@db_options
@json_option
def token_list(spec: GraphSpec, as_json: bool) -> None:
    """Tokens by name, with their labels and whether they are revoked (never the tokens themselves)."""
    from citegraph.serve.tokens import TokenStore

    listed = [t.to_json() for t in TokenStore(spec.db).list()]
    if as_json:
        print_json(listed)
    else:
        click.echo(views.tokens_text(listed), nl=False)


@token.command("revoke")
@click.argument("name")
@db_options
def token_revoke(name: str, spec: GraphSpec) -> None:
    """Revoke token NAME: requests with it are refused from now on."""
    from citegraph.serve.tokens import TokenStore

    TokenStore(spec.db).revoke(name)
    views.render_token_revoked(stderr, name)
