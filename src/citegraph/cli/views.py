"""The terminal views of the CLI: rich tables and lines for each command's result.

Every view prints data through :func:`safe` (control characters escaped) as rich ``Text`` (no
markup read from data): a document or a file name cannot drive the terminal. The ``--json`` shapes
they share data with live in :mod:`citegraph.output`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from citegraph.models import (
    ANSWER_TERMS,
    CLAIM_TERMS,
    Answer,
    AnswerStatus,
    Citation,
    CommunityReport,
    Entity,
    Hop,
    IngestReport,
    ReachedNode,
    Relation,
    Relevance,
    Span,
)
from citegraph.store.base import DeleteResult, Problem, RelabelResult, StoredDocument

if TYPE_CHECKING:
    from citegraph.components import ModelsReport
from citegraph.output.records import documents_json, ingest_json


def _relevance_text(r: Relevance) -> str:
    if r.label == "unchecked":
        return f"not checked ({r.note})"
    parts = [] if r.expected is None else [f"asks for a {r.expected}: {'stated' if r.found_type else 'none stated'}"]
    if r.coverage is not None:
        parts.append(
            f"mentions {len(r.terms) - len(r.missing)} of {len(r.terms)} question terms"
            + (f", not {', '.join(r.missing)}" if r.missing else "")
        )
    return f"{r.label.replace('_', ' ')} ({'; '.join(parts)}; by {r.method}, not a support check)"


# -- terminal safety -------------------------------------------------------------------------------
# C0 controls, DEL, C1 controls (8-bit CSI is one), line/paragraph separators, the bidirectional
# marks, embeddings, overrides and isolates that can make a name read backwards, and the zero-width
# characters and byte-order mark that make two names look the same.
_INVISIBLE = "\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff"


_UNSAFE = re.compile(f"[{_INVISIBLE}]")


# Outside prose a backslash is escaped too, so the escapes are one-to-one: a name holding a newline
# prints as x\ny.txt and one holding a backslash and an n as x\\ny.txt, never the same.
_UNSAFE_NAME = re.compile(f"[{_INVISIBLE}\\\\]")


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def safe(value: object, *, prose: bool = False) -> str:
    """``value`` as it may reach a terminal: every control character (C0, DEL, C1) and bidirectional
    override, and every zero-width character, shown as a visible escape (ESC -> ``\\x1b``, newline
    -> ``\\n``, zero-width space -> ``\\u200b``), so a document or a file name can neither clear,
    recolour or retitle the terminal nor split a row, nor pass for another. A backslash is shown as
    ``\\\\``, so two values never print alike and :func:`unescape` gives back exactly the one printed.
    With ``prose`` (a quoted sentence) newlines and tabs are shown as spaces and backslashes as
    they are: layout and text, not names.

    Markup is never read from data either: every view prints :class:`rich.text.Text` (:func:`line`),
    which rich takes literally, and the CLI's consoles read no markup, emoji codes or highlighting.
    JSON output does not pass through here: ``json.dumps`` escapes control characters itself."""
    text = str(value)
    if prose:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ").replace("\t", " ")
        return _UNSAFE.sub(_escape_char, text)
    return _UNSAFE_NAME.sub(_escape_char, text)


_ESCAPED = re.compile(r"\\(\\|n|r|t|x[0-9a-f]{2}|u[0-9a-f]{4})")


def unescape(text: str) -> str:
    """What :func:`safe` printed, back as the value it escaped (``new\\nline.txt`` -> ``new``, newline,
    ``line.txt``), so a name copied from the terminal can be given back to a command."""

    def back(match: re.Match[str]) -> str:
        code = match.group(1)
        return {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}.get(code) or chr(int(code[1:], 16))

    return _ESCAPED.sub(back, text)


def _visible(text: str) -> str:
    """Every invisible or control character of ``text`` as its escape; nothing else changed. What it
    returns it leaves alone, so text a view made :func:`safe` already passes through unchanged."""
    return _UNSAFE.sub(_escape_char, text)


def line(*parts: str | tuple[str, str]) -> Text:
    """One line of output from ``text`` or ``(text, style)`` parts, every control and invisible
    character of each escaped (a name that must print one-to-one is made :func:`safe` by its view)."""
    return Text.assemble(*((_visible(p), "") if isinstance(p, str) else (_visible(p[0]), p[1]) for p in parts))


def quote(text: str) -> str:
    """A source sentence as shown in a view: in quotation marks, its layout whitespace as spaces."""
    return f"“{safe(text, prose=True)}”"


def say(console: Console, *parts: str | tuple[str, str]) -> None:
    console.print(line(*parts))


def render_error(console: Console, message: object, *, label: str = "error", style: str = "red") -> None:
    """``error: message`` (or ``warning:``, ``note:``) on one line, whatever the message contains."""
    say(console, (f"{label}:", style), " ", str(message))


class ProgressUpdate(Protocol):
    def __call__(self, done: int, total: int | None, current: str = "") -> None: ...


@contextmanager
def progress(console: Console, label: str, *, disable: bool = False) -> Iterator[ProgressUpdate]:
    """A progress bar; yields ``update(done, total, current)``. Neither the label nor the current
    item's name (a file name) is read as markup or reaches the terminal unescaped."""
    with Progress(
        TextColumn("{task.fields[label]}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}", markup=False),
        console=console,
        disable=disable,
        transient=False,
    ) as bar:
        task = bar.add_task("", total=None, label=safe(label))

        def update(done: int, total: int | None, current: str = "") -> None:
            bar.update(task, completed=done, total=total, description=safe(current))

        yield update


