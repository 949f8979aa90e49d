"""Issue 14, ingest side: hostile or odd input is reported per file, never aborts the run, never
leaves a store that ``citegraph check`` rejects, and costs memory bounded by a chunk, not a file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from citegraph.embed import HashingEmbedder
from citegraph.ingest.indexer import Indexer
from citegraph.models import DocumentStatus
from citegraph.pipeline import CiteGraph, TextInput
from citegraph.sentences import MAX_SENTENCE_CHARS, SentenceSplitter
from citegraph.store import SQLiteStore

POLICY = (
    "Exports use the latest snapshot. Snapshot exports stay available for 30 days after cancellation.\n"
    "Snapshots are deleted by the retention service."
)


def _extractions(tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_source_sentence_must_be_whole_sentences(graph: CiteGraph, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = write("policy.md", POLICY).parent
    entity = {"name": "Export", "type": "FEATURE"}
    extractions = _extractions(
        tmp_path,
        {
            "document": "policy.md",
            "entities": [
                {**entity, "source_sentence": "s"},  # a letter
                {**entity, "source_sentence": "Exports"},  # a word
                {**entity, "source_sentence": "latest snapshot. Snapshot exports"},  # across a boundary
                {**entity, "source_sentence": "Exports use the latest snapshot."},  # one sentence
                # two whole sentences, whitespace-normalised
                {
                    **entity,
                    "source_sentence": "Exports use the latest snapshot.   Snapshot exports stay available for 30 days after cancellation.",
                },
            ],
        },
    )
    (policy,) = graph.ingest([folder], extractions=extractions).documents
    assert policy.status == DocumentStatus.PARTIAL and policy.extractor == "import:x.jsonl"
    assert [r.reason for r in policy.rejected] == ["not_whole_sentences"] * 3
    spans = {m.span.text for m in graph.entity("Export").mentions}
    assert spans == {
        "Exports use the latest snapshot.",
        "Exports use the latest snapshot. Snapshot exports stay available for 30 days after cancellation.",
    }
    assert graph.check() == []


def test_a_huge_entity_name_is_rejected_not_parsed(graph: CiteGraph, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A 2,000,000-character name used to reach spaCy (error E088) and abort the ingest."""
    folder = write("policy.md", POLICY).parent
    write("other.md", "Invoices are sent monthly.")
    huge = {"name": "A" * 2_000_000, "source_sentence": "Exports use the latest snapshot."}
    relation = {"source": "Export", "target": "B" * 2_000_000, "source_sentence": "Exports use the latest snapshot."}
    report = graph.ingest(
        [folder], extractions=_extractions(tmp_path, {"document": "policy.md", "entities": [huge], "relations": [relation]})
    )
    by_id = {d.id: d for d in report.documents}
    assert [r.reason for r in by_id["policy.md"].rejected] == ["name_too_long", "name_too_long"]
    assert len(by_id["policy.md"].rejected[0].record) < 1_000  # the report does not carry the page back
    assert by_id["other.md"].status == DocumentStatus.OK and by_id["other.md"].extractor.startswith("spacy:")


def test_check_names_documents_and_entities(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "c.db")
    with CiteGraph(store, HashingEmbedder()) as graph:
        graph.ingest_texts([TextInput("policy.md", POLICY)])
        store.db.execute("DELETE FROM mentions WHERE id = (SELECT min(id) FROM mentions)")
        (problem,) = [p for p in graph.check() if p.kind == "relation_endpoint"][:1]
        assert "policy.md@" in problem.detail and "-[" in problem.detail and "'" in problem.detail


def test_a_file_name_that_is_not_utf8_is_one_files_reason(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good.md").write_text("Exports use the latest snapshot.", encoding="utf-8")
    bad = os.fsencode(folder) + b"/caf\xe9.md"
    with open(bad, "wb") as handle:
        handle.write(b"Invoices are sent monthly.")
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder()) as graph:
        report = graph.ingest([folder])
        by_id = {d.id: d for d in report.documents}
        assert by_id["good.md"].status == DocumentStatus.OK
        assert by_id["caf\\xe9.md"].status == DocumentStatus.FAILED and "not valid UTF-8" in by_id["caf\\xe9.md"].reason
        json.dumps([vars(d) for d in report.documents], default=str).encode("utf-8")  # printable, storable


def test_links_do_not_lead_out_of_the_ingested_folder(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("The root password is hunter2.", encoding="utf-8")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "inside.md").write_text("Exports use the latest snapshot.", encoding="utf-8")
    (folder / "out.txt").symlink_to(outside)
    (folder / "alias.md").symlink_to(folder / "inside.md")
    with CiteGraph(SQLiteStore(":memory:"), HashingEmbedder()) as graph:
        by_id = {d.id: d for d in graph.ingest([folder]).documents}
        assert by_id["out.txt"].status == DocumentStatus.SKIPPED and "outside the ingested folder" in by_id["out.txt"].reason
        assert by_id["alias.md"].status == DocumentStatus.OK  # a link inside the folder is read
        assert "hunter2" not in graph.export("json")
        # Named on the command line, the link is read: the user asked for it.
        assert graph.ingest([folder / "out.txt"]).documents[0].status == DocumentStatus.OK


