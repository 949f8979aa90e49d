"""Access control: labels filter traversal, context, citations, routes, show, traverse and export.

The property test is non-interference: what a caller holding labels L gets from the full store is
exactly what they would get from a store built only from the documents L may read.

Every test here runs on each store backend (``stores``: SQLite in memory, PostgreSQL; see conftest).
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citegraph.store.snapshots as snapshots
from citegraph.embed import HashingEmbedder
from citegraph.errors import NotFound, UserError
from citegraph.extract.base import Extractor
from citegraph.models import Document, DocumentStatus, ExtractedEntity, ExtractedRelation, Extraction
from citegraph.output import answer_json, communities_json, documents_json, entity_json, nodes_json, relations_json
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.retrieve.modes import MODES
from citegraph.sentences import Sentence, SentenceSplitter
from tests.conftest import Stores

PUBLIC = "Exports use the latest snapshot. Snapshot exports stay available for 30 days after cancellation."
PRIVATE = "Exports of payroll data use the archive vault. The archive vault keeps payroll for seven years."


@pytest.fixture
def graph(stores: Stores, splitter: SentenceSplitter) -> Iterator[CiteGraph]:
    """A fresh store of the backend under test, with the hashing embedder."""
    with CiteGraph(stores.new(), HashingEmbedder(), splitter=splitter) as g:
        yield g


def test_private_spans_and_relations_are_invisible_to_a_public_caller(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("public.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("hr.md", PRIVATE)], access=("hr",))

    # An entity in both: the public caller sees its public spans only.
    assert {m.span.document for m in graph.entity("export", labels=("public",)).mentions} == {"public.md"}
    assert {m.span.document for m in graph.entity("export", labels=("hr",)).mentions} == {"hr.md"}
    assert {m.span.document for m in graph.entity("export", labels=("public", "hr")).mentions} == {"public.md", "hr.md"}
    # Private-only entities and relations do not exist for the public caller.
    with pytest.raises(NotFound):
        graph.entity("vault", labels=("public",))
    assert all(r.span.document == "public.md" for r in graph.relations(labels=("public",)))
    reached = {n.entity for n in graph.traverse(["export"], labels=("public",), hops=3)}
    assert "vault" not in reached and "payroll" not in reached
    assert {"vault", "payroll"} <= {n.entity for n in graph.traverse(["export"], labels=("hr",), hops=3)}
    # Context, citations and routes.
    answer = graph.ask("Where do exports of payroll data go?", labels=("public",))
    text = json.dumps(answer_json(answer))
    assert "hr.md" not in text and "vault" not in text
    assert "vault" not in graph.export("json", labels=("public",))
    assert [d.document.id for d in graph.documents(labels=("public",))] == ["public.md"]


@contextlib.contextmanager
def _leaking(graph: CiteGraph) -> Iterator[None]:
    """A public and a private document, and a store that ignores the caller's labels on both graph
    read paths (the retriever reads columns from SQLite and GraphData from other stores): a store
    bug, or a saved view of other contents."""
    graph.ingest_texts([TextInput("public.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("hr.md", PRIVATE)], access=("hr",))
    leaky_rows, leaky_columns = graph.store.graph(None), graph.store.graph_columns(None)  # type: ignore[attr-defined]
    store = graph.store
    original = store.graph, store.graph_columns  # type: ignore[attr-defined]
    store.graph = lambda labels, include_superseded=False: leaky_rows  # type: ignore[method-assign]
    store.graph_columns = lambda labels, include_superseded=False: leaky_columns  # type: ignore[attr-defined]
    try:
        graph.retriever.clear_cache()
        assert any(s.document == "hr.md" for s in graph.retriever.view(("public",)).data.spans)  # the leak is real
        yield
    finally:
        store.graph, store.graph_columns = original  # type: ignore[method-assign, attr-defined]


def test_evidence_is_checked_again_when_the_context_is_built(graph: CiteGraph) -> None:
    """Even a view that leaks a private span (a store bug) cannot put it into the context."""
    with _leaking(graph):
        answer = graph.ask("Where do exports of payroll data go?", labels=("public",))
    assert answer.context and all(item.evidence.span.document == "public.md" for item in answer.context)


def test_every_read_checks_its_spans_against_the_live_store(graph: CiteGraph) -> None:
    """A view that leaks a private span (a saved view of other contents, a store bug) cannot pass
    it through traverse, the page's reach, show entity, show relations or export: every span they
    return is checked against the live store last, as the context is."""
    with _leaking(graph):
        seen = json.dumps(
            [
                nodes_json(graph.traverse(["export"], labels=("public",), hops=3)),
                nodes_json(graph.reach("Where do exports of payroll data go?", labels=("public",), hops=3)),
                entity_json(graph.entity("export", labels=("public",))),
                relations_json(graph.relations(labels=("public",), include_superseded=True)),
                json.loads(graph.export("json", labels=("public",))),
                graph.export("graphml", labels=("public",)),
            ]
        )
        with pytest.raises(NotFound):
            graph.entity("vault", labels=("public",))
    assert "hr.md" not in seen and "vault" not in seen and "payroll" not in seen
    assert "public.md" in seen  # what the caller may read is still there


def test_a_supersession_exists_only_for_a_caller_who_may_read_both_documents(graph: CiteGraph) -> None:
    """A public FAQ superseded by a staff-only plan: for a public caller the FAQ is current and the
    plan's name appears nowhere (documents, history, answers, stale warnings, as-of); a caller
    holding both labels sees the supersession."""
    faq = "Customer data is kept for 90 days after cancelling."
    graph.ingest_texts([TextInput("faq-2023.md", faq)], access=("public",))
    graph.ingest_texts([TextInput("layoffs-plan-2025.md", "Customer data is kept for 30 days after cancelling.")], access=("staff",))
    graph.supersede("faq-2023.md", by="layoffs-plan-2025.md")
    assert graph.unseen_supersession("faq-2023.md", "layoffs-plan-2025.md") == ("public",)
    question = "How long is customer data kept after cancelling?"
    public = json.dumps(
        [
            documents_json(graph.documents(labels=("public",))),
            documents_json(graph.history("faq-2023.md", labels=("public",))),
            answer_json(graph.ask(question, labels=("public",))),
            answer_json(graph.ask(question, labels=("public",), include_superseded=True)),
            answer_json(graph.ask(question, labels=("public",), as_of="2100-01-01")),
        ]
    )
    assert "layoffs" not in public and "superseded by" not in public
    assert "faq-2023.md" in {item.span.document for item in graph.ask(question, labels=("public",)).context}  # still current for them
    ((doc,),) = [[d for d in graph.documents(labels=("public",)) if d.document.id == "faq-2023.md"]]
    assert doc.document.superseded_by is None
    # Both labels: the supersession holds, named.
    both = ("public", "staff")
    assert {item.span.document for item in graph.ask(question, labels=both).context} == {"layoffs-plan-2025.md"}
    (seen,) = [d for d in graph.documents(labels=both) if d.document.id == "faq-2023.md"]
    assert seen.document.superseded_by == "layoffs-plan-2025.md"
    stale = [w for w in graph.ask(question, labels=both, include_superseded=True).warnings if w.code == "stale"]
    assert stale and "superseded by layoffs-plan-2025.md" in stale[0].message
    assert "faq-2023.md" not in {item.span.document for item in graph.ask(question, labels=both, as_of="2100-01-01").context}


# -- non-interference ------------------------------------------------------------------------------
WORDS = ["Export", "Snapshot", "Invoice", "Archive", "Payroll", "Retention"]
LABELS = ["public", "hr", "eng"]
TEMPLATES = [
    "The {a} uses the {b}.",
    "{a} stays available for {n} days after the {b} ends.",
    "The {a} never touches the {b}.",
    "Every {a} is kept for {n} years.",
]


class WordListExtractor(Extractor):
    """Deterministic and fast: vocabulary words are entities; consecutive ones are related."""

    name = "wordlist"

    def extract(self, document: Document, sentences: Sequence[Sentence]) -> Extraction:
        entities, relations = [], []
        for sentence in sentences:
            found = []
            for word in WORDS:
                at = sentence.span.text.find(word)
                if at >= 0:
                    found.append((at, word))
                    start = sentence.span.start + at
                    entities.append(ExtractedEntity(word, word.lower(), "CONCEPT", sentence.span, start, start + len(word)))
            found.sort()
            for (_, a), (_, b) in itertools.pairwise(found):
                relations.append(ExtractedRelation(a.lower(), b.lower(), "related to", sentence.span, a, b))
        return Extraction(self.name, tuple(entities), tuple(relations))


sentence = st.builds(
    lambda t, a, b, n: t.format(a=a, b=b, n=n),
    st.sampled_from(TEMPLATES),
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    st.integers(1, 40),
)
# One step of a history: ("ingest", text, labels, document number), ("relabel", "", labels, document
# number) or ("supersede", replacing document number, (), document number).
Op = tuple[str, str, tuple[str, ...], int]
labels_st = st.sets(st.sampled_from(LABELS), min_size=1, max_size=2).map(lambda s: tuple(sorted(s)))
history_st = st.lists(
    st.one_of(
        # which document id: ids repeat, so later entries are new versions or collisions across labels
        st.tuples(st.just("ingest"), st.lists(sentence, min_size=1, max_size=3).map(" ".join), labels_st, st.integers(0, 2)),
        st.tuples(st.just("relabel"), st.just(""), labels_st, st.integers(0, 2)),
        st.tuples(st.just("supersede"), st.sampled_from("012"), st.just(()), st.integers(0, 2)),
    ),
    min_size=1,
    max_size=6,
)


def _oracle(ops: Sequence[Op]) -> tuple[list[bool], dict[int, tuple[str, ...]]]:
    """Whether each step takes effect, and each document's final labels: an id's first ingest sets
    its labels, an ingest with other labels is refused, a relabel of a stored id changes them."""
    labels_of: dict[int, tuple[str, ...]] = {}
    taken: list[bool] = []
    for kind, text, labels, doc in ops:
        if kind == "supersede":  # both stored, and not itself
            taken.append(doc in labels_of and int(text) in labels_of and int(text) != doc)
            continue
        refused = (kind == "ingest" and labels_of.get(doc, labels) != labels) or (kind == "relabel" and doc not in labels_of)
        taken.append(not refused)
        if not refused:
            labels_of[doc] = labels
    return taken, labels_of


def _build(stores: Stores, splitter: SentenceSplitter, ops: Sequence[Op], *, file: bool = False) -> CiteGraph:
    graph = CiteGraph(stores.new(file=file), HashingEmbedder(), splitter=splitter, extractor=WordListExtractor())
    for (kind, text, labels, doc), taken in zip(ops, _oracle(ops)[0], strict=True):
        if kind == "supersede":
            if taken:
                graph.supersede(f"doc{doc}.md", by=f"doc{text}.md")
            else:
                with pytest.raises((NotFound, UserError)):
                    graph.supersede(f"doc{doc}.md", by=f"doc{text}.md")
        elif kind == "ingest":
            (report,) = graph.ingest_texts([TextInput(f"doc{doc}.md", text)], access=labels).documents
            assert (report.status == DocumentStatus.FAILED) == (not taken), report
        elif taken:
            graph.relabel(f"doc{doc}.md", labels)
        else:
            with pytest.raises(NotFound):
                graph.relabel(f"doc{doc}.md", labels)
    return graph


def _observe(graph: CiteGraph, labels: Sequence[str], question: str, seed: str) -> dict[str, Any]:
    """Everything a caller can get out of citegraph, as JSON, without internal row ids."""

    def attempt(f: Any) -> Any:
        try:
            return f()
        except NotFound as exc:
            return f"not found: {exc}"

    documents = documents_json(graph.documents(labels=labels))
    for d in documents:
        d.pop("ingested_at")
    retrievals = {
        mode: [
            (e.span.document, e.span.version, e.span.start, e.found_by, e.entity, round(e.score, 5), [h.target for h in e.route])
            for e in graph.retriever.retrieve(question, labels, mode=mode).evidence
        ]
        for mode in MODES  # PageRank mass, BM25 statistics, passage vectors: none may come from a private sentence
    }
    return {
        "retrieval": retrievals,
        "answer": answer_json(graph.ask(question, labels=labels)),
        "answer_superseded": answer_json(graph.ask(question, labels=labels, include_superseded=True)),
        "traverse": attempt(lambda: nodes_json(graph.traverse([seed], labels=labels))),
        "entity": attempt(lambda: entity_json(graph.entity(seed, labels=labels))),
        "relations": relations_json(graph.relations(labels=labels, include_superseded=True)),
        "export": json.loads(graph.export("json", labels=labels, include_superseded=True)),
        "communities": [communities_json(graph.communities(labels=labels, level=n)) for n in range(3)],
        "overview": answer_json(graph.ask("What are the main topics of these documents?", labels=labels)),
        "documents": documents,
    }


def _assert_non_interference(
    stores: Stores, splitter: SentenceSplitter, ops: Sequence[Op], caller: Sequence[str], question: str, seed: str, *, file: bool = False
) -> None:
    """What ``caller`` gets from the full store equals what a store built only from the documents it
    may read gives (labels belong to a document id; what decides is each document's final labels; a
    supersession exists for a caller that may read both documents)."""
    taken, final = _oracle(ops)

    def readable(op: Op) -> bool:
        docs = (op[3], int(op[1])) if op[0] == "supersede" else (op[3],)
        return all(set(final[d]) & set(caller) for d in docs)

    only_readable = [op for op, ok in zip(ops, taken, strict=True) if ok and readable(op)]
    labels = sorted(caller)
    with _build(stores, splitter, ops, file=file) as full, _build(stores, splitter, only_readable, file=file) as only:
        assert _observe(full, labels, question, seed) == _observe(only, labels, question, seed)
    stores.release()  # this example's stores (a PostgreSQL database each) go now, not at the test's end


#: one history, one caller and what it asks: the arguments of both non-interference properties
histories = given(
    ops=history_st,
    caller=st.sets(st.sampled_from(LABELS), min_size=1, max_size=2),
    question=st.sampled_from(WORDS).map(lambda w: f"How long does the {w} stay available?"),
    seed=st.sampled_from(WORDS),
)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@histories
def test_non_interference(stores: Stores, splitter: SentenceSplitter, ops: list[Op], caller: set[str], question: str, seed: str) -> None:
    _assert_non_interference(stores, splitter, ops, sorted(caller), question, seed)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@histories
def test_non_interference_through_saved_views(
    stores: Stores, splitter: SentenceSplitter, ops: list[Op], caller: set[str], question: str, seed: str
) -> None:
    """The same property with every caller's graph saved beside a SQLite store file and read back
    from there (:mod:`citegraph.store.snapshots`, its threshold lowered to one sentence)."""
    if stores.backend != "sqlite":
        pytest.skip("saved views are kept beside SQLite stores only")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snapshots, "SAVE_ABOVE", 1)
        _assert_non_interference(stores, splitter, ops, sorted(caller), question, seed, file=True)


@pytest.mark.slow
def test_non_interference_for_every_order_of_a_collision(stores: Stores, splitter: SentenceSplitter) -> None:
    """Every order of two ingests colliding on one id with other labels, a second version, and a
    relabel: every caller sees what a store of its readable documents shows."""
    steps: list[Op] = [
        ("ingest", "Every Payroll is kept for 7 years. The Payroll uses the Archive.", ("hr",), 0),
        ("ingest", "The Export uses the Snapshot.", ("public",), 0),
        ("ingest", "The Export never touches the Archive.", ("public",), 0),
        ("relabel", "", ("eng", "public"), 0),
    ]
    for order in itertools.permutations(steps):
        for caller in (["public"], ["hr"], ["eng"]):
            _assert_non_interference(stores, splitter, order, caller, "How long is the Payroll kept?", "Archive")


def test_relabelling_a_document_relabels_its_old_versions(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("plan.md", PRIVATE)], access=("public",))
    result = graph.relabel("plan.md", ["hr"])
    assert (result.before, result.after, result.versions, result.gained, result.lost) == (("public",), ("hr",), 2, ("hr",), ("public",))
    assert graph.documents(labels=("public",)) == []  # not even "a newer version exists"
    assert "snapshot" not in graph.export("json", labels=("public",), include_superseded=True)
    assert [d.document.current for d in graph.history("plan.md", labels=("hr",))] == [True, False]
    # a caller learns only the labels it holds
    graph.ingest_texts([TextInput("both.md", PUBLIC)], access=("public", "secret-board"))
    (both,) = [d for d in graph.documents(labels=("public",)) if d.document.id == "both.md"]
    assert both.document.access == ("public",)
    with pytest.raises(NotFound, match="no document named 'plan'"):
        graph.relabel("plan", ["hr"])


def test_identical_content_can_restore_an_old_version_but_never_relabels(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("plan.md", PRIVATE)], access=("public",))
    (back,) = graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("public",)).documents
    assert back.status == DocumentStatus.UNCHANGED and back.superseded is not None and "made current again" in back.reason
    (refused,) = graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("hr",)).documents
    assert refused.status == DocumentStatus.FAILED and "citegraph relabel plan.md --access hr" in refused.reason
    assert [(d.document.current, d.document.access) for d in graph.history("plan.md", labels=("public",))] == [
        (True, ("public",)),
        (False, ("public",)),
    ]


SALARY = "Alice Moreno earns a salary of 187000 dollars per year."
TEAM = "Alice Moreno leads the Export team."


@pytest.mark.parametrize("order", [("staff", "public"), ("public", "staff")])
def test_an_id_collision_across_labels_is_refused_in_either_order(
    order: tuple[str, str], tmp_path: Path, splitter: SentenceSplitter, stores: Stores
) -> None:
    """Issue 14's leak: staff/notes.txt and pub/notes.txt share the id ``notes.txt``. The second
    ingest used to relabel the first document's versions; now it is refused, and --prefix keeps both."""
    folders = {"staff": tmp_path / "staff", "public": tmp_path / "pub"}
    for label, text in (("staff", SALARY), ("public", TEAM)):
        folders[label].mkdir()
        (folders[label] / "notes.txt").write_text(text, encoding="utf-8")
    with CiteGraph(stores.new(), HashingEmbedder(), splitter=splitter) as graph:
        first, second = order
        assert graph.ingest([folders[first]], access=[first]).documents[0].status == DocumentStatus.OK
        (refused,) = graph.ingest([folders[second]], access=[second]).documents
        assert refused.status == DocumentStatus.FAILED
        assert f"'notes.txt' is stored with access {first}" in refused.reason and "--prefix" in refused.reason
        # Nothing changed hands: public sees exactly the public text, or nothing, in every view.
        public = json.dumps(
            [
                answer_json(graph.ask("What is Alice Moreno's salary?", labels=["public"], include_superseded=True)),
                documents_json(graph.documents(labels=["public"])),
                relations_json(graph.relations(labels=["public"], include_superseded=True)),
                json.loads(graph.export("json", labels=["public"], include_superseded=True)),
            ]
        )
        assert "187000" not in public
        assert ("leads the Export team" in public) == (first == "public")
        # Both, side by side, under a namespace.
        (kept,) = graph.ingest([folders[second]], access=[second], prefix=f"{second}/").documents
        assert (kept.id, kept.status) == (f"{second}/notes.txt", DocumentStatus.OK)
        assert "187000" not in json.dumps(answer_json(graph.ask("What is Alice Moreno's salary?", labels=["public"])))