# -- rich views ------------------------------------------------------------------------------------
#: a tone of the vocabulary (:data:`~citegraph.models.ANSWER_TERMS`) as a terminal style
_TONE_STYLE = {"good": "green", "caution": "yellow", "bad": "red", "muted": "dim"}


_STATUS_STYLE = {
    **{code: _TONE_STYLE[term.tone] for code, term in CLAIM_TERMS.items()},
    **{status.value: _TONE_STYLE[term.tone] for status, term in ANSWER_TERMS.items()},
    "verified": "bold green",
    "contradicted": "bold red",
}


_RELEVANCE_STYLE = {"addressed": "green", "partly_addressed": "yellow", "not_addressed": "red"}


def _route_text(route: Sequence[Hop]) -> str:
    if not route:
        return ""
    parts = [route[0].source]
    for h in route:
        arrow = f"-[{h.relation}]->" if h.direction == "out" else f"<-[{h.relation}]-"
        parts.append(f"{arrow} {h.target}")
    return safe(" ".join(parts))


def _found_text(c: Citation) -> str:
    if c.community:
        return f"stands for community {safe(c.community)} of the graph (`citegraph communities` lists its entities and documents)"
    if c.route:
        about = " (a passage about it)" if c.found_by == "bridge" else ""
        return f"route: {_route_text(c.route)}{about}"
    if c.entity:
        return f"found as a {'relation' if c.found_by == 'relation' else 'mention'} of seed entity '{safe(c.entity)}'"
    if c.found_by == "passage":
        return "found in a passage similar to the question"
    if c.found_by == "time":
        return "the time of the conversation or message a quoted line belongs to (the question asks when)"
    if c.found_by == "sender":
        return "who sent the message a quoted sentence is from (the question asks who)"
    if c.found_by == "subject":
        return "the sentence before a quoted one that opens with a pronoun: it names what the pronoun stands for"
    if c.found_by == "summary":
        return "the sentence that stands for its section of the document the question names"
    return "found by sentence similarity to the question"


def _where(span: Span, *, version: bool = True) -> str:
    """``document@version:start-end``, the document id made safe."""
    return safe(span.where) if version else f"{safe(span.document)}:{span.start}-{span.end}"


