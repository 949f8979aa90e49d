"""Ingest and ask through the pipeline object: versions, no-ops, access labels, determinism, isolation."""

from __future__ import annotations

from pathlib import Path

from citegraph.models import AnswerStatus, DocumentStatus
from citegraph.pipeline import CiteGraph, TextInput
from tests.pdfs import pdf_pages


def _statuses(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {d.id: d.status.value for d in report.documents}


def test_reingesting_identical_content_is_a_no_op(graph: CiteGraph, write) -> None:  # type: ignore[no-untyped-def]
    path = write("a.md", "Exports use the latest snapshot.")
    first = graph.ingest([path.parent])
    before = graph.store.change_token()
    second = graph.ingest([path.parent])
    assert _statuses(first) == {"a.md": "ok"} and _statuses(second) == {"a.md": "unchanged"}
    assert graph.store.change_token() == before  # nothing was written
    assert len(graph.documents()) == 1


def test_changed_content_is_a_new_version_and_the_old_one_is_kept_but_not_retrieved(graph: CiteGraph, write) -> None:  # type: ignore[no-untyped-def]
    path = write("faq.md", "Exports are removed at cancellation.")
    v1 = graph.ingest([path.parent]).documents[0].version
    path.write_text("Exports stay available for 30 days after cancellation.", encoding="utf-8")
    report = graph.ingest([path.parent])
    (doc,) = report.documents
    assert doc.status == DocumentStatus.OK and doc.superseded == v1 and doc.version != v1
    versions = {(d.document.version, d.document.current) for d in graph.documents()}
    assert versions == {(v1, False), (doc.version, True)}

    answer = graph.ask("What happens to exports at cancellation?")
    assert {c.span.version for c in answer.context} == {doc.version}
    assert all("removed" not in c.span.text for c in answer.context)
    old = graph.ask("What happens to exports at cancellation?", include_superseded=True)
    assert v1 in {c.span.version for c in old.context}
    mentions = graph.entity("export").mentions
    assert {(m.span.version, m.current) for m in mentions} == {(v1, False), (doc.version, True)}

    # Going back to the old content reinstates the old version instead of storing a copy.
    path.write_text("Exports are removed at cancellation.", encoding="utf-8")
    (back,) = graph.ingest([path.parent]).documents
    assert (back.status, back.version, back.superseded) == (DocumentStatus.UNCHANGED, v1, doc.version)


def test_access_labels_filter_retrieval_context_and_inspection(graph: CiteGraph) -> None:
    graph.ingest_texts([TextInput("public.md", "Exports use the latest snapshot.")], access=["public"])
    graph.ingest_texts([TextInput("secret.md", "Exports are secretly copied to the archive vault.")], access=["staff"])
    public = graph.ask("Where are exports copied?", labels=["public"])
    assert {c.span.document for c in public.context} == {"public.md"}
    assert all("vault" not in n.entity for n in public.retrieval.nodes)
    staff = graph.ask("Where are exports copied?", labels=["public", "staff"])
    assert {c.span.document for c in staff.context} == {"public.md", "secret.md"}
    assert {m.span.document for m in graph.entity("export", labels=["public"]).mentions} == {"public.md"}
    assert {m.span.document for m in graph.entity("export", labels=["staff"]).mentions} == {"secret.md"}
    assert all(r.span.document == "public.md" for r in graph.relations(labels=["public"]))
    assert [d.document.id for d in graph.documents(labels=["public"])] == ["public.md"]


def test_same_question_same_context_numbering(minilm_graph: CiteGraph, larkspur: Path) -> None:
    minilm_graph.ingest([larkspur])
    q = "How long do exports stay available after cancellation?"
    first, second = minilm_graph.ask(q), minilm_graph.ask(q)
    assert [(c.marker, c.span) for c in first.context] == [(c.marker, c.span) for c in second.context]
    assert first.text == second.text


def test_larkspur_answer_cites_the_policy_sentence_with_exact_span(minilm_graph: CiteGraph, larkspur: Path) -> None:
    minilm_graph.ingest([larkspur])
    answer = minilm_graph.ask("How long do exports stay available after cancellation?")
    # cited (no verifier), and conflicting: the 2023 FAQ in the context says the exports go at cancellation
    assert answer.status == AnswerStatus.CONFLICTING
    (conflict,) = [w for w in answer.warnings if w.code == "conflict"]
    assert "faq-2023.md" in dict(conflict.data)["sources"][0] + dict(conflict.data)["sources"][1]
    cited = {c.span.text: c for claim in answer.claims for c in claim.citations}
    policy = cited["Snapshot exports stay available for 30 days after cancellation."]
    doc = minilm_graph.store.get_document("retention-policy.md")
    assert doc is not None and doc.text[policy.span.start : policy.span.end] == policy.span.text
    assert policy.span.version == doc.version
    # Every claim is the quoted sentence itself, and every numbered context item is a stored span.
    for item in answer.context:
        stored = minilm_graph.store.get_document(item.span.document, item.span.version)
        assert stored is not None and stored.text[item.span.start : item.span.end] == item.span.text
    # The retrieval record lists seeds at depth 0 and routes that start at a seed.
    assert all(n.depth == len(n.route) for n in answer.retrieval.nodes)
    assert {n.entity for n in answer.retrieval.nodes if n.depth == 0} == set(answer.retrieval.seeds)


def test_one_bad_document_never_loses_the_others(graph: CiteGraph, write) -> None:  # type: ignore[no-untyped-def]
    write("good.md", "Exports use the latest snapshot.")
    write("latin1.txt", "Caf\xe9 prices rise.".encode("latin-1"))
    write("binary.txt", b"\x00\x01\x02binary")
    write("image.png", b"\x89PNG\r\n")
    write("empty.txt", "")
    report = graph.ingest([write("also-good.txt", "Snapshots are kept for 90 days.").parent])
    statuses = _statuses(report)
    assert statuses == {
        "also-good.txt": "ok",
        "binary.txt": "failed",
        "empty.txt": "empty",
        "good.md": "ok",
        "image.png": "skipped",
        "latin1.txt": "failed",
    }
    reasons = {d.id: d.reason for d in report.documents}
    assert "not valid UTF-8" in reasons["latin1.txt"] and "iconv" in reasons["latin1.txt"]
    assert "binary" in reasons["binary.txt"]
    assert "unsupported file type '.png'" in reasons["image.png"]
    assert report.partial
    assert {d.document.id for d in graph.documents()} == {"also-good.txt", "empty.txt", "good.md"}


def test_html_and_pdf_are_read(graph: CiteGraph, write) -> None:  # type: ignore[no-untyped-def]
    write(
        "page.html",
        "<html><head><title>T</title><script>var x = 1;</script></head><body><h1>Exports</h1><p>Exports use the <b>latest</b> snapshot.</p></body></html>",
    )
    write("doc.pdf", _pdf("Snapshots are kept for 90 days."))
    report = graph.ingest([Path(write("x.txt", "Filler text here.").parent)])
    assert _statuses(report) == {"doc.pdf": "ok", "page.html": "ok", "x.txt": "ok"}
    html = graph.store.get_document("page.html")
    assert html is not None and "var x" not in html.text and "Exports use the latest snapshot." in html.text
    pdf = graph.store.get_document("doc.pdf")
    assert pdf is not None and "Snapshots are kept for 90 days." in pdf.text


def _pdf(text: str) -> bytes:
    """A minimal one-page PDF with ``text`` in Helvetica."""
    return pdf_pages([f"BT /F1 12 Tf 72 712 Td ({text}) Tj ET"])


def test_no_evidence_is_a_result_not_an_error(graph: CiteGraph) -> None:
    answer = graph.ask("Anything at all?")
    assert answer.status == AnswerStatus.NO_EVIDENCE
    assert [w.code for w in answer.warnings] == ["no_evidence"]


def test_ingest_takes_one_options_record_or_its_fields_and_names_an_unknown_one(graph: CiteGraph, write) -> None:  # type: ignore[no-untyped-def]
    """The ingest options are one record (IngestOptions), which the CLI builds and CiteGraph.ingest
    accepts, with keyword fields over it; a misspelt option is refused by name, not ignored."""
    import pytest

    from citegraph.errors import UserError
    from citegraph.ingest.base import IngestOptions

    note = write("note.md", "The archive opens at nine on Saturdays.")
    report = graph.ingest([note], IngestOptions(access=("staff",), prefix="ops/"), version_label="v1")
    assert [d.id for d in report.documents] == ["ops/note.md"]
    stored = {d.document.id: d.document for d in graph.store.documents(None)}["ops/note.md"]
    assert stored.access == ("staff",) and stored.label == "v1"
    with pytest.raises(UserError, match="no option acces"):
        graph.ingest([note], acces=["staff"])
