"""``citegraph eval answers CORPUS/``: right answers on a corpus of the documents people keep (issue 35).

A corpus is a folder with ``corpus.json`` and its documents (Markdown, HTML, PDF, chat exports...):

.. code-block:: json

    {"name": "...", "licence": "...",
     "documents": [{"path": "docs/handbook.md", "access": ["public"]}],
     "questions": [{"id": "q1", "kind": "long_fact", "split": "dev", "caller": ["public"],
                    "question": "...", "answers": ["25 days"], "required": [],
                    "gold": [{"document": "docs/handbook.md", "quote": "..."}], "stale": null}],
     "conflicts": [{"a": {"document": "...", "quote": "..."}, "b": {...}, "conflict": true}]}

The documents are ingested as the CLI ingests files (each with its access labels) into
``OUT/answers-NAME.db`` (reused when present), and every question is asked by its caller, as
``citegraph ask`` asks with the default settings. Each answer is judged:

- **right**: for a question with answers, one of them (casefolded, punctuation and articles aside)
  is inside the answer's lead (the reader's words it shows first), text or claims, and every ``required`` group has one of its aliases there;
  for a question without (not in the documents, or not visible to its caller), the answer abstained
  (``not_found`` or ``no_evidence``);
- **abstained**: ``not_found`` or ``no_evidence``;
- **confidently wrong**: not right, with a status shown as checked (``verified`` or ``quoted``);
- **stale named** (``stale`` questions): a ``stale`` warning names the old document.

Reported per split and question kind, with seconds per question, beside two baselines in the same
run: the same questions through ``--baseline`` retrieval (dense sentence search by default, the same
answerer) and "always abstain" (right exactly on the questions without an answer).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citegraph.answer.citations import cited_markers
from citegraph.conversation import Turn
from citegraph.errors import UserError
from citegraph.eval import Bars, no_bars
from citegraph.eval.answers import ABSTAINED, said
from citegraph.models import Answer, AnswerStatus

__all__ = [
    "CHECKED",
    "Conversation",
    "Corpus",
    "CorpusQuestion",
    "follow_ups",
    "is_corpus",
    "judge",
    "load_conversations",
    "load_corpus",
    "report",
    "run",
]

CHECKED = frozenset({AnswerStatus.VERIFIED, AnswerStatus.QUOTED})  #: statuses a person reads as "checked"


@dataclass(frozen=True)
class Quote:
    document: str
    quote: str


@dataclass(frozen=True)
class CorpusQuestion:
    id: str
    kind: str
    split: str
    caller: tuple[str, ...]
    question: str
    answers: tuple[str, ...]
    required: tuple[tuple[str, ...], ...]
    gold: tuple[Quote, ...]
    stale_old: str | None  #: for a ``stale`` question, the document whose value is out of date


@dataclass(frozen=True)
class Conversation:
    """Turns asked one after another; the last is a follow-up whose standalone form is a corpus question."""

    id: str
    turns: tuple[str, ...]
    standalone: str  #: the id of the corpus question the last turn stands for (its gold, caller and split)
    written: str = ""  #: "after the rules": written once the follow-up rules were fixed, never tuned on


@dataclass(frozen=True)
class Corpus:
    name: str
    root: Path
    documents: tuple[tuple[str, tuple[str, ...]], ...]  #: (path under root, access labels)
    questions: tuple[CorpusQuestion, ...]
    conflicts: tuple[tuple[Quote, Quote, bool], ...]
    conversations: tuple[Conversation, ...] = ()  #: from ``conversations.json`` beside ``corpus.json``, when there is one


def is_corpus(path: Path) -> bool:
    return path.is_dir() and (path / "corpus.json").is_file()


def _field(row: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if key not in row:
        raise UserError(f"{where}: missing field {key!r}")
    if not isinstance(row[key], kind):
        raise UserError(f"{where}: field {key!r} must be {getattr(kind, '__name__', kind)}, not {type(row[key]).__name__}")
    return row[key]


def _quote(row: Any, where: str) -> Quote:
    if not isinstance(row, dict):
        raise UserError(f"{where}: must be an object with 'document' and 'quote'")
    return Quote(_field(row, "document", where, str), _field(row, "quote", where, str))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON ({exc}); fix the file") from exc


def load_corpus(folder: Path) -> Corpus:
    """Read ``folder/corpus.json``; a missing field or document is a :class:`UserError` naming it."""
    path = folder / "corpus.json"
    data = _read_json(path)
    documents = []
    for i, row in enumerate(_field(data, "documents", str(path), list)):
        where = f"{path}: documents[{i}]"
        doc = _field(row, "path", where, str)
        if not (folder / doc).is_file():
            raise UserError(f"{where}: no file {folder / doc}")
        documents.append((doc, tuple(_field(row, "access", where, list)) if "access" in row else ("public",)))
    questions = []
    seen: set[str] = set()
    for i, row in enumerate(_field(data, "questions", str(path), list)):
        where = f"{path}: questions[{i}]"
        qid = _field(row, "id", where, str)
        if qid in seen:
            raise UserError(f"{where}: id {qid!r} is used twice")
        seen.add(qid)
        split = _field(row, "split", where, str)
        if split not in ("dev", "test"):
            raise UserError(f"{where}: split must be 'dev' or 'test', not {split!r}")
        stale = row.get("stale") or {}
        questions.append(
            CorpusQuestion(
                id=qid,
                kind=_field(row, "kind", where, str),
                split=split,
                caller=tuple(row.get("caller") or ("public",)),
                question=_field(row, "question", where, str),
                answers=tuple(_field(row, "answers", where, list)),
                required=tuple(tuple(group) for group in row.get("required") or ()),
                gold=tuple(_quote(g, f"{where}: gold") for g in row.get("gold") or ()),
                stale_old=_quote(stale["old"], f"{where}: stale.old").document if stale.get("old") else None,
            )
        )
    conflicts = tuple(
        (_quote(c.get("a"), f"{path}: conflicts[{i}].a"), _quote(c.get("b"), f"{path}: conflicts[{i}].b"), bool(c.get("conflict")))
        for i, c in enumerate(data.get("conflicts") or ())
    )
    conversations = load_conversations(folder, {q.id for q in questions})
    return Corpus(str(data.get("name") or folder.name), folder, tuple(documents), tuple(questions), conflicts, conversations)


def load_conversations(folder: Path, questions: set[str]) -> tuple[Conversation, ...]:
    """``conversations.json`` beside a corpus (none: no conversations): ``{"conversations": [{"id",
    "turns": [question, ...], "standalone": corpus question id}]}``."""
    path = folder / "conversations.json"
    if not path.is_file():
        return ()
    data = _read_json(path)
    out = []
    for i, row in enumerate(_field(data, "conversations", str(path), list)):
        where = f"{path}: conversations[{i}]"
        turns = _field(row, "turns", where, list)
        if len(turns) < 2 or not all(isinstance(t, str) and t.strip() for t in turns):
            raise UserError(f"{where}: turns must be two or more questions (text)")
        standalone = _field(row, "standalone", where, str)
        if standalone not in questions:
            raise UserError(f"{where}: standalone {standalone!r} is no question id of corpus.json")
        out.append(Conversation(_field(row, "id", where, str), tuple(turns), standalone, str(row.get("written", ""))))
    return tuple(out)


def _stem(path: str) -> str:
    return Path(path).name


def judge(q: CorpusQuestion, answer: Answer) -> dict[str, Any]:
    """One row: the question's verdicts (right, abstained, confidently wrong, stale named)."""
    # what the answer shows: its lead (the reader's words in a cited sentence, shown first as "A: …"), its text, its claims
    text = " ".join([answer.lead.text if answer.lead is not None else "", answer.text, *(c.text for c in answer.claims)])
    abstained = answer.status in ABSTAINED
    if q.answers or q.required:
        right = (not q.answers or said(q.answers, text)) and all(said(group, text) for group in q.required) and not abstained
    else:
        right = abstained
    stale_named = None
    if q.stale_old:
        stale_named = any(w.code == "stale" and _stem(str(dict(w.data).get("document", ""))) == _stem(q.stale_old) for w in answer.warnings)
    context = " ".join(item.span.text for item in answer.context)
    # the ceiling: what an answerer could have quoted (every required part somewhere in the context)
    in_context = bool(q.answers or q.required) and (not q.answers or said(q.answers, context)) and all(said(g, context) for g in q.required)
    reading = answer.answerability.reading if answer.answerability is not None else None
    cited = cited_markers(answer.claims)
    return {
        "id": q.id,
        "kind": q.kind,
        "split": q.split,
        "answerable": bool(q.answers or q.required),
        "status": answer.status.value,
        "right": right,
        # the share of the required parts the answer holds (a summary's five points, a list's items): partial credit
        "parts": None if not q.required else 0.0 if abstained else round(sum(said(g, text) for g in q.required) / len(q.required), 4),
        "abstained": abstained,
        "confidently_wrong": not right and answer.status in CHECKED,
        "in_context": in_context,
        "stale_named": stale_named,
        # what could tell a right answer from a wrong one before it is shown (issue 35, item 4)
        "relevance": answer.relevance.label,
        "reading_p": None if reading is None else round(reading.probability, 4),
        "features": {} if answer.answerability is None else dict(answer.answerability.features),
        "reading_cited": None if reading is None else reading.marker in cited,
        "claims": [c.text for c in answer.claims],
        "text": answer.text,
    }