def render_answer(console: Console, answer: Answer, *, routes: int = 0) -> None:
    """The answer, each claim with its cited spans; with ``routes``, that many traversal routes too."""
    status = answer.status.value
    console.print(line((f"Q: {safe(answer.question, prose=True)}", "bold")))
    if answer.retrieval.spelled_out:
        pairs = "; ".join(f"{short} = {long}" for short, long in answer.retrieval.spelled_out)
        console.print(line((f"(read with the abbreviations the documents define spelled out: {safe(pairs, prose=True)})", "dim")))
    console.print(line(("status: ", "dim"), (status, _STATUS_STYLE.get(status, ""))))
    if answer.status is AnswerStatus.QUOTED:
        console.print(line(("(each claim quotes the sentence it cites: support is exact, the choice of sentences is retrieval's)", "dim")))
    if answer.status is AnswerStatus.RELATED and answer.retrieval.summary:
        console.print(
            line(
                (
                    f"(an overview of {safe(answer.retrieval.summary)}: one quote per community of the graph; "
                    "that they are its main points is not checked)"
                    if answer.retrieval.communities
                    else f"(a summary of {safe(answer.retrieval.summary)}: one quote per section; that they sum it up is not checked)",
                    "dim",
                )
            )
        )
    elif answer.status is AnswerStatus.RELATED:
        console.print(
            line(
                (
                    "(the cited sentences support the claims, but nothing shows they answer the question: related evidence, not an answer)",
                    "dim",
                )
            )
        )
    if answer.status is AnswerStatus.NOT_FOUND:
        console.print(line(("the documents visible to you do not answer this question", "bold")))
        for w in answer.warnings:
            console.print(line((f"warning [{w.code}]: {w.message}", "yellow")))
        console.print(line(("nearest evidence (context only, not an answer):", "dim")))
        for item in answer.context[:3]:
            console.print(line((f"   [{item.marker}] ", "cyan"), (f"{_where(item.span)} ", "dim"), quote(item.span.text)))
        return
    if answer.lead is not None:
        console.print(
            line(
                ("A: ", "bold"),
                (safe(answer.lead.text, prose=True), "bold green"),
                (f" [{answer.lead.marker}]", "cyan"),
                (f"  (the reader's words in the sentence it cites, P {answer.lead.probability:.2f})", "dim"),
            )
        )
    console.print(
        line(
            ("answers the question: ", "dim"),
            (safe(_relevance_text(answer.relevance)), _RELEVANCE_STYLE.get(answer.relevance.label, "dim")),
        )
    )
    console.print()
    for i, claim in enumerate(answer.claims, 1):
        style = _STATUS_STYLE.get(claim.status.value, "")
        console.print(line((f"{i}. ", "bold"), (safe(claim.text, prose=True), style), (f"  [{claim.status.value}]", "dim")))
        for c in claim.citations:
            score = "" if c.support.score is None else f" {c.support.score:.2f}" + ("" if c.support.calibrated else " uncalibrated")
            console.print(
                line(
                    (f"   [{c.marker}] ", "cyan"),
                    (f"{_where(c.span)} ", "dim"),
                    quote(c.span.text),
                    (f"  support: {c.support.label}{score} (decided by {c.support.stage}; {c.support.verifier})", "dim"),
                )
            )
            for guard in c.support.guards:
                console.print(line((f"       guard: {guard}", "red" if c.support.label != "supported" else "dim")))
            console.print(line((f"       {_found_text(c)}", "dim")))
    for w in answer.warnings:
        console.print(line((f"warning [{w.code}]: {w.message}", "yellow")))
    if any(c.support.stage == "judge" and c.support.calibrated is False for claim in answer.claims for c in claim.citations):
        console.print(
            line(("note: the judge has no calibration record: its scores are raw P(yes), not measured probabilities of support", "yellow"))
        )
    seeds = ", ".join(answer.retrieval.seeds) or "-"
    console.print(line((f"seeds: {seeds}; reached {len(answer.retrieval.nodes)} entities within {answer.retrieval.hops} hops", "dim")))
    if routes:
        console.print(line(("routes (how retrieval reached entities; a route finds evidence, only a span supports a claim):", "dim")))
        for node in [n for n in answer.retrieval.nodes if n.route][:routes]:
            console.print(line((f"   {_route_text(node.route)}   ({_where(node.route[-1].span, version=False)})", "dim")))