def test_an_overlong_sentence_is_cut_and_said(graph: CiteGraph) -> None:
    text = " ".join(f"word{i}" for i in range(3 * MAX_SENTENCE_CHARS // 6))  # no full stop anywhere
    (report,) = graph.ingest_texts([TextInput("wall.txt", text)]).documents
    assert report.status == DocumentStatus.OK and report.notes and "cut at whitespace" in report.notes[0]
    spans = [s for s in graph.store.graph(None).spans if s.document == "wall.txt"]
    assert len(spans) >= 2 and all(len(s.text) <= MAX_SENTENCE_CHARS for s in spans)
    assert graph.check() == []


def test_a_long_document_is_indexed_in_chunks_with_the_same_result(splitter: SentenceSplitter) -> None:
    """Chunked indexing (memory bounded by the chunk) stores exactly what one piece would."""
    paragraphs = [f"Exports of project {i} use snapshot {i % 7}. Snapshot {i % 7} is kept for {i} days." for i in range(60)]
    text = "\n\n".join(paragraphs)
    graphs = []
    for chunk in (len(text) + 1, 500):  # whole, then in chunks of ~500 characters
        graph = CiteGraph(SQLiteStore(":memory:"), HashingEmbedder(), splitter=splitter)
        graph.indexer = Indexer(splitter, graph.extractor, graph.embedder, graph=graph.store, chunk_chars=chunk)
        (report,) = graph.ingest_texts([TextInput("long.md", text)]).documents
        assert report.status == DocumentStatus.OK and graph.check() == []
        graphs.append((report, graph.export("json")))
    (whole, whole_export), (chunked, chunked_export) = graphs
    assert (whole.sentences, whole.entities, whole.relations) == (chunked.sentences, chunked.entities, chunked.relations)
    strip = lambda e: {k: v for k, v in json.loads(e).items() if k != "graph"}  # noqa: E731
    assert strip(whole_export) == strip(chunked_export)


def test_concurrent_ingests_store_each_document_once(tmp_path: Path) -> None:
    """Three ingests of the same 40 files at once: 40 'ok' in all, the rest 'unchanged' (it was 72 'ok')."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(40):
        (folder / f"d{i:02}.md").write_text(f"Export {i} uses snapshot {i}. Snapshot {i} is kept for {i} days.", encoding="utf-8")
    db = tmp_path / "c.db"
    env = {**os.environ, "CITEGRAPH_EMBEDDER": "hashing", "CITEGRAPH_DB": str(db)}
    command = [sys.executable, "-m", "citegraph.cli", "ingest", str(folder), "--json", "--quiet"]
    SQLiteStore(db).close()  # created first, so the three race on documents, not on the schema
    procs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outputs = [p.communicate(timeout=300) for p in procs]
    statuses = [d["status"] for out, _err in outputs for d in json.loads(out)["documents"]]
    assert statuses.count("ok") == 40 and statuses.count("unchanged") == 80, [err.decode()[-500:] for _o, err in outputs]
    with CiteGraph(SQLiteStore(db), HashingEmbedder()) as graph:
        assert len(graph.documents(labels=None)) == 40 and graph.check() == []


def test_the_issue_reproduction_through_the_cli(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """staff/notes.txt, then pub/notes.txt: the second is refused (exit 3) with the way out, the
    salary never reaches a public caller, --prefix keeps both, and relabel says who gains what."""
    from click.testing import CliRunner

    from citegraph.cli import main

    monkeypatch.setenv("CITEGRAPH_DB", str(tmp_path / "a.db"))
    monkeypatch.setenv("CITEGRAPH_EMBEDDER", "hashing")
    for folder, text in (
        ("staff", "Alice Moreno earns a salary of 187000 dollars per year."),
        ("pub", "Alice Moreno leads the Export team."),
    ):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "notes.txt").write_text(text, encoding="utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(tmp_path / "staff"), "--access", "staff", "--quiet"]).exit_code == 0
    refused = runner.invoke(main, ["ingest", str(tmp_path / "pub"), "--access", "public", "--quiet", "--json"])
    assert refused.exit_code == 3
    (doc,) = json.loads(refused.stdout)["documents"]
    assert doc["status"] == "failed" and "citegraph relabel notes.txt --access public" in doc["reason"]
    for args in (
        ["ask", "What is Alice Moreno's salary?", "--include-superseded", "--json"],
        ["show", "relations", "--include-superseded", "--json"],
        ["export", "--format", "json", "--include-superseded"],
        ["documents", "--json"],
    ):
        result = runner.invoke(main, [*args, "--as", "public"])
        assert result.exit_code == 0 and "187000" not in result.stdout, args
    kept = runner.invoke(main, ["ingest", str(tmp_path / "pub"), "--access", "public", "--prefix", "pub/", "--quiet", "--json"])
    assert kept.exit_code == 0 and json.loads(kept.stdout)["documents"][0]["id"] == "pub/notes.txt"
    moved = runner.invoke(main, ["relabel", "notes.txt", "--access", "staff,hr"])
    assert moved.exit_code == 0 and "now readable by callers holding hr" in moved.stdout
    assert json.loads(runner.invoke(main, ["relabel", "notes.txt", "--access", "staff", "--json"]).stdout)["lost"] == ["hr"]
    assert runner.invoke(main, ["relabel", "nope.txt", "--access", "staff"]).exit_code == 1