def prepare(graph: Any, corpus: Corpus) -> list[str]:
    """Ingest the documents as the CLI does, grouped by their access labels, unless the store holds
    some; returns the documents the ingest failed or skipped, with why (the report names them: a
    corpus may hold a format citegraph does not read yet, and its questions then count as wrong)."""
    if graph.store.documents(None):
        return []
    groups: dict[tuple[str, ...], list[Path]] = defaultdict(list)
    for doc, access in corpus.documents:
        groups[access].append(corpus.root / doc)
    missed = []
    for access, paths in groups.items():
        report = graph.ingest(paths, access=access)
        missed += [f"{d.id} ({d.status.value}: {d.reason})" for d in report.documents if d.status.value in ("failed", "skipped")]
    return missed


def evaluate(graph: Any, corpus: Corpus, advance: Callable[..., None] = lambda *_a: None) -> list[dict[str, Any]]:
    rows = []
    for n, q in enumerate(corpus.questions, 1):
        started = time.perf_counter()
        answer = graph.ask(q.question, labels=q.caller)
        rows.append({**judge(q, answer), "seconds": round(time.perf_counter() - started, 4)})
        advance(n, len(corpus.questions))
    return rows


def follow_ups(graph: Any, corpus: Corpus, advance: Callable[..., None] = lambda *_a: None) -> list[dict[str, Any]]:
    """Each conversation asked turn by turn, every turn with the ones before it; the last judged as
    its standalone question is (:func:`judge`), with what the follow-up was read as."""
    by_id = {q.id: q for q in corpus.questions}
    rows = []
    for n, conversation in enumerate(corpus.conversations, 1):
        q = by_id[conversation.standalone]
        history: list[Turn] = []
        started = time.perf_counter()
        for text in conversation.turns:
            answer = graph.ask(text, labels=q.caller, conversation=tuple(history))
            history.append(Turn.of(answer))
        rows.append(
            {
                **judge(q, answer),
                "id": conversation.id,
                "standalone": q.id,
                "asked": conversation.turns[-1],
                "read_as": answer.question,
                "written": conversation.written,
                "seconds": round(time.perf_counter() - started, 4),
            }
        )
        advance(n, len(corpus.conversations))
    return rows