def render_ingest(console: Console, report: IngestReport) -> None:
    data = ingest_json(report)
    table = Table("document", "status", "sentences", "entities", "relations", "rejected")
    notes: list[Text] = []
    for d in data["documents"]:
        style = {"failed": "red", "partial": "dark_orange", "skipped": "yellow", "empty": "dim"}.get(d["status"], "")
        table.add_row(
            line(safe(d["id"])),
            line((d["status"], style)),
            str(d["sentences"]),
            str(d["entities"]),
            str(d["relations"]),
            str(len(d["rejected"])),
        )
        if d["reason"]:  # full width below the table: a squeezed column would cut the fix off
            notes.append(line((f"{safe(d['id'])} ", "bold"), (d["status"], style), f": {d['reason']}"))
        notes.extend(line((f"{safe(d['id'])} ", "bold"), ("note", "dim"), f": {note}") for note in d["notes"])
    console.print(table)
    for note in notes:
        console.print(note)
    for r in data["rejected"]:
        console.print(line((f"rejected {r['kind']} ({r['reason']}): {r['detail']}", "yellow")))
    extractors = Counter(d["extractor"] for d in data["documents"] if d["extractor"])
    if extractors:  # an import file names some documents; the configured extractor did the rest
        say(console, ("extracted by ", "dim"), (", ".join(f"{name} ({n} document(s))" for name, n in sorted(extractors.items())), "dim"))
    t = data["totals"]
    say(
        console,
        f"{t['documents']} documents: {t['ok']} ok, {t['empty']} empty, {t['partial']} partial, {t['failed']} failed, "
        f"{t['unchanged']} unchanged, {t['skipped']} skipped; {t['sentences']} sentences, {t['entities']} entity mentions, "
        f"{t['relations']} relations, {t['rejected']} rejected",
    )


def render_nodes(console: Console, nodes: Sequence[ReachedNode]) -> None:
    """``citegraph traverse``: each reached entity, indented by depth, with the route that reached it."""
    for n in nodes:
        say(console, f"{'  ' * n.depth}{n.name}", (f" (depth {n.depth})", "dim"), (f"  {_route_text(n.route)}", "dim"))


def render_entity(console: Console, entity: Entity) -> None:
    """``citegraph show entity``: every mention with its span; superseded ones flagged."""
    say(console, (entity.name, "bold"), f" (key {entity.key!r}), {len(entity.mentions)} mention(s)")
    for m in entity.mentions:
        flag = ("", "") if m.current else (" (superseded)", "yellow")
        say(console, f"  {_where(m.span)}", flag, " ", quote(m.span.text))


def render_relations(console: Console, relations: Sequence[Relation]) -> None:
    """``citegraph show relations``: one row per asserting sentence."""
    for r in relations:
        say(console, f"{r.source} -[{r.type}]-> {r.target}  ", (f"{_where(r.span, version=False)} {quote(r.span.text)}", "dim"))


def render_documents(console: Console, docs: Sequence[StoredDocument]) -> None:
    """``citegraph documents``: one line per stored version."""
    for d in documents_json(docs):
        state = "current" if d["current"] else "superseded"
        say(
            console,
            f"{safe(d['id'])} {d['version'][:8]} {state} {d['status']}: {d['sentences']} sentences, {d['entities']} entities, "
            f"{d['relations']} relations, access {','.join(d['access'])}",
        )


def render_communities(console: Console, reports: Sequence[CommunityReport]) -> None:
    """``citegraph communities``: per community its id, size, central entities, documents and summary."""
    if not reports:
        say(console, ("no communities: the visible graph has no two entities joined by a relation or a shared sentence", "dim"))
    for c in reports:
        parent = f" (in {c.parent})" if c.parent else ""
        say(console, (f"{c.id}{parent}", "bold"), f" {c.size} entities: {safe(', '.join(c.names[:6]))}")
        docs = ", ".join(f"{safe(d)} ({n})" for d, n in c.documents[:4])
        say(console, (f"  documents: {docs}{' …' if len(c.documents) > 4 else ''}", "dim"))
        for span in c.summary:
            say(console, f"  - {safe(' '.join(span.text.split()))} ", (f"[{safe(span.document)}:{span.start}-{span.end}]", "dim"))


def render_history(console: Console, docs: Sequence[StoredDocument]) -> None:
    """``citegraph history``: every version of one document, current first."""
    for d in documents_json(docs):
        state = ("current", "green") if d["current"] else ("superseded", "dim")
        say(
            console,
            f"{d['version']}{' (' + d['label'] + ')' if d['label'] else ''} ",
            state,
            f" ingested {d['ingested_at']} {d['status']}: {d['sentences']} sentences, {d['entities']} entities, {d['relations']} relations",
        )


