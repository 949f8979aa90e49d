"""Access control: labels filter traversal, context, citations, routes, show, traverse and export.

The property test is non-interference: what a caller holding labels L gets from the full store is
exactly what they would get from a store built only from the documents L may read.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citegraph.embed import HashingEmbedder
from citegraph.errors import NotFound
from citegraph.extract.base import Extractor
from citegraph.ingest.sentences import Sentence, SentenceSplitter
from citegraph.models import Document, DocumentStatus, ExtractedEntity, ExtractedRelation, Extraction
from citegraph.output import answer_json, documents_json, entity_json, nodes_json, relations_json
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.store import SQLiteStore

PUBLIC = "Exports use the latest snapshot. Snapshot exports stay available for 30 days after cancellation."
PRIVATE = "Exports of payroll data use the archive vault. The archive vault keeps payroll for seven years."


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


def test_evidence_is_checked_again_when_the_context_is_built(graph: CiteGraph) -> None:
    """Even a view that leaks a private span (a store bug) cannot put it into the context."""
    graph.ingest_texts([TextInput("public.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("hr.md", PRIVATE)], access=("hr",))
    leaky = graph.store.graph(None)  # everything, as if the store had ignored the labels
    retriever = graph.retriever
    original = retriever.store.graph
    retriever.store.graph = lambda labels, include_superseded=False: leaky  # type: ignore[method-assign]
    try:
        retriever._cache.clear()
        answer = graph.ask("Where do exports of payroll data go?", labels=("public",))
    finally:
        retriever.store.graph = original  # type: ignore[method-assign]
    assert answer.context and all(item.evidence.span.document == "public.md" for item in answer.context)


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
corpus = st.lists(
    st.tuples(
        st.lists(sentence, min_size=1, max_size=3).map(" ".join),
        st.sets(st.sampled_from(LABELS), min_size=1, max_size=2),
        st.integers(0, 2),  # which document id: ids repeat, so later entries are new versions
    ),
    min_size=1,
    max_size=5,
)


def _build(splitter: SentenceSplitter, docs: Sequence[tuple[str, set[str], int]]) -> CiteGraph:
    graph = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter, extractor=WordListExtractor())
    for text, labels, doc in docs:
        graph.ingest_texts([TextInput(f"doc{doc}.md", text)], access=tuple(sorted(labels)))
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
    return {
        "answer": answer_json(graph.ask(question, labels=labels)),
        "answer_superseded": answer_json(graph.ask(question, labels=labels, include_superseded=True)),
        "traverse": attempt(lambda: nodes_json(graph.traverse([seed], labels=labels))),
        "entity": attempt(lambda: entity_json(graph.entity(seed, labels=labels))),
        "relations": relations_json(graph.relations(labels=labels, include_superseded=True)),
        "export": json.loads(graph.export("json", labels=labels, include_superseded=True)),
        "documents": documents,
    }


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(
    docs=corpus,
    caller=st.sets(st.sampled_from(LABELS), min_size=1, max_size=2),
    question=st.sampled_from(WORDS).map(lambda w: f"How long does the {w} stay available?"),
    seed=st.sampled_from(WORDS),
)
def test_non_interference(splitter: SentenceSplitter, docs: list, caller: set[str], question: str, seed: str) -> None:
    # Labels belong to a document id: each ingest (new version or not) relabels all its versions,
    # so what L may read is decided by each document's last labels.
    final = {doc: labels for _text, labels, doc in docs}
    readable = [d for d in docs if final[d[2]] & caller]
    labels = sorted(caller)
    with _build(splitter, docs) as full, _build(splitter, readable) as only:
        assert _observe(full, labels, question, seed) == _observe(only, labels, question, seed)


def test_relabelling_a_document_relabels_its_old_versions(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("plan.md", PRIVATE)], access=("hr",))
    assert graph.documents(labels=("public",)) == []  # not even "a newer version exists"
    assert "snapshot" not in graph.export("json", labels=("public",), include_superseded=True)
    assert [d.document.current for d in graph.history("plan.md", labels=("hr",))] == [True, False]
    # a caller learns only the labels it holds
    graph.ingest_texts([TextInput("both.md", PUBLIC)], access=("public", "secret-board"))
    (both,) = [d for d in graph.documents(labels=("public",)) if d.document.id == "both.md"]
    assert both.document.access == ("public",)


def test_identical_content_with_new_labels_relabels_and_can_restore_an_old_version(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("public",))
    graph.ingest_texts([TextInput("plan.md", PRIVATE)], access=("public",))
    (back,) = graph.ingest_texts([TextInput("plan.md", PUBLIC)], access=("hr",)).documents
    assert back.status == DocumentStatus.UNCHANGED and back.superseded is not None
    assert "made current again" in back.reason and "access labels changed from public to hr" in back.reason
    assert graph.documents(labels=("public",)) == []
    assert [(d.document.current, d.document.access) for d in graph.history("plan.md", labels=("hr",))] == [
        (True, ("hr",)),
        (False, ("hr",)),
    ]
