"""``citegraph chat``: questions one after another, each read as a follow-up of the turns before it.

The models are loaded once for the session (the first answer pays for them, the rest do not), and a
follow-up ("Which office is she in?") is read from the last turns' questions and cited names, as the
page, the chat endpoint and MCP read it (:func:`citegraph.conversation.resolve`); the answer says what
it was read as. Questions come from standard input, one per line: typed at the ``>`` prompt, or piped
(``citegraph chat < questions.txt``). A line ``/new`` starts a new conversation; ``/quit`` or the end
of input ends it."""

from __future__ import annotations

import sys

import click

from citegraph import output
from citegraph.cli import views
from citegraph.cli.base import db_options, json_option, labels_option, main, open_graph, option, print_json, stdout
from citegraph.components import GraphSpec
from citegraph.conversation import MAX_TURNS, Turn
from citegraph.errors import CitegraphError
from citegraph.retrieve.modes import MODES
from citegraph.settings import setting

NEW = "/new"  #: the line that starts a new conversation
QUIT = "/quit"  #: the line that ends the session


@main.command()
@db_options
@labels_option
@option(setting("retrieval"), type=click.Choice(sorted(MODES)))
@option(setting("context-size"))
@option(setting("generator"))
@option(setting("verifier"))
@click.option("--as-of", "as_of", help="answer from the documents current on this day (YYYY-MM-DD)")
@json_option
def chat(
    spec: GraphSpec,
    labels: tuple[str, ...],
    retrieval: str,
    context_size: int,
    generator: str,
    verifier: str,
    as_of: str | None,
    as_json: bool,
) -> None:
    """Ask questions one after another (one per line on standard input); each is read in the light of
    the ones before ("Which office is she in?"). '/new' starts a new conversation, '/quit' ends.
    With --json, one answer JSON per line (JSON Lines)."""
    interactive = sys.stdin.isatty() and not as_json
    turns: list[Turn] = []
    with open_graph(spec.replace(retrieval=retrieval, context_size=context_size, generator=generator, verifier=verifier)) as graph:
        if interactive:
            stdout.print(f"Ask a question ('{NEW}' starts over, '{QUIT}' or Ctrl-D ends).")
        while True:
            line = _read(interactive)
            if line is None or line.strip() == QUIT:
                break
            question = line.strip()
            if not question:
                continue
            if question == NEW:
                turns.clear()
                if interactive:
                    stdout.print("New conversation.")
                continue
            try:
                answer = graph.ask(question, labels=labels, as_of=as_of, conversation=tuple(turns))
            except CitegraphError as exc:  # one bad line (too long, a bad date) or a model that failed does not end the session
                if as_json:
                    print_json({"question": question[:200], "error": str(exc)}, compact=True)
                else:
                    stdout.print(f"error: {exc}", markup=False)
                continue
            turns = [*turns, Turn.of(answer)][-MAX_TURNS:]
            if as_json:
                print_json(output.answer_json(answer), compact=True)
            else:
                views.render_answer(stdout, answer)
                stdout.print()


def _read(interactive: bool) -> str | None:
    """The next line of standard input (after a ``>`` prompt when typed), or None at its end."""
    if interactive:
        try:
            return input("> ")
        except EOFError:
            return None
    line = sys.stdin.readline()
    return line or None