def render_removed(console: Console, warnings: Console, results: Sequence[DeleteResult], *, postgres: bool = False) -> None:
    """``citegraph rm``: what each deletion removed; a warning (on ``warnings``) if the deleted text may
    remain on disk (SQLite: in the write-ahead log; PostgreSQL: in pages another snapshot still sees)."""
    for r in results:
        say(
            console,
            f"removed {safe(r.doc_id)}: {r.versions} version(s), {r.spans} spans, {r.mentions} mentions, "
            f"{r.relations} relations; {r.entities} entities had no other source and were removed",
        )
        if not r.purged:
            why = (
                "another connection's open snapshot could still see the deleted rows, so their text may remain in the "
                "table files; when it ends, the next rm (or VACUUM (FULL) on the store's tables) clears it"
                if postgres
                else "another connection kept the write-ahead log open, so the deleted text may remain in it; close the other "
                "readers, then the next rm (or sqlite3 DB 'PRAGMA wal_checkpoint(TRUNCATE)') clears it"
            )
            render_error(warnings, why, label="warning", style="yellow")


def render_relabel(console: Console, result: RelabelResult) -> None:
    """``citegraph relabel``: the labels before and after, and who gained or lost the document."""
    say(
        console, f"relabelled {safe(result.doc_id)} ({result.versions} version(s)): {', '.join(result.before)} -> {', '.join(result.after)}"
    )
    if result.gained:
        say(console, ("now readable", "yellow"), f" by callers holding {', '.join(result.gained)}")
    if result.lost:
        say(console, ("no longer readable", "yellow"), f" by callers holding only {', '.join(result.lost)}")
    if not (result.gained or result.lost):
        say(console, "nothing changed: the document already had these labels")


def render_check(console: Console, problems: Sequence[Problem]) -> None:
    """``citegraph check``: each finding, or that the store is consistent."""
    for p in problems:
        say(console, (p.kind, "red"), f": {p.detail}")
    if not problems:
        say(console, "store ok: offsets, references, vectors and versions are consistent")


def render_models(console: Console, report: ModelsReport) -> None:
    """``citegraph models``: configured models and whether each answers, then the known ones."""
    for c in report.configured:
        say(console, f"{c.role:<10} {c.spec:<40} {c.status}")
    console.print()
    say(console, f"known models (cache {report.cache}):")
    for k in report.known:
        mark = ("pulled", "green") if k.pulled else ("not pulled", "dim")
        say(console, f"  {k.spec:<28} ", mark, f"  {k.note}")


def render_demo(console: Console, report: IngestReport, answer: Answer) -> None:
    """``citegraph demo``: the ingest report, the checked answer with its routes, and how to read it."""
    console.rule("citegraph demo: the Larkspur handbook")
    render_ingest(console, report)
    console.print()
    render_answer(console, answer, routes=6)
    console.print()
    models = dict(answer.models)
    say(
        console,
        (
            f"Answer written by {models['generator']}, checked by {models['verifier']}. Each citation shows the exact span "
            "(document@version:start-end), the graph route that found it, and whether the span supports the claim: "
            "cited is not verified.",
            "dim",
        ),
    )


def render_lines(console: Console, text: str) -> None:
    """A multi-line text of our own making (a report), each line made safe."""
    for row in text.splitlines():
        say(console, row)


def tokens_text(tokens: Sequence[dict[str, Any]]) -> str:
    """``citegraph token list``: one tab-separated line per token (name, labels, state), for scripts;
    ``tokens`` as ``Token.to_json`` gives them."""
    rows = []
    for t in tokens:
        state = f"revoked {t['revoked_at']}" if t["revoked_at"] else "active"
        rows.append(f"{safe(t['name'])}\t{safe(','.join(t['labels']))}\t{state}\n")
    return "".join(rows)


def render_token_added(console: Console, name: str, labels: Sequence[str]) -> None:
    say(console, f"token {name!r} reads as {', '.join(labels)}; it is shown once, keep it now:")


def render_token_revoked(console: Console, name: str) -> None:
    say(console, f"token {name!r} revoked")