def _follow_up_lines(rows: Sequence[dict[str, Any]], product: Sequence[dict[str, Any]], read_by: str) -> tuple[dict[str, Any], list[str]]:
    alone = {r["id"]: r for r in product}
    result: dict[str, Any] = {"read_by": read_by}
    lines = [
        "",
        "## Follow-ups",
        "",
        "Each conversation asked turn by turn (`conversations.json`); its last turn, a follow-up, judged against the corpus "
        f"question it stands for, and beside it that question asked on its own in the run above. Follow-ups read by {read_by}.",
        "",
        "| split | n | follow-up right | the same questions asked alone, right | difference | follow-up confidently wrong |",
        "|---|---|---|---|---|---|",
    ]
    for split in ("dev", "test", "written after the rules"):
        part = [r for r in rows if (r["written"] == "after the rules" if split.startswith("written") else r["split"] == split)]
        if not part:
            continue
        right = sum(r["right"] for r in part) / len(part)
        standalone = sum(alone[r["standalone"]]["right"] for r in part) / len(part)
        wrong = sum(r["confidently_wrong"] for r in part) / len(part)
        result[split] = {"n": len(part), "right": right, "standalone_right": standalone, "confidently_wrong": wrong}
        lines.append(f"| {split} | {len(part)} | {right:.3f} | {standalone:.3f} | {right - standalone:+.3f} | {wrong:.3f} |")
    lines += ["", "| conversation | split | follow-up | read as | right | alone, right | written |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['id']} | {r['split']} | {r['asked']} | {r['read_as']} | {'yes' if r['right'] else 'no'} "
            f"| {'yes' if alone[r['standalone']]['right'] else 'no'} | {r['written'] or 'with the rules'} |"
        )
    return result, lines


def _rates(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)

    def share(key: str) -> float | None:
        return sum(1 for r in rows if r[key]) / n if n else None

    stale = [r for r in rows if r["stale_named"] is not None]
    answerable = [r for r in rows if r["answerable"]]
    return {
        "n": n,
        "right": share("right"),
        # of the questions with required parts, the mean share of them in the answer
        "parts": sum(parts) / len(parts) if (parts := [r["parts"] for r in rows if r.get("parts") is not None]) else None,
        # of the answerable questions, the gold answer somewhere in the context (what retrieval allowed)
        "in_context": sum(1 for r in answerable if r.get("in_context")) / len(answerable) if answerable else None,
        "abstained": share("abstained"),
        "confidently_wrong": share("confidently_wrong"),
        "stale_named": sum(1 for r in stale if r["stale_named"]) / len(stale) if stale else None,
        "always_abstain": sum(1 for r in rows if not r["answerable"]) / n if n else None,
        "seconds": sum(r["seconds"] for r in rows) / n if n else None,
    }


def _fmt(v: float | None, digits: int = 3) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def report(name: str, runs: dict[str, list[dict[str, Any]]], setup: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Per split and kind, each run's rates; ``runs`` maps a method (``product``, a baseline) to its rows."""
    result: dict[str, Any] = {"setup": setup}
    for method, rows in runs.items():
        result[method] = {
            split: {
                "all": _rates(part),
                "by_kind": {k: _rates([r for r in part if r["kind"] == k]) for k in sorted({r["kind"] for r in part})},
            }
            for split in ("dev", "test")
            for part in [[r for r in rows if r["split"] == split]]
        }
    lines = [
        f"# Right answers on {name}",
        "",
        f"Generator {setup['generator']}, verifier {setup['verifier']}, retrieval {setup['retrieval']}, context {setup.get('context_size', 8)} sentences; "
        f"{setup['questions']} questions; {setup['seconds']:.0f} s in all.",
        "",
        "Right: the gold answer (every required part) in the answer, or an abstention where the documents visible to the "
        "caller do not answer. Confidently wrong: not right, shown as checked (verified or quoted). In context: of the "
        "answerable questions, the gold answer (every required part) anywhere in the answerer's context: retrieval's ceiling. "
        "Parts: of the questions with required parts (a summary's points), the mean share of them in the answer (an abstention holds none).",
        "",
        *([f"Not ingested (their questions count as wrong): {'; '.join(setup['not_ingested'])}.", ""] if setup.get("not_ingested") else []),
        "| split | kind | n | right | parts | in context | abstained | confidently wrong | stale named | s/question | "
        + " | ".join(f"right, {m}" for m in runs if m != "product")
        + " | right, always abstain |",
        "|---|---|---|---|---|---|---|---|---|---|" + "---|" * (len(runs) - 1) + "---|",
    ]
    for split in ("dev", "test"):
        kinds = ["all", *sorted(result["product"][split]["by_kind"])]
        for kind in kinds:
            cell = {m: (result[m][split]["all"] if kind == "all" else result[m][split]["by_kind"].get(kind)) for m in runs}
            p = cell["product"]
            if not p or not p["n"]:
                continue
            others = " | ".join(_fmt((cell[m] or {}).get("right")) for m in runs if m != "product")
            lines.append(
                f"| {split} | {'**all**' if kind == 'all' else kind} | {p['n']} | {_fmt(p['right'])} | {_fmt(p['parts'])} | {_fmt(p['in_context'])} | {_fmt(p['abstained'])} "
                f"| {_fmt(p['confidently_wrong'])} | {_fmt(p['stale_named'])} | {_fmt(p['seconds'], 2)} | "
                + (others + " | " if others else "")
                + f"{_fmt(p['always_abstain'])} |"
            )
    return result, "\n".join(lines) + "\n"


def run(
    folder: Path,
    open_graph: Callable[..., Any],
    *,
    out: Path,
    name: str,
    baseline: str | None = "dense-sentence",
    bars: Bars = no_bars,
) -> tuple[dict[str, Any], Path]:
    """Ingest ``folder``'s corpus into ``OUT/answers-NAME.db``, ask every question (and again through
    ``baseline`` retrieval), write ``answers-NAME.md`` and ``.json``; returns the result and the report's path."""
    corpus = load_corpus(folder)
    out.mkdir(parents=True, exist_ok=True)
    db = out / f"answers-{name}.db"
    started = time.perf_counter()
    with open_graph(db) as graph:
        missed = prepare(graph, corpus)
    runs: dict[str, list[dict[str, Any]]] = {}
    with open_graph(db) as graph, bars(f"{name}: ask") as advance:
        runs["product"] = evaluate(graph, corpus, advance)
        models = dict(graph.models())
        retrieval = graph.spec.retrieval
        context_size = graph.spec.context_size
    conversations: list[dict[str, Any]] = []
    rewriter = "rules only"
    if corpus.conversations:
        with open_graph(db) as graph, bars(f"{name}: follow-ups") as advance:
            conversations = follow_ups(graph, corpus, advance)
            rewriter = "rules, then " + graph.rewriter.name if graph.rewriter is not None else rewriter
    if baseline:
        with open_graph(db, retrieval=baseline) as graph, bars(f"{name}: ask ({baseline})") as advance:
            runs[baseline] = evaluate(graph, corpus, advance)
    setup = {
        "data": str(folder),
        "questions": len(corpus.questions),
        "documents": len(corpus.documents),
        "generator": models.get("generator"),
        "verifier": models.get("verifier"),
        "embedder": models.get("embedder"),
        "retrieval": retrieval,
        "context_size": context_size,
        "not_ingested": missed,
        "seconds": time.perf_counter() - started,
    }
    result, text = report(name, runs, setup)
    if conversations:
        result["follow_ups"], more = _follow_up_lines(conversations, runs["product"], rewriter)
        text += "\n".join(more) + "\n"
    md = out / f"answers-{name}.md"
    md.write_text(text, encoding="utf-8")
    (out / f"answers-{name}.json").write_text(
        json.dumps({"result": result, "rows": runs, "follow_ups": conversations}, indent=1) + "\n", encoding="utf-8"
    )
    return result, md
